"""distinct-z3: one Int per cell with Distinct per unit, in Z3 (known to be slow)."""

from __future__ import annotations

import z3

from models.base import Encoding, Limits, ModelSize, Outcome
from models.sudoku.encodings import _z3


class DistinctZ3(Encoding):
    """The textbook SMT model: 1 <= cell <= n, Distinct per row, column, box (diagonal).

    Clues are fixed as unit equalities (cell == clue), left to Z3's own simplification.
    """

    name = "distinct-z3"
    puzzles = ("sudoku", "sudoku_x")
    solver = "z3"

    def build(self, instance, limits: Limits) -> ModelSize:
        n = instance.n
        cells = [[z3.Int(f"c{r}_{c}") for c in range(n)] for r in range(n)]
        solver = _z3.new_solver(limits)
        for r in range(n):
            for c in range(n):
                clue = instance.grid[r][c]
                if clue:
                    solver.add(cells[r][c] == clue)
                else:
                    solver.add(cells[r][c] >= 1, cells[r][c] <= n)
        for unit in instance.units:
            solver.add(z3.Distinct([cells[r][c] for r, c in unit]))
        self.solver, self.cells = solver, cells
        return ModelSize(n * n, len(solver.assertions()))

    def solve(self, limits: Limits) -> Outcome:
        cells = self.cells

        def decode(model: z3.ModelRef) -> dict:
            grid = [[model.eval(v, model_completion=True).as_long() for v in row] for row in cells]
            return {"grid": grid}

        return _z3.run(self.solver, limits, decode)
