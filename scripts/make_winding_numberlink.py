"""Write uniquely solvable Numberlink boards like people's: few, long, winding paths.

    nice python scripts/make_winding_numberlink.py --out DIR 8x8:1-30 50x50:1-4 ...

Method. Plant a full cover whose paths never touch themselves (no cell of a path next
to a cell of the same path other than its path neighbours), with about
``cells / target`` paths, ``target = 4.6 * cells ** 0.25`` cells per pair (13 at 8x8, 19
at 17x17, 24 at 36x20, 33 at 50x50: the ratios of published puzzles, see
``instances/numberlink/winding/README.md``), planted ``--sparser`` times sparser since
the uniqueness loop below adds pairs:

* a random Hamiltonian path (``models.numberlink.generate``) cut where it touches
  itself (``cut_self_touches``);
* then random local moves on the cover, each kept only if no path touches itself and
  every path keeps at least three cells: *join* two paths whose ends are neighbours,
  and *bite*: an end e of path P next to a middle cell x of path Q takes x and one
  side of Q (P + x + that side, the other side stays a path). Joins lower the count of
  paths; bites move the ends so that new joins appear.

Then "split until unique": a complete search looks for a full cover other than the
planted one (first ``pathsearch-numba``'s search for ``--quick-nodes`` decisions, then
``degree-sat``'s CNF with one more clause, "not every planted edge", for at most
``--check-s`` seconds: unsatisfiable means unique). Another cover found: a planted path
is split at an edge that cover does not use (the most even such cut), and the check
runs again. Each split removes at least that cover and adds none (a cover of the split
board plus the cut edge is a cover of the old one), so the loop ends. A check that
decides nothing within its budget splits the longest path in the middle (logged
``undecided``; the cover count cannot grow, and the proof gets easier), so every written
board is proved unique within ``--check-s`` seconds a check, the budget stated in the
README; boards the prover finds hard come out denser. Once unique, joins of two paths
whose ends are neighbours (and which do not touch themselves) are tried, at most
``--join-checks`` of them, each kept only when proved unique.

Incremental: each board is written (``PREFIX_RxC_sS.txt`` and ``.sol.json``) as soon as
it is proved, and boards already on disk are skipped, so a killed run resumes. Meant
to run in the background under ``nice``; one line of log per board.
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
from make_sparse_unique_numberlink import (
    cut_self_touches,
    edges_of,
    expand,
    other_cover,
    split_longest,
    split_where_differs,
)
from make_unique_numberlink import board_of

from models.base import INFEASIBLE, SOLVED, Limits
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.generate import hamiltonian_path
from models.numberlink.rules import Board, format_board
from models.numberlink.verify import verify

Cell = tuple[int, int]
MIN_LEN = 3


def target_cells_per_pair(rows: int, cols: int) -> float:
    return 4.6 * (rows * cols) ** 0.25


def _nbrs(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))


def _touches(path: list[Cell]) -> bool:
    at = {c: i for i, c in enumerate(path)}
    for i, c in enumerate(path):
        for q in _nbrs(c):
            j = at.get(q)
            if j is not None and j > i + 1:
                return True
    return False


def wind(paths: list[list[Cell]], rng: random.Random, goal: int, steps: int) -> list[list[Cell]]:
    """Joins and bites (module docstring) until at most ``goal`` paths or ``steps`` tries."""
    paths = [list(p) for p in paths if p]
    owner: dict[Cell, int] = {c: k for k, p in enumerate(paths) for c in p}
    for _ in range(steps):
        live = [k for k in range(len(paths)) if paths[k]]
        if len(live) <= goal:
            break
        k = live[rng.randrange(len(live))]
        p = paths[k] if rng.random() < 0.5 else paths[k][::-1]
        e = p[-1]
        opts = [q for q in _nbrs(e) if q in owner and owner[q] != k]
        if not opts:
            continue
        x = opts[rng.randrange(len(opts))]
        j = owner[x]
        q = paths[j]
        i = q.index(x)
        if i in (0, len(q) - 1):  # join
            new = p + (q if i == 0 else q[::-1])
            if _touches(new):
                continue
            paths[k], paths[j] = new, []
            for c in q:
                owner[c] = k
            continue
        if rng.random() < 0.5:
            take, rest = q[i::-1], q[i + 1 :]
        else:
            take, rest = q[i:], q[:i]
        if len(rest) < MIN_LEN:
            continue
        new = p + take
        if _touches(new):
            continue
        paths[k], paths[j] = new, rest
        for c in take:
            owner[c] = k
    return [p for p in paths if p]


def sat_other_cover(board: Board, planted: set[frozenset], limit_s: float):
    """("unique", None), ("other", paths) or ("undecided", None) by degree-sat's CNF plus
    the clause "some planted edge is unused" (repair off: the model itself is read)."""
    enc = DegreeSat({"repair": "none"})
    limits = Limits(time_limit_s=limit_s, threads=1, seed=0)
    enc.build(board, limits)
    index = {frozenset(ab): i for i, ab in enumerate(enc.grid.edges)}
    cols = board.cols
    enc.cnf.append(
        [-enc.e[index[frozenset(r * cols + c for r, c in ab)]] for ab in map(tuple, planted)]
    )
    out = enc.solve(limits)
    if out.status == INFEASIBLE:
        return "unique", None
    if out.status == SOLVED:
        return "other", [[tuple(x) for x in p] for p in out.solution["paths"].values()]
    return "undecided", None


def check(board: Board, paths: list[list[Cell]], args, stats: dict):
    """Is the planted cover the only one? ("unique" | "other" | "undecided", other)."""
    planted = edges_of(paths)
    verdict, other, _ = other_cover(board, planted, args.quick_nodes)
    stats["checks"] += 1
    if verdict == "undecided":
        stats["sat"] += 1
        verdict, other = sat_other_cover(board, planted, args.check_s)
    return verdict, other


def joins(paths: list[list[Cell]]) -> list[tuple[int, int, list[Cell]]]:
    """Every join of two paths whose ends are neighbours that does not touch itself."""
    at = {}
    for k, p in enumerate(paths):
        at[p[0]], at[p[-1]] = (k, 0), (k, 1)
    out = []
    for c, (k, s) in at.items():
        for q in _nbrs(c):
            if q in at and at[q][0] > k:
                j, t = at[q]
                a = paths[k] if s == 1 else paths[k][::-1]
                b = paths[j] if t == 0 else paths[j][::-1]
                if not _touches(a + b):
                    out.append((k, j, a + b))
    return out


def make(rows: int, cols: int, seed: int, args) -> tuple[Board, dict, dict] | str:
    rng = random.Random(seed)
    cells = rows * cols
    target = target_cells_per_pair(rows, cols)
    goal = max(2, round(cells / (target * args.sparser)))
    paths = cut_self_touches(hamiltonian_path(rows, cols, rng))
    paths = wind(paths, rng, goal, args.steps * cells)
    rng.shuffle(paths)  # labels not in path order
    stats = {"planted": len(paths), "checks": 0, "sat": 0, "splits": 0, "undecided": 0, "joins": 0}
    while True:
        board = board_of(rows, cols, paths)
        verdict, other = check(board, paths, args, stats)
        if verdict == "unique":
            break
        stats["splits"] += 1
        if verdict == "undecided":  # the split cannot add covers; the proof gets easier
            stats["undecided"] += 1
            if not split_longest(paths):
                return "no split left"
        elif not split_where_differs(paths, other) and not split_longest(paths):
            return "no split left"
    # fewer pairs while unique: try joins of neighbouring ends, keep those still unique
    tries = args.join_checks
    while tries > 0 and cells / len(paths) < target:
        options = joins(paths)
        rng.shuffle(options)
        for k, j, joined in options:
            if tries <= 0:
                break
            tries -= 1
            trial = [p for i, p in enumerate(paths) if i not in (k, j)] + [joined]
            if check(board_of(rows, cols, trial), trial, args, stats)[0] == "unique":
                paths = trial
                stats["joins"] += 1
                break
        else:
            break
    board = board_of(rows, cols, paths)
    solution = {"paths": {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}}
    assert verify(board, solution) is None
    return board, solution, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--prefix", default="w", help="file names PREFIX_RxC_sS")
    parser.add_argument("--sparser", type=float, default=1.3, help="plant this much sparser")
    parser.add_argument("--steps", type=int, default=60, help="winding moves tried per cell")
    parser.add_argument("--quick-nodes", type=int, default=20_000, help="path search first")
    parser.add_argument("--check-s", type=float, default=20.0, help="SAT budget per check")
    parser.add_argument("--tries", type=int, default=1, help="plants per board, sparsest kept")
    parser.add_argument("--join-checks", type=int, default=40, help="joins tried once unique")
    parser.add_argument("specs", nargs="+", help="ROWSxCOLS:SEED or ROWSxCOLS:FIRST-LAST")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in (s for group in args.specs for s in expand(group)):
        rows, cols, seed, _ = board_spec(spec)
        name = f"{args.prefix}_{rows}x{cols}_s{seed}"
        if (out / f"{name}.sol.json").exists():
            continue
        began = time.monotonic()
        made: tuple | str = "no try"
        for t in range(args.tries):  # keep the sparsest of the tries
            one = make(rows, cols, seed + 100_000 * t, args)
            if isinstance(made, str) or (
                not isinstance(one, str) and len(one[0].ends) < len(made[0].ends)
            ):
                made = one
        took = time.monotonic() - began
        if isinstance(made, str):
            print(f"{name}: dropped ({made}), {took:.1f} s", flush=True)
            continue
        board, solution, stats = made
        (out / f"{name}.txt").write_text(format_board(board))
        (out / f"{name}.sol.json").write_text(json.dumps(solution) + "\n")
        pairs = len(board.ends)
        print(
            f"{name}: {pairs} pairs ({rows * cols / pairs:.1f} cells/pair), "
            + ", ".join(f"{k} {v}" for k, v in stats.items())
            + f", {took:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
