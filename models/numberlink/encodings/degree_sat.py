"""Degree CNF through PySAT with lazy elimination of detached cycles.

Variables: ``x[v][k]`` cell v has colour k (one-hot), ``e[i]`` grid edge i is on a path.

* an end of pair k has colour k and exactly one incident edge; any other cell has
  exactly two incident edges (full cover). The degree constraints go through a named
  cardinality encoding (option ``card``: ``binomial`` writes the clauses of
  "exactly d of <= 4" directly; the others are ``pysat.card`` encodings);
* a used edge joins equal colours: ``e -> (x[a][k] <-> x[b][k])`` for every k;
* a cell has at least one colour; at most one follows from the rest once cycles are
  gone (the colours of a path are those of its end) but is stated too, through
  ``pysat.card`` (option ``amo``), because it helps propagation;
* no 2x2 block uses all four of its edges (a four-cycle without ends: valid).

Those clauses allow paths plus detached cycles. The loop solves, finds every
component of the chosen edges that holds no end (a cycle) and adds, for each, the
*cut* clause "some edge leaves this set of cells" (valid: every cell lies on a path
whose ends are outside the set) and the clause forbidding that exact cycle; then it
solves again in the same solver, keeping what it learnt. ``rounds`` counts solves.

CaDiCaL cannot be interrupted, so every back end runs ``solve_limited`` under a
conflict budget in growing chunks and checks the clock between chunks.
"""

from __future__ import annotations

import itertools
import time
from typing import ClassVar

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import (
    Grid,
    boundary_edges,
    cycles_without_ends,
    grid_of,
    paths_from_edges,
    useless_edges,
)
from models.numberlink.rules import Board

CARD = {
    "seqcounter": EncType.seqcounter,
    "totalizer": EncType.totalizer,
    "sortnetwrk": EncType.sortnetwrk,
    "cardnetwrk": EncType.cardnetwrk,
}


def exactly(lits: list[int], d: int, pool: IDPool, how: str) -> list[list[int]]:
    """Clauses for "exactly d of lits"."""
    if how == "binomial":
        n = len(lits)
        if d > n:
            return [[]]
        most = [[-x for x in sub] for sub in itertools.combinations(lits, d + 1)]
        least = [list(sub) for sub in itertools.combinations(lits, n - d + 1)] if d else []
        return most + least + ([[-x] for x in lits] if d == 0 else [])
    return CardEnc.equals(lits, bound=d, vpool=pool, encoding=CARD[how]).clauses


class DegreeSat(Encoding):
    name = "degree-sat"
    puzzles = ("numberlink",)
    solver = "pysat"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "backend": ("cadical195", "cadical153", "glucose4", "glucose42", "minisat22"),
        "card": ("binomial", "seqcounter", "totalizer", "sortnetwrk", "cardnetwrk"),
        "amo": ("ladder", "seqcounter", "pairwise", "none"),
        "cut": ("both", "boundary", "cycle"),
    }

    @classmethod
    def solver_version(cls) -> str:
        import pysat

        return f"python-sat {pysat.__version__}"

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        grid = self.grid = grid_of(instance)
        pool = self.pool = IDPool()
        npairs = len(grid.pairs)
        x = [[pool.id(("x", v, k)) for k in range(npairs)] for v in range(grid.n)]
        e = self.e = [pool.id(("e", i)) for i in range(len(grid.edges))]
        cnf: list[list[int]] = []
        for i in useless_edges(grid):
            cnf.append([-e[i]])
        amo = self.option("amo")
        for v in range(grid.n):
            deg = 1 if v in grid.end_of else 2
            cnf += exactly([e[i] for i in grid.incident[v]], deg, pool, self.option("card"))
            if v in grid.end_of:
                k0 = grid.end_of[v]
                cnf += [[x[v][k]] if k == k0 else [-x[v][k]] for k in range(npairs)]
                continue
            cnf.append(list(x[v]))
            if amo == "pairwise":
                cnf += [[-p, -q] for p, q in itertools.combinations(x[v], 2)]
            elif amo != "none" and npairs > 1:
                enc = EncType.ladder if amo == "ladder" else EncType.seqcounter
                cnf += CardEnc.atmost(x[v], 1, vpool=pool, encoding=enc).clauses
        for i, (a, b) in enumerate(grid.edges):
            for k in range(npairs):
                cnf.append([-e[i], -x[a][k], x[b][k]])
                cnf.append([-e[i], x[a][k], -x[b][k]])
        for r in range(grid.rows - 1):
            for c in range(grid.cols - 1):
                v = r * grid.cols + c
                block = {v, v + 1, v + grid.cols, v + grid.cols + 1}
                inner = [i for i, (a, b) in enumerate(grid.edges) if a in block and b in block]
                cnf.append([-e[i] for i in inner])
        self.cnf = cnf
        return ModelSize(pool.top, len(cnf))

    def solve(self, limits: Limits) -> Outcome:
        grid, e = self.grid, self.e
        deadline = None if limits.time_limit_s is None else time.monotonic() + limits.time_limit_s
        rounds, cuts = 0, 0
        with Solver(name=self.option("backend"), bootstrap_with=self.cnf) as sat:
            while True:
                rounds += 1
                answer = self._solve_chunked(sat, deadline)
                counters = {**sat.accum_stats(), "rounds": rounds, "cuts": cuts}
                if answer is None:
                    return Outcome(TIMEOUT, None, counters, "time limit")
                if answer is False:
                    return Outcome(INFEASIBLE, None, counters)
                model = sat.get_model()
                used = [i for i in range(len(e)) if model[e[i] - 1] > 0]
                cycles = cycles_without_ends(grid, used)
                if not cycles:
                    return Outcome(SOLVED, {"paths": paths_from_edges(grid, used)}, counters)
                for cells in cycles:
                    for clause in self._cuts(grid, cells, used):
                        sat.add_clause(clause)
                        cuts += 1

    def _cuts(self, grid: Grid, cells: list[int], used: list[int]) -> list[list[int]]:
        e, how, inside = self.e, self.option("cut"), set(cells)
        out = []
        if how in ("both", "boundary"):
            out.append([e[i] for i in sorted(set(boundary_edges(grid, cells)))])
        if how in ("both", "cycle"):
            cyc = [i for i in used if grid.edges[i][0] in inside and grid.edges[i][1] in inside]
            out.append([-e[i] for i in cyc])
        return out

    @staticmethod
    def _solve_chunked(sat: Solver, deadline: float | None) -> bool | None:
        """solve_limited in conflict-budget chunks so the clock is honoured (CaDiCaL)."""
        if deadline is None:
            return sat.solve()
        budget = 10_000
        while True:
            start = time.monotonic()
            if start >= deadline:
                return None
            sat.conf_budget(budget)
            answer = sat.solve_limited()
            if answer is not None:
                return answer
            took = time.monotonic() - start  # keep a chunk near half a second
            budget = budget * 2 if took < 0.25 else max(1_000, budget // 2) if took > 1 else budget
