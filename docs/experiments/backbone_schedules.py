"""Where the whole-board uniqueness proof spends its time: schedules and CNFs tried.

    python docs/experiments/backbone_schedules.py BOARD.sol.json [--schedule edge|split|one]
        [--budget 200] [--group 16] [--colours binary|none|ladder] [--parity]

``scripts/winding_prove.py``'s ``prove_unique`` asks, after a question near the planted
cover and one "is some planted edge unused?" under a small budget, every planted edge in
turn ("unused?", ``budget`` conflicts), keeps each one proved as a unit and goes over the
undecided ones again, raising the budget fourfold after a pass that proved nothing. This
script runs that loop alone (no near or first question, so the loop's share shows) and
prints each pass: how many were asked, how many proved, the time so far; then the SAT calls
and conflicts in all. Variants:

* ``--schedule split``: groups of ``--group`` consecutive planted edges ("is one of these
  unused?", one assumption), a group proved gives them all, an undecided one is halved
  for the next pass; ``--schedule one``: the single question over every edge, no budget.
* ``--colours none|ladder``: ``degree-sat``'s one-hot colours (at-most-one: none, or a
  ladder) instead of its binary ones.
* ``--parity``: for every corner rectangle of cells [0..i]x[0..j] the edges leaving it
  number as many as the ends inside, mod 2 (a sum of degrees), as XOR chains: a fact
  that resolution alone derives only at great length.

Every variant proves the same statement; none is kept (``numberlink-frontier.md``,
thirteenth session).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_unique_numberlink import board_of  # noqa: E402
from pysat.formula import IDPool  # noqa: E402
from pysat.solvers import Solver  # noqa: E402
from winding_prove import WINDOWS, ask, degree_cnf, planted_edges  # noqa: E402

from models.numberlink.encodings import degree_sat  # noqa: E402
from models.numberlink.encodings._common import grid_of, useless_edges  # noqa: E402


def onehot_cnf(grid, amo: str):
    pool = IDPool()
    e = [pool.id(("e", i)) for i in range(len(grid.edges))]
    cnf = [[-e[i]] for i in useless_edges(grid)]
    for v in range(grid.n):
        deg = 1 if v in grid.end_of else 2
        cnf += degree_sat.exactly([e[i] for i in grid.incident[v]], deg, pool, "binomial")
    x = [[pool.id(("x", v, k)) for k in range(len(grid.pairs))] for v in range(grid.n)]
    cnf += degree_sat.onehot_colours(grid, e, x, pool, amo)
    cnf += degree_sat.no_four_cycles(grid, e)
    cnf += degree_sat.window_cuts(grid, e, WINDOWS)
    return e, cnf, pool


def parity_cnf(grid, e, pool) -> list[list[int]]:
    """XOR chains: V[i, j] the parity of the edges between rows i and i+1 in columns
    0..j, H[i, j] of those between columns j and j+1 in rows 0..i; V xor H is the
    parity of the ends in [0..i]x[0..j]."""
    rows, cols = grid.rows, grid.cols
    index = {ab: k for k, ab in enumerate(grid.edges)}
    cnf: list[list[int]] = []

    def chain(name, lits):
        out, prev = [], None
        for k, lit in enumerate(lits):
            if prev is not None:
                acc = pool.id((name, k))
                cnf.extend(
                    [[-acc, prev, lit], [-acc, -prev, -lit], [acc, -prev, lit], [acc, prev, -lit]]
                )
                lit = acc
            out.append(lit)
            prev = lit
        return out

    V = {
        i: chain(("V", i), [e[index[(i * cols + j, (i + 1) * cols + j)]] for j in range(cols)])
        for i in range(rows - 1)
    }
    H = {
        j: chain(("H", j), [e[index[(i * cols + j, i * cols + j + 1)]] for i in range(rows)])
        for j in range(cols - 1)
    }
    for i in range(rows):
        for j in range(cols):
            ends = sum(1 for v in grid.end_of if v // cols <= i and v % cols <= j)
            parts = ([V[i][j]] if i < rows - 1 else []) + ([H[j][i]] if j < cols - 1 else [])
            if len(parts) == 1:
                cnf.append([parts[0] if ends % 2 else -parts[0]])
            elif len(parts) == 2:
                a, b = parts
                cnf.extend([[a, b], [-a, -b]] if ends % 2 else [[-a, b], [a, -b]])
    return cnf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cover", type=Path)
    parser.add_argument("--schedule", choices=("edge", "split", "one"), default="edge")
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--group", type=int, default=16)
    parser.add_argument("--colours", choices=("binary", "none", "ladder"), default="binary")
    parser.add_argument("--parity", action="store_true")
    args = parser.parse_args()
    rows, cols = map(int, re.search(r"(\d+)x(\d+)", args.cover.name).groups())
    paths = [[tuple(c) for c in p] for p in json.loads(args.cover.read_text())["paths"].values()]
    board = board_of(rows, cols, paths)
    grid = grid_of(board)
    e, cnf, pool = degree_cnf(grid) if args.colours == "binary" else onehot_cnf(grid, args.colours)
    if args.parity:
        cnf += parity_cnf(grid, e, pool)
    order = planted_edges(board, paths, {ab: i for i, ab in enumerate(grid.edges)})
    planted = set(order)
    began, calls, budget = time.monotonic(), 0, args.budget
    size = {"edge": 1, "split": args.group, "one": len(order)}[args.schedule]
    if args.schedule == "one":
        budget = 10**12
    groups = [order[k : k + size] for k in range(0, len(order), size)]
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        passes = 0
        while groups:
            passes += 1
            left, proved = [], 0
            for group in groups:
                switch = pool.id(("group", passes, tuple(group)))
                sat.add_clause([-switch] + [-e[i] for i in group])
                verdict, _, n = ask(sat, grid, e, planted, [switch], budget)
                sat.add_clause([-switch])
                calls += n
                if verdict == "other":
                    print("another cover: not unique")
                    return
                if verdict == "unsat":
                    for i in group:
                        sat.add_clause([e[i]])
                    proved += len(group)
                elif len(group) > 1:
                    left += [group[: len(group) // 2], group[len(group) // 2 :]]
                else:
                    left.append(group)
            asked = sum(map(len, groups))
            print(
                f"pass {passes}, budget {budget}: {asked} asked, {proved} proved, "
                f"{time.monotonic() - began:.1f} s",
                flush=True,
            )
            if left and not proved and all(len(g) == 1 for g in left):
                budget *= 4
            groups = left
        conflicts = sat.accum_stats().get("conflicts")
    print(
        f"{args.cover.name}: unique; {calls} calls, {conflicts} conflicts, "
        f"{time.monotonic() - began:.1f} s"
    )


if __name__ == "__main__":
    main()
