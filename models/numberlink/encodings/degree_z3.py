"""Cell colours and line constraints on Z3 (the brief's "Z3 chapter" formulation),
with lazy elimination of detached cycles.

Variables: ``col[v]`` a bit-vector of just enough bits per cell, below K when K is
not a power of two (option ``colour=int``: an Int in ``0..K-1``, the brief's chapter
form), ``e[i]`` a Bool per grid edge.

* an end of pair k has ``col == k`` and exactly one incident edge (``PbEq``); any other
  cell exactly two (full cover);
* a used edge joins equal colours: ``e -> col[a] == col[b]``;
* edges between ends of different pairs are off; no 2x2 block uses all four edges
  (as in ``degree-sat``: valid for every full cover).

Detached cycles are removed as in ``degree-sat``: solve, and for every component of
the chosen edges without an end add "some edge leaves these cells" and "not this
cycle", then solve again in the same solver. ``z3.SimpleSolver`` keeps the
``rlimit count`` repeatable (DESIGN.md); ``rounds`` counts solves. With
``repair=join`` (the default) the cycles of a model are first joined to paths by 2x2
edge swaps, as in ``degree-sat``; cuts are added only when that fails.
"""

from __future__ import annotations

import time
from typing import ClassVar

import z3

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import (
    boundary_edges,
    grid_of,
    solution_or_cycles,
    useless_edges,
)
from models.numberlink.rules import Board
from models.solvers import z3_counters


class DegreeZ3(Encoding):
    name = "degree-z3"
    puzzles = ("numberlink",)
    solver = "z3"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "colour": ("bitvec", "int"),
        "repair": ("join", "none"),
    }

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        grid = self.grid = grid_of(instance)
        k = len(grid.pairs)
        if self.option("colour") == "int":
            col = [z3.Int(f"c{v}") for v in range(grid.n)]
            domain = [z3.And(c >= 0, c < k) for c in col]
            const = z3.IntVal
        else:
            bits = max(1, (k - 1).bit_length())
            col = [z3.BitVec(f"c{v}", bits) for v in range(grid.n)]
            domain = [z3.ULT(c, k) for c in col] if k < 2**bits else []

            def const(x: int) -> z3.BitVecRef:
                return z3.BitVecVal(x, bits)

        e = self.e = [z3.Bool(f"e{i}") for i in range(len(grid.edges))]
        facts = list(domain)
        facts += [z3.Not(e[i]) for i in useless_edges(grid)]
        for v in range(grid.n):
            deg = 1 if v in grid.end_of else 2
            facts.append(z3.PbEq([(e[i], 1) for i in grid.incident[v]], deg))
            if v in grid.end_of:
                facts.append(col[v] == const(grid.end_of[v]))
        for i, (a, b) in enumerate(grid.edges):
            facts.append(z3.Implies(e[i], col[a] == col[b]))
        for r in range(grid.rows - 1):
            for c in range(grid.cols - 1):
                v = r * grid.cols + c
                block = {v, v + 1, v + grid.cols, v + grid.cols + 1}
                inner = [i for i, (a, b) in enumerate(grid.edges) if a in block and b in block]
                facts.append(z3.Not(z3.And([e[i] for i in inner])))
        self.facts = facts
        return ModelSize(len(col) + len(e), len(facts))

    def solve(self, limits: Limits) -> Outcome:
        grid, e = self.grid, self.e
        z3.set_param("smt.random_seed", limits.seed)
        z3.set_param("sat.random_seed", limits.seed)
        solver = z3.SimpleSolver()
        solver.set("random_seed", limits.seed)
        solver.add(self.facts)
        deadline = None if limits.time_limit_s is None else time.monotonic() + limits.time_limit_s
        rounds = cuts = 0
        while True:
            rounds += 1
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Outcome(TIMEOUT, None, self._counters(solver, rounds, cuts), "limit")
                solver.set("timeout", max(1, int(left * 1000)))
            answer = solver.check()
            counters = self._counters(solver, rounds, cuts)
            if answer == z3.unsat:
                return Outcome(INFEASIBLE, None, counters)
            if answer != z3.sat:
                return Outcome(TIMEOUT, None, counters, solver.reason_unknown())
            model = solver.model()
            used = [i for i in range(len(e)) if z3.is_true(model.eval(e[i], True))]
            solution, cycles = solution_or_cycles(grid, used, self.option("repair") == "join")
            if solution is not None:
                return Outcome(SOLVED, solution, counters)
            for cells in cycles:
                inside = set(cells)
                solver.add(z3.Or([e[i] for i in sorted(set(boundary_edges(grid, cells)))]))
                cyc = [i for i in used if grid.edges[i][0] in inside and grid.edges[i][1] in inside]
                solver.add(z3.Or([z3.Not(e[i]) for i in cyc]))
                cuts += 2

    @staticmethod
    def _counters(solver: z3.Solver, rounds: int, cuts: int) -> dict[str, float]:
        return {**z3_counters(solver), "rounds": rounds, "cuts": cuts}
