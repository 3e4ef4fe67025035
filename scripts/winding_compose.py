"""A large plant from four boards already proved unique (``--plant compose``).

The four tiles, each turned and mirrored at random, are placed in a 2x2. Every pair keeps
both ends inside its own tile, so a cover of the composed board that uses no edge across a
seam is a cover of each tile by its own pairs, which is that tile's planted cover (each tile
was proved unique). Any other cover therefore crosses a seam, and the generator's proof
(``scripts/winding_prove.py``) only has to rule those out: the split loop gives it the
clause "some seam edge is used" (``seam_edges``). Where it finds a cover, the split loop
splits a path there as for any plant. The clause stays valid through the splits: a cover C'
of the board split at planted edge (a, b) that uses no seam edge, plus (a, b), is a cover
of the board before the split (a and b end the two halves' paths) that uses no seam edge
either ((a, b) was planted, so lies in a tile), hence that board's planted cover, and C' is
the split planted cover. A join can pair ends in two tiles, after which a cover may cross a
seam and still be the planted one, so the improve phase proves without the clause.
``prove_by_quarters`` (also ``python scripts/winding_compose.py BOARD.txt``) re-proves a
written board the same way from its cover alone: each quarter's own board by the plain
backbone proof, then the whole board with the seam clause. The
plant starts at the tiles' density (about 19 cells per pair from the 20x20 boards of
``../winding/``), which a walk or tube plant of a 40x40 cannot be proved unique at
(``instances/numberlink/winding-large/README.md``).
"""

from __future__ import annotations

import json
import random
import sys
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: models/

from models.numberlink.rules import parse

Cell = tuple[int, int]


def turned(
    paths: list[list[Cell]], rows: int, cols: int, turns: int, mirror: bool
) -> list[list[Cell]]:
    """``paths`` of a rows x cols tile mirrored (left-right), then turned a quarter
    clockwise ``turns`` times; a tile that is not square only turns by halves."""

    def move(cell: Cell) -> Cell:
        r, c = cell
        if mirror:
            c = cols - 1 - c
        h, w = rows, cols
        for _ in range(turns):
            r, c, h, w = c, h - 1 - r, w, h
        return r, c

    if rows != cols and turns % 2:
        raise ValueError("a tile that is not square turns only by halves")
    return [[move(cell) for cell in path] for path in paths]


