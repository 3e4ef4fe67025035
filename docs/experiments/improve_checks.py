"""The generator's improve-phase check under several settings, side by side, on joins.

    python docs/experiments/improve_checks.py [--joins K] [--configs count:100000,sat:300000] \
        instances/numberlink/winding/w_25x25_s1.txt ...

What makes a winding board sparser is the improve phase of
``scripts/make_winding_numberlink.py``: joins, each kept only when its check proves the
board unique within ``--improve-conflicts`` (per 400 cells). A check that decides nothing
rejects the join, so its whole time is lost. For each board (shipped, its one cover
beside it), K of its joins (seeded shuffle) are checked by the generator's own ``check``
under each ``PROVER:CONFLICTS`` setting in turn (the same join, one after the other, so
the load is shared alike). One line per join, then per setting: seconds in all and how
many joins came out unique, other and undecided. Unique joins per second is what the
improve phase buys.

Setting ``join:CONFLICTS`` is a proof that uses what the generator knows when it tries
a join: the board before it was proved unique. Paths P (ends p, a) and Q (ends b, q),
a and b neighbours, become one, and a cover of the joined board whose path p-q runs
p ... a, b ... q is the old cover plus the edge a-b (remove it: two paths with the old
ends), so the planted one. If the board with pairs (p, b) and (a, q) has no cover
(asked first, SAT), no cover runs the other way either, and the clauses "edge a-b used
with a coloured p-q -> planted edge e used", for every planted e, hold in every cover:
they are added to the backbone proof (``prove_unique``), same budgets.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

import winding_prove  # noqa: E402
from make_unique_numberlink import board_of  # noqa: E402
from make_winding_numberlink import check, joins  # noqa: E402
from pysat.solvers import Solver  # noqa: E402

from models.numberlink.encodings._common import grid_of  # noqa: E402
from models.numberlink.rules import parse  # noqa: E402


def join_proof(rows: int, cols: int, old: list, trial: list, conflicts: int) -> str:
    """The proof of a join from the old board's uniqueness (module docstring)."""
    joined = trial[-1]  # joins() appends the joined path
    olds = {tuple(p) for p in old} | {tuple(p[::-1]) for p in old}
    cut = next(i for i in range(1, len(joined)) if tuple(joined[:i]) in olds)
    a, b = joined[cut - 1], joined[cut]
    crossed = board_of(rows, cols, [*trial[:-1], [joined[0], b], [a, joined[-1]]])
    grid = grid_of(crossed)
    e, cnf, _ = winding_prove.degree_cnf(grid)
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        verdict = winding_prove.ask(sat, grid, e, set(), [], 10 * conflicts)[0]
    if verdict != "unsat":
        return "other" if verdict == "other" else "undecided"
    board = board_of(rows, cols, trial)
    plain = winding_prove.degree_cnf

    def with_implications(grid):
        e, cnf, pool = plain(grid)
        u, v = sorted((a[0] * cols + a[1], b[0] * cols + b[1]))
        index = {ab: i for i, ab in enumerate(grid.edges)}
        k = grid.end_of[joined[0][0] * cols + joined[0][1]]
        bits = max(1, (len(grid.pairs) - 1).bit_length())
        y = [pool.id(("y", a[0] * cols + a[1], j)) for j in range(bits)]
        guard = [-e[index[(u, v)]]] + [-y[j] if k >> j & 1 else y[j] for j in range(bits)]
        planted = winding_prove.planted_edges(board, trial, index)
        return e, cnf + [[*guard, e[i]] for i in planted], pool

    winding_prove.degree_cnf = with_implications
    try:
        scale = max(1.0, rows * cols / 400)
        near = int(winding_prove.NEAR_CONFLICTS * scale)
        return winding_prove.prove_unique(
            board, trial, total_conflicts=int(conflicts * scale), near_conflicts=near
        )[0]
    finally:
        winding_prove.degree_cnf = plain


def settings(prover: str, conflicts: int) -> argparse.Namespace:
    """The generator's arguments as the README's recipe gives them, but the prover's."""
    return argparse.Namespace(
        plant="walk",
        quick_nodes=0,
        check_conflicts=200_000,
        improve_conflicts=conflicts,
        prover=prover,
        backend="cadical195",
        lexmin=(),
        state_cap=300_000,
        sat_first=20_000,
        verbose=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joins", type=int, default=6, help="joins per board")
    parser.add_argument("--configs", default="count:100000,sat:100000,sat:300000")
    parser.add_argument("boards", nargs="+")
    args = parser.parse_args()
    configs = [(p, int(c)) for p, c in (s.split(":") for s in args.configs.split(","))]
    seconds: Counter = Counter()
    verdicts: dict[tuple, Counter] = {c: Counter() for c in configs}
    for name in args.boards:
        path = Path(name)
        board = parse(path.read_text(), name)
        cover = json.loads(path.with_suffix(".sol.json").read_text())
        old = [[tuple(c) for c in p] for p in cover["paths"].values()]
        trials = joins(old)
        random.Random(5).shuffle(trials)
        for k, trial in enumerate(trials[: args.joins]):
            line = []
            for config in configs:
                stats = {"cache": {}, "checks": 0, "sat": 0, "counted": 0}
                began = time.monotonic()
                if config[0] == "join":
                    verdict = join_proof(board.rows, board.cols, old, trial, config[1])
                else:
                    verdict, _ = check(
                        board.rows, board.cols, trial, settings(*config), stats, improving=True
                    )
                took = time.monotonic() - began
                seconds[config] += took
                verdicts[config][verdict] += 1
                line.append(f"{config[0]}:{config[1]} {verdict} {took:.1f} s")
            print(f"{path.stem} join {k} ({len(trial)} pairs): " + " | ".join(line), flush=True)
    for config in configs:
        counts = ", ".join(f"{v} {n}" for v, n in sorted(verdicts[config].items()))
        print(f"{config[0]}:{config[1]}: {seconds[config]:.1f} s in all; {counts}")


if __name__ == "__main__":
    main()
