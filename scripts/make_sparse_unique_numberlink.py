"""Write uniquely solvable Numberlink boards with few, long paths ("shrink until unique").

    python scripts/make_sparse_unique_numberlink.py --out DIR 10x10:1-30 36x20:4 ...

Method. Plant a full cover: a random Hamiltonian path of the grid
(``models.numberlink.generate``) cut where it touches itself (``cut_self_touches``), then
lengthened (``lengthen``): paths whose ends meet are joined and end cells move between
paths, while no path touches itself. A path that touches itself (cells i < j - 1 next
to each other) often has another route through the same cells, so this removes most
other covers before any search (about one pair per 9-11 cells). Then repeat: ask the
complete search of ``pathsearch-numba`` (never with ``assume_unique``) for a full cover
other than the planted one. If it finds one, split a planted path at an edge that cover
does not use (where the two covers differ; the most even such cut). When the search is
exhausted, the planted cover is the only one and the board is written.

Why it is correct and ends. Splitting planted path P at edge (u, v) into pieces ending
at u and v maps every full cover of the new board to one of the old board (add the edge
u-v: the two pieces become one path between P's ends), injectively. The planted cover
is in the image; the other cover found is not (it has no edge u-v on P's path), so the
number of full covers drops by at least one per split and reaches one. An exhausted
search is a proof: its rules hold for every full cover (``_pathsearch.py``).

A check that runs out of its budget (``--check-nodes`` decisions, so the outcome is the
same on every machine and the set is deterministic per spec) splits the longest path
in the middle and checks again: that board's cover count cannot grow (same map). So
does the rare other cover that differs from the planted one only in first or last
edges of paths (no cut there leaves two pieces of two cells).
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
from make_unique_numberlink import board_of

from models.numberlink.encodings import _pathsearch as ps
from models.numberlink.encodings.pathsearch_numba import PathSearch
from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import format_board
from models.numberlink.verify import verify

Cell = tuple[int, int]


def edges_of(paths) -> set[frozenset]:
    return {frozenset((tuple(p[i]), tuple(p[i + 1]))) for p in paths for i in range(len(p) - 1)}


def other_cover(board, planted: set[frozenset], budget: int) -> tuple[str, list | None, int]:
    """("unique", None), ("other", paths) or ("undecided", None), and the decisions taken."""
    search = PathSearch(board)
    while True:
        left = budget - int(search.meta[ps.NODES])
        if left <= 0:
            return "undecided", None, int(search.meta[ps.NODES])
        code = search.step(left)
        nodes = int(search.meta[ps.NODES])
        if code == ps.EXHAUSTED:
            return "unique", None, nodes
        if code == ps.SOLVED:
            paths = list(search.paths().values())
            if edges_of(paths) != planted:
                return "other", paths, nodes
        elif nodes >= budget:
            return "undecided", None, nodes


def split_where_differs(paths: list[list[Cell]], other: list) -> bool:
    """Split the planted path at an edge the other cover lacks, the most even such cut."""
    theirs = edges_of(other)
    best = None
    for k, p in enumerate(paths):
        for i in range(1, len(p) - 2):  # both pieces keep at least two cells
            if frozenset((p[i], p[i + 1])) not in theirs:
                score = min(i + 1, len(p) - i - 1)
                if best is None or score > best[0]:
                    best = (score, k, i)
    if best is None:
        return False
    _, k, i = best
    p = paths.pop(k)
    paths += [p[: i + 1], p[i + 1 :]]
    return True


def split_longest(paths: list[list[Cell]]) -> bool:
    k = max(range(len(paths)), key=lambda j: len(paths[j]))
    p = paths[k]
    if len(p) < 4:
        return False
    paths.pop(k)
    paths += [p[: len(p) // 2], p[len(p) // 2 :]]
    return True


def touches_itself(path: list[Cell]) -> bool:
    """Is some cell of the path next to a cell of it other than its path neighbours?"""
    at = {c: i for i, c in enumerate(path)}
    for i, (r, c) in enumerate(path):
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            j = at.get(q)
            if j is not None and abs(i - j) > 1:
                return True
    return False


def cut_self_touches(path: list[Cell]) -> list[list[Cell]]:
    """Fewest cuts leaving no piece that touches itself (greedy interval stabbing)."""
    at = {c: i for i, c in enumerate(path)}
    spans = []  # a touch between cells i < j is undone by cutting an edge t, i <= t < j
    for i, (r, c) in enumerate(path):
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            j = at.get(q, -1)
            if j > i + 1:
                spans.append((i, j - 1))
    cuts: list[int] = []
    for a, b in sorted(spans, key=lambda s: s[1]):
        if not cuts or cuts[-1] < a:
            cuts.append(b)
    if cuts and cuts[-1] == len(path) - 2:
        cuts[-1] -= 1  # the last piece keeps two cells; the spans it cut all hold t - 1
    pieces, s = [], 0
    for t in cuts:
        pieces.append(path[s : t + 1])
        s = t + 1
    return [*pieces, path[s:]]


def _nbrs(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))


def lengthen(paths: list[list[Cell]], rng: random.Random, moves: int) -> list[list[Cell]]:
    """Fewer, longer paths, none touching itself: join two paths whose ends are
    neighbours when the joined path does not touch itself; when no join is left, move
    the end cell of a random path onto a neighbouring end of another (if that path still
    does not touch itself), which opens new joins. At most ``moves`` steps."""
    paths = [list(p) for p in paths]
    owner = {c: k for k, p in enumerate(paths) for c in p}
    live = set(range(len(paths)))
    for _ in range(moves):
        at = {}
        for k in sorted(live):
            at[paths[k][0]], at[paths[k][-1]] = (k, 0), (k, 1)
        pairs = [
            (k, s, *at[q])
            for c, (k, s) in at.items()
            for q in _nbrs(c)
            if q in at and at[q][0] != k
        ]
        rng.shuffle(pairs)
        for k, s, j, js in pairs:
            a = paths[k] if s == 1 else paths[k][::-1]
            b = paths[j] if js == 0 else paths[j][::-1]
            inside_a = set(a)
            if not any(
                q in inside_a and not (i == 0 and q == a[-1])
                for i, c in enumerate(b)
                for q in _nbrs(c)
            ):
                paths[k] = a + b
                live.discard(j)
                for c in b:
                    owner[c] = k
                break
        else:
            shifts = [
                (k, s, j, js)
                for k, s, j, js in pairs
                if len(paths[k]) > 2
                and all(
                    owner.get(w) != j or w == at_end(paths[j], js)
                    for w in _nbrs(at_end(paths[k], s))
                )
            ]
            if not shifts:
                break
            k, s, j, js = shifts[rng.randrange(len(shifts))]
            x = paths[k].pop() if s == 1 else paths[k].pop(0)
            if js == 1:
                paths[j].append(x)
            else:
                paths[j].insert(0, x)
            owner[x] = j
    return [paths[k] for k in sorted(live)]


def at_end(path: list[Cell], side: int) -> Cell:
    return path[-1] if side == 1 else path[0]


def make(rows: int, cols: int, seed: int, budget: int, moves: int):
    """The board, its one solution and statistics, or None when no split is left."""
    rng = random.Random(seed)
    _, planted = generate_with_solution(rows, cols, seed, pairs=1)
    (whole,) = ([tuple(x) for x in p] for p in planted["paths"].values())
    paths = lengthen(cut_self_touches(whole), rng, moves * rows * cols)
    rng.shuffle(paths)  # labels not in path order
    stats = {"start_pairs": len(paths), "checks": 0, "nodes": 0, "undecided": 0}
    while True:
        board = board_of(rows, cols, paths)
        verdict, other, nodes = other_cover(board, edges_of(paths), budget)
        stats["checks"] += 1
        stats["nodes"] += nodes
        if verdict == "unique":
            break
        if verdict == "other":
            ok = split_where_differs(paths, other) or split_longest(paths)
        else:
            stats["undecided"] += 1
            ok = split_longest(paths)
        if not ok:
            return None
    solution = {"paths": {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}}
    assert verify(board, solution) is None
    return board, solution, stats


def expand(group: str) -> list[str]:
    """``RxC:A-B`` stands for seeds A to B."""
    size, seeds = group.split(":")[:2]
    if "-" not in seeds:
        return [group]
    first, last = (int(x) for x in seeds.split("-"))
    return [f"{size}:{s}" for s in range(first, last + 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--check-nodes", type=int, default=200_000, help="decisions allowed per check"
    )
    parser.add_argument(
        "--moves", type=int, default=20, help="lengthening steps per cell of the board"
    )
    parser.add_argument("--prefix", default="p", help="file names PREFIX_RxC_sS")
    parser.add_argument("specs", nargs="+", help="ROWSxCOLS:SEED or ROWSxCOLS:FIRST-LAST")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in (s for group in args.specs for s in expand(group)):
        rows, cols, seed, _ = board_spec(spec)
        began = time.monotonic()
        made = make(rows, cols, seed, args.check_nodes, args.moves)
        if made is None:
            print(f"{spec}: gave up", flush=True)
            continue
        board, solution, stats = made
        name = f"{args.prefix}_{rows}x{cols}_s{seed}"
        (out / f"{name}.txt").write_text(format_board(board))
        (out / f"{name}.sol.json").write_text(json.dumps(solution) + "\n")
        pairs = len(board.ends)
        print(
            f"{name}: {pairs} pairs ({rows * cols / pairs:.1f} cells/pair), "
            + ", ".join(f"{k} {v}" for k, v in stats.items())
            + f", {time.monotonic() - began:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