def compose(tiles: list[Path], seed: int) -> tuple[int, int, list[list[Cell]]]:
    """The four tiles' covers in a 2x2 (rows, cols, paths), each tile turned and
    mirrored by ``seed``; the tiles are boards of one size, each with its ``.sol.json``."""
    rng = random.Random(seed)
    paths: list[list[Cell]] = []
    size = None
    for k, tile in enumerate(tiles):
        board = parse(tile.read_text(), str(tile))
        if size not in (None, (board.rows, board.cols)):
            raise ValueError("the four tiles must be boards of one size")
        rows, cols = size = board.rows, board.cols
        planted = json.loads(tile.with_suffix(".sol.json").read_text())["paths"].values()
        turns = rng.randrange(4) if rows == cols else 2 * rng.randrange(2)
        own = turned(
            [[tuple(c) for c in p] for p in planted], rows, cols, turns, rng.random() < 0.5
        )
        dr, dc = (k // 2) * rows, (k % 2) * cols
        paths += [[(r + dr, c + dc) for r, c in path] for path in own]
    rng.shuffle(paths)
    return 2 * size[0], 2 * size[1], paths


@lru_cache
def tile_pool(
    folder: Path, rows: int, cols: int, min_cells_per_pair: float = 0.0
) -> tuple[Path, ...]:
    """The boards of ``folder`` that are rows x cols, ship their cover and have at least
    ``min_cells_per_pair`` cells per pair, in name order (read once: the size check and
    every plant of a run ask for the same pool). The plant starts at its tiles' density,
    so the threshold is how a run asks for sparser plants."""
    pool = []
    for path in sorted(folder.glob("*.txt")):
        if not path.with_suffix(".sol.json").exists():
            continue
        board = parse(path.read_text(), str(path))
        sparse_enough = board.rows * board.cols >= min_cells_per_pair * len(board.ends)
        if (board.rows, board.cols) == (rows, cols) and sparse_enough:
            pool.append(path)
    return tuple(pool)


def why_not(rows: int, cols: int, folder: Path, min_cells_per_pair: float = 0.0) -> str | None:
    """Why a rows x cols board cannot be composed from ``folder``'s tiles, or None."""
    if rows % 2 or cols % 2:
        return f"{rows}x{cols} is not a 2x2 of tiles (rows and columns must be even)"
    found = len(tile_pool(folder, rows // 2, cols // 2, min_cells_per_pair))
    if found < 4:
        sparse = f" of at least {min_cells_per_pair:g} cells per pair" if min_cells_per_pair else ""
        tile = f"{rows // 2}x{cols // 2}"
        return f"{rows}x{cols} needs four {tile} tiles{sparse} in {folder}, found {found}"
    return None


def plant(
    rows: int, cols: int, seed: int, folder: Path, min_cells_per_pair: float = 0.0
) -> list[list[Cell]]:
    """Four tiles drawn by ``seed`` from ``folder``'s rows/2 x cols/2 boards of at least
    ``min_cells_per_pair`` cells per pair, composed."""
    pool = tile_pool(folder, rows // 2, cols // 2, min_cells_per_pair)
    tiles = random.Random(seed).sample(pool, 4)
    return compose(tiles, seed)[2]


def seam_edges(rows: int, cols: int) -> frozenset[tuple[int, int]]:
    """The edges of a composed rows x cols board that cross its seams (cell numbers
    ``r * cols + c``, smaller first, as ``Grid.edges``)."""
    half_r, half_c = rows // 2, cols // 2
    across = {((half_r - 1) * cols + c, half_r * cols + c) for c in range(cols)}
    across |= {(r * cols + half_c - 1, r * cols + half_c) for r in range(rows)}
    return frozenset(across)


def prove_by_quarters(
    rows: int,
    cols: int,
    paths: list[list[Cell]],
    total_conflicts: int = 10**9,
    lexmin: tuple[tuple[int, int], ...] = (),
) -> tuple[str, str]:
    """Prove a board unique by the seam argument, from its cover alone: (verdict, how).

    No tile history is needed. If every path lies inside one quarter, each quarter's own
    board (its pairs, its part of the cover) is proved unique by the plain backbone proof;
    then every other cover of the whole board uses a seam edge (one that uses none is a
    cover of each quarter, hence the planted one), and the whole board's proof needs only
    refute those (``prove_unique(crossing=seam_edges(...))``). "unique" needs both; a
    path across a seam gives "not composed". ``lexmin``: window clauses for the whole
    board's proof (``winding_lexmin``; the quarters' proofs are plain)."""
    from make_unique_numberlink import board_of
    from winding_prove import prove_unique

    if rows % 2 or cols % 2:
        return "not composed", f"{rows}x{cols} has no quarters (odd side)"
    half_r, half_c = rows // 2, cols // 2
    parts: dict[tuple[int, int], list[list[Cell]]] = {}
    for path in paths:
        where = {(r // half_r, c // half_c) for r, c in path}
        if len(where) > 1:
            return "not composed", f"the path from {path[0]} crosses a seam"
        parts.setdefault(where.pop(), []).append(path)
    for (qr, qc), own in sorted(parts.items()):
        local = [[(r - qr * half_r, c - qc * half_c) for r, c in path] for path in own]
        verdict, _, calls = prove_unique(
            board_of(half_r, half_c, local), local, max_conflicts=10**8,
            total_conflicts=total_conflicts,
        )  # fmt: skip
        if verdict != "unique":
            return verdict, f"quarter {qr},{qc}: {verdict} ({calls} SAT calls)"
    verdict, _, calls = prove_unique(
        board_of(rows, cols, paths), paths, max_conflicts=10**8,
        total_conflicts=total_conflicts, crossing=seam_edges(rows, cols), lexmin=lexmin,
    )  # fmt: skip
    return verdict, f"four quarters unique, the seams: {verdict} ({calls} SAT calls)"


def main() -> None:
    """``python scripts/winding_compose.py [--lexmin 2x3,3x2] BOARD.txt ...``: each board
    (with its ``.sol.json``) proved by ``prove_by_quarters``, one line each; exit 1 unless
    all unique."""
    import argparse
    import time

    from winding_lexmin import parse_shapes

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--lexmin", type=parse_shapes, default=(), help="the whole board's windows")
    parser.add_argument("boards", nargs="+")
    args = parser.parse_args()
    results = []
    for name in args.boards:
        board = parse(Path(name).read_text(), name)
        cover = json.loads(Path(name).with_suffix(".sol.json").read_text())["paths"].values()
        began = time.monotonic()
        verdict, how = prove_by_quarters(
            board.rows, board.cols, [[tuple(c) for c in p] for p in cover], lexmin=args.lexmin
        )
        print(f"{Path(name).name}: {verdict}, {how}, {time.monotonic() - began:.1f} s", flush=True)
        results.append(verdict)
    sys.exit(0 if results and all(v == "unique" for v in results) else 1)


if __name__ == "__main__":
    main()
