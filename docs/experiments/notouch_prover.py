"""Uniqueness through no-touch path systems: a prover tried for the winding generator.

    python docs/experiments/notouch_prover.py [--prover notouch|notouch-edges|backbone] [--conflicts N] BOARD.txt ...

Each board needs its planted cover S beside it (``BOARD.sol.json``), a full cover in
which no path touches itself.

The claim. If no other *no-touch path system* connects the pairs (paths that need not
fill the board, none touching itself), S is the board's only full cover. Proof: let
S' be another full cover. While a path of S' touches itself (cells a, b of it are
neighbours but not consecutive), replace its stretch from a to b by the edge a-b;
each step empties cells, so this ends in a no-touch system T, which by assumption is
S. If a step was taken, T leaves cells empty while S fills the board; if none was,
T = S' != S. Either way a contradiction.

The CNF: one-hot colour per cell (``x[v][k]``) and a used flag, degree 1 at an end and
0 or 2 elsewhere, a chosen edge joins equal colours, **two neighbours of one colour
are joined** (no touch), no 2x2 block of four edges, and "some planted edge unused".
Detached cycles in a model are cut (not all of its edges) and the question asked
again. Unsatisfiable: S is unique. A model: another system, which may leave cells
empty, so it is no other full cover (the generator would have to fall back).
``--prover notouch-edges`` asks each planted edge "unused?" in turn, as
``scripts/winding_prove.py`` does, keeping the proved ones as units; ``--prover
backbone`` runs that script's full-cover proof (``prove_unique``) for comparison.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from pysat.card import CardEnc, EncType  # noqa: E402
from pysat.formula import IDPool  # noqa: E402
from pysat.solvers import Solver  # noqa: E402
from winding_prove import planted_edges, prove_unique  # noqa: E402

from models.numberlink.encodings._common import (  # noqa: E402
    cycles_without_ends,
    grid_of,
    useless_edges,
)
from models.numberlink.encodings.degree_sat import no_four_cycles  # noqa: E402
from models.numberlink.rules import parse  # noqa: E402
from models.solvers import solve_sat_conflicts  # noqa: E402


def notouch_cnf(board, paths):
    """(grid, edge literals, used literals, clauses, planted edge indices)."""
    g = grid_of(board)
    pool = IDPool()
    npairs = len(g.pairs)
    e = [pool.id(("e", i)) for i in range(len(g.edges))]
    x = [[pool.id(("x", v, k)) for k in range(npairs)] for v in range(g.n)]
    used = [pool.id(("u", v)) for v in range(g.n)]
    cnf = [[-e[i]] for i in useless_edges(g)]
    for v in range(g.n):
        inc = [e[i] for i in g.incident[v]]
        if v in g.end_of:
            cnf += [[x[v][k]] if k == g.end_of[v] else [-x[v][k]] for k in range(npairs)]
            cnf += [
                [used[v]],
                *CardEnc.equals(inc, 1, vpool=pool, encoding=EncType.pairwise).clauses,
            ]
            continue
        cnf += [[-used[v], *x[v]]] + [[-x[v][k], used[v]] for k in range(npairs)]
        cnf += CardEnc.atmost(x[v], 1, vpool=pool, encoding=EncType.seqcounter).clauses
        cnf += [[-a, -b, -c] for a, b, c in itertools.combinations(inc, 3)]  # degree <= 2
        for a in inc:  # degree 0 or 2, and 2 exactly when used
            cnf += [[-a, used[v]], [-a, *(b for b in inc if b != a)]]
        cnf.append([-used[v], *inc])
    for i, (a, b) in enumerate(g.edges):
        for k in range(npairs):
            cnf += [[-e[i], -x[a][k], x[b][k]], [-e[i], x[a][k], -x[b][k]]]
            cnf.append([-x[a][k], -x[b][k], e[i]])  # no touch
    at = {ab: i for i, ab in enumerate(g.edges)}
    cnf += no_four_cycles(g, e)
    return g, e, used, cnf, planted_edges(board, paths, at)


def ask(sat, g, e, used, assume, budget) -> str:
    """ "unsat" | "undecided" | "full" | "partial" (another system: a full cover or not)."""
    while True:
        answer = solve_sat_conflicts(sat, budget, assume)
        if answer is not True:
            return "unsat" if answer is False else "undecided"
        model = sat.get_model()
        chosen = [j for j in range(len(e)) if model[e[j] - 1] > 0]
        cycles = cycles_without_ends(g, chosen)
        if not cycles:
            return "full" if all(model[u - 1] > 0 for u in used) else "partial"
        for cells in cycles:
            inside = set(cells)
            sat.add_clause([-e[j] for j in chosen if set(g.edges[j]) <= inside])


def prove(board, paths, conflicts: int, per_edge: bool) -> str:
    g, e, used, cnf, order = notouch_cnf(board, paths)
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        if not per_edge:
            sat.add_clause([-e[i] for i in order])
            verdict = ask(sat, g, e, used, [], conflicts)
            return "unique" if verdict == "unsat" else verdict
        budget, proved = 200, 0
        while order:
            left = []
            for i in order:
                verdict = ask(sat, g, e, used, [-e[i]], budget)
                if verdict in ("full", "partial"):
                    return verdict
                if sat.accum_stats().get("conflicts", 0) > conflicts:
                    return f"undecided ({proved} edges proved)"
                if verdict == "unsat":
                    sat.add_clause([e[i]])
                    proved += 1
                else:
                    left.append(i)
            budget *= 4 if len(left) == len(order) else 1
            order = left
    return "unique"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--prover", choices=("notouch", "notouch-edges", "backbone"), default="notouch"
    )
    parser.add_argument("--conflicts", type=int, default=2_000_000, help="SAT budget in all")
    parser.add_argument("boards", nargs="+")
    args = parser.parse_args()
    for name in args.boards:
        path = Path(name)
        board = parse(path.read_text(), name)
        cover = json.loads(path.with_suffix(".sol.json").read_text())
        paths = [[tuple(c) for c in p] for p in cover["paths"].values()]
        began = time.monotonic()
        if args.prover == "backbone":
            verdict = prove_unique(board, paths, total_conflicts=args.conflicts)[0]
        else:
            verdict = prove(board, paths, args.conflicts, args.prover == "notouch-edges")
        cells_per_pair = board.rows * board.cols / len(paths)
        print(
            f"{path.name}: {len(paths)} pairs ({cells_per_pair:.1f} cells/pair): {verdict}, "
            f"{time.monotonic() - began:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
