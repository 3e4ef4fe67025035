"""alldiff-cpsat: one integer variable per cell, AddAllDifferent per unit, on CP-SAT."""

from __future__ import annotations

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.solvers import solve_cpsat


class AlldiffCpsat(Encoding):
    """The CP view: cells in 1..n, all different per row, column, box (and diagonal).

    Clues are fixed as bounds: a clue cell's domain is the single value (a constant).
    """

    name = "alldiff-cpsat"
    puzzles = ("sudoku", "sudoku_x")
    solver = "cp-sat"

    def build(self, instance, limits: Limits) -> ModelSize:
        n = instance.n
        model = cp_model.CpModel()
        self.cells = [
            [model.new_int_var(v or 1, v or n, f"c{r}_{c}") for c, v in enumerate(row)]
            for r, row in enumerate(instance.grid)
        ]
        for unit in instance.units:
            model.add_all_different([self.cells[r][c] for r, c in unit])
        self.model = model
        return ModelSize(n * n, len(instance.units))

    def solve(self, limits: Limits) -> Outcome:
        cells = self.cells
        return solve_cpsat(
            self.model,
            limits,
            lambda s: {"grid": [[int(s.value(v)) for v in row] for row in cells]},
        )
