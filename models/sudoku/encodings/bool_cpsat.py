"""bool-cpsat: the brief's 0-1 model (as in ilp-*) stated in CP-SAT: the solver varies, not
the formulation."""

from __future__ import annotations

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.solvers import solve_cpsat


class BoolCpsat(Encoding):
    """x[r][c][d] Booleans with exactly-one per cell and per unit and digit.

    Clues are stated as unit constraints (clue literal == 1), which presolve turns into
    fixed bounds, as the 0-1 program fixes them by bounds.
    """

    name = "bool-cpsat"
    puzzles = ("sudoku", "sudoku_x")
    solver = "cp-sat"

    def build(self, instance, limits: Limits) -> ModelSize:
        n = instance.n
        model = cp_model.CpModel()
        x = [
            [[model.new_bool_var(f"x{r}_{c}_{d}") for d in range(n)] for c in range(n)]
            for r in range(n)
        ]
        for r in range(n):
            for c in range(n):
                model.add_exactly_one(x[r][c])
                if instance.grid[r][c]:
                    model.add(x[r][c][instance.grid[r][c] - 1] == 1)
        for unit in instance.units:
            for d in range(n):
                model.add_exactly_one(x[r][c][d] for r, c in unit)
        self.model, self.x, self.n = model, x, n
        clues = instance.clue_count
        return ModelSize(n * n * n, n * n + len(instance.units) * n + clues)

    def solve(self, limits: Limits) -> Outcome:
        x, n = self.x, self.n

        def decode(solver: cp_model.CpSolver) -> dict:
            grid = [
                [
                    next((d + 1 for d in range(n) if solver.boolean_value(cell[d])), 0)
                    for cell in row
                ]
                for row in x
            ]
            return {"grid": grid}

        return solve_cpsat(self.model, limits, decode)
