"""queens-sat: a Boolean per square, pairwise at-most-one per line, on a PySAT back end."""

from __future__ import annotations

import itertools
import time

from pysat.solvers import Solver

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.solvers import solve_sat_within


class QueensSat(Encoding):
    name = "queens-sat"
    puzzles = ("nqueens",)
    solver = "pysat"

    def build(self, board, limits: Limits) -> ModelSize:
        n = board.n
        self.n, var = n, {(r, c): r * n + c + 1 for r in range(n) for c in range(n)}
        lines: dict[tuple[str, int], list[int]] = {}
        for (r, c), v in var.items():
            for key in (("row", r), ("col", c), ("diag", r - c), ("anti", r + c)):
                lines.setdefault(key, []).append(v)
        clauses = [[var[r, c] for c in range(n)] for r in range(n)]
        for line in lines.values():
            clauses += [[-a, -b] for a, b in itertools.combinations(line, 2)]
        clauses += [[var[q]] for q in board.given]
        self.clauses = clauses
        return ModelSize(len(var), len(clauses))

    def solve(self, limits: Limits) -> Outcome:
        deadline = None if limits.time_limit_s is None else time.monotonic() + limits.time_limit_s
        with Solver(name="cadical153", bootstrap_with=self.clauses) as sat:
            answer, rounds = solve_sat_within(sat, deadline)
            counters = {**sat.accum_stats(), "rounds": rounds}
            model = sat.get_model() if answer else None
        if answer is None:
            return Outcome(TIMEOUT, None, counters, "time limit")
        if not answer:
            return Outcome(INFEASIBLE, None, counters)
        queens = [[(v - 1) // self.n, (v - 1) % self.n] for v in model if v > 0]
        return Outcome(SOLVED, {"queens": queens}, counters)
