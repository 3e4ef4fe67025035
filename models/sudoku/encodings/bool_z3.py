"""bool-z3: the one-hot 0-1 view in Z3, with pseudo-Boolean PbEq / AtMost constraints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import z3

from models.base import Encoding, Limits, ModelSize, Outcome
from models.sudoku.encodings import _z3


class BoolZ3(Encoding):
    """x[r][c][d] Booleans; PbEq(.., 1) per cell; per unit and digit either PbEq (exactly
    one, the default) or AtMost(.., 1) (enough with exactly one digit per cell: option
    ``units``). Clues are fixed by asserting the clue's literal (a unit clause)."""

    name = "bool-z3"
    puzzles = ("sudoku", "sudoku_x")
    solver = "z3"
    option_choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {"units": ("pbeq", "atmost")}

    def build(self, instance, limits: Limits) -> ModelSize:
        n = instance.n
        x = [[[z3.Bool(f"x{r}_{c}_{d}") for d in range(n)] for c in range(n)] for r in range(n)]
        solver = _z3.new_solver(limits)
        for r in range(n):
            for c in range(n):
                solver.add(z3.PbEq([(v, 1) for v in x[r][c]], 1))
                if instance.grid[r][c]:
                    solver.add(x[r][c][instance.grid[r][c] - 1])
        at_most = self.option("units") == "atmost"
        for unit in instance.units:
            for d in range(n):
                lits = [x[r][c][d] for r, c in unit]
                solver.add(z3.AtMost(*lits, 1) if at_most else z3.PbEq([(v, 1) for v in lits], 1))
        self.solver, self.x, self.n = solver, x, n
        return ModelSize(n * n * n, len(solver.assertions()))

    def solve(self, limits: Limits) -> Outcome:
        x, n = self.x, self.n

        def decode(model: z3.ModelRef) -> dict:
            grid = [
                [
                    next(
                        (d + 1 for d in range(n) if z3.is_true(model.eval(cell[d], True))),
                        0,
                    )
                    for cell in row
                ]
                for row in x
            ]
            return {"grid": grid}

        return _z3.run(self.solver, limits, decode)
