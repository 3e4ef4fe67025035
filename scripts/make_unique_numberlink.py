"""Write uniquely solvable Numberlink boards (published style) with a complete proof.

    python scripts/make_unique_numberlink.py --out instances/numberlink/unique 10x10:1 20x20:2 ...

How a board is made (``make``): a random Hamiltonian path of the grid (backbite moves,
``models.numberlink.generate``) cut into dominoes, so every cell is an end and the
board has exactly one full cover. Then, in random order, two paths whose ends touch
are merged into one; a merge is kept only when the complete search
``pathsearch-numba`` proves the merged board still has exactly one cover (it finds
the planted cover and then exhausts: none of its rules assumes uniqueness). A check
that runs out of its budget (``--check-s``) rejects the merge; merging stops when no
untried merge is left or the time per board (``--max-s``) is spent. Every board
written therefore has exactly one full cover. Deterministic for a spec except where a
check's budget runs out (that depends on the machine). Each board is written as
``u_RxC_sS.txt`` with its solution in ``u_RxC_sS.sol.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_numberlink import board_spec  # beside this script

from models.numberlink.encodings import _pathsearch as ps
from models.numberlink.encodings.pathsearch_numba import PathSearch
from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import Board, format_board
from models.numberlink.verify import verify

Cell = tuple[int, int]


def board_of(rows: int, cols: int, paths: list[list[Cell]]) -> Board:
    grid: list[list[str | None]] = [[None] * cols for _ in range(rows)]
    for k, path in enumerate(paths, start=1):
        for r, c in (path[0], path[-1]):
            grid[r][c] = str(k)
    return Board(rows, cols, tuple(tuple(x) for x in grid))


def is_unique(board: Board, limit_s: float) -> bool | None:
    """True: exactly one full cover; False: two or more; None: undecided in the budget."""
    search = PathSearch(board)
    deadline = time.monotonic() + limit_s
    for _ in range(2):
        code = search.next_solution(deadline)
        if code is None:
            return None
        if code == ps.EXHAUSTED:
            return True
    return False


def make(
    rows: int, cols: int, seed: int, target: int | None, check_s: float, max_s: float
) -> tuple[Board, dict] | None:
    """Merge short planted paths while the board keeps exactly one full cover."""
    stop = time.monotonic() + max_s
    rng = random.Random(seed)
    n = rows * cols
    _, planted = generate_with_solution(rows, cols, seed, pairs=n // 2, cut="even")
    paths = [[tuple(x) for x in p] for p in planted["paths"].values()]
    if is_unique(board_of(rows, cols, paths), check_s) is not True:
        return None
    target = target or 0
    tried: set = set()
    while len(paths) > target and time.monotonic() < stop:
        at = {}
        for k, p in enumerate(paths):
            at[p[0]], at[p[-1]] = (k, 0), (k, 1)
        options = []
        for (r, c), (k, side) in at.items():
            for rr, cc in ((r + 1, c), (r, c + 1)):
                j = at.get((rr, cc))
                if j is not None and j[0] != k:
                    key = frozenset((paths[k][0], paths[k][-1], paths[j[0]][0], paths[j[0]][-1]))
                    if key not in tried:
                        options.append(((k, side), j, key))
        if not options:
            break
        (k, side), (j, jside), key = options[rng.randrange(len(options))]
        tried.add(key)
        a = paths[k] if side == 1 else paths[k][::-1]  # a ends at the touching end
        b = paths[j] if jside == 0 else paths[j][::-1]  # b starts at it
        merged = [p for i, p in enumerate(paths) if i not in (k, j)] + [a + b]
        if is_unique(board_of(rows, cols, merged), check_s):
            paths = merged
    board = board_of(rows, cols, paths)
    solution = {"paths": {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}}
    assert verify(board, solution) is None
    return board, solution


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--check-s", type=float, default=20.0, help="budget of one uniqueness check"
    )
    parser.add_argument("--max-s", type=float, default=60.0, help="merging time per board")
    parser.add_argument("specs", nargs="+", help="ROWSxCOLS:SEED[:pairs=K]")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in args.specs:
        rows, cols, seed, params = board_spec(spec)
        start = time.monotonic()
        made = make(rows, cols, seed, int(params.get("pairs", 0)) or None, args.check_s, args.max_s)
        if made is None:
            print(f"{spec}: gave up", flush=True)
            continue
        board, solution = made
        name = f"u_{rows}x{cols}_s{seed}"
        (out / f"{name}.txt").write_text(format_board(board))
        (out / f"{name}.sol.json").write_text(json.dumps(solution) + "\n")
        took = time.monotonic() - start
        print(f"{out / name}.txt: {len(board.ends)} pairs, {took:.1f} s", flush=True)


if __name__ == "__main__":
    main()
