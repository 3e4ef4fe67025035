"""queens-cpsat: the column of each row's queen, three AllDifferent constraints, on CP-SAT."""

from __future__ import annotations

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.solvers import solve_cpsat


class QueensCpsat(Encoding):
    name = "queens-cpsat"
    puzzles = ("nqueens",)
    solver = "cp-sat"

    def build(self, board, limits: Limits) -> ModelSize:
        n, model = board.n, cp_model.CpModel()
        self.col = [model.new_int_var(0, n - 1, f"q{r}") for r in range(n)]
        model.add_all_different(self.col)
        model.add_all_different([q + r for r, q in enumerate(self.col)])
        model.add_all_different([q - r for r, q in enumerate(self.col)])
        for r, c in board.given:
            model.add(self.col[r] == c)
        self.model = model
        return ModelSize(n, 3 + len(board.given))

    def solve(self, limits: Limits) -> Outcome:
        return solve_cpsat(
            self.model,
            limits,
            lambda s: {"queens": [[r, s.value(q)] for r, q in enumerate(self.col)]},
        )
