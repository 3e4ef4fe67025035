"""The brief's 0-1 program (brief 001) as a PuLP problem, shared by ilp-cbc and ilp-highs.

x[r][c][d] = 1 when cell (r, c) holds digit d + 1. One digit per cell; every digit once
per row, column, box and (Sudoku X only) both diagonals. The objective is the brief's
"maximise the sum of x", which is constant over feasible points, so the first integer
point is optimal. Clues are fixed as bounds (lower bound 1 on the clue's variable), as
the seed fixes its initial digits; the solver's presolve does the rest.
"""

from __future__ import annotations

import pulp

from models.base import ModelSize
from models.sudoku.rules import SudokuInstance


def build_problem(instance: SudokuInstance) -> tuple[pulp.LpProblem, list, ModelSize]:
    """The PuLP problem and the variable cube x[r][c][d]."""
    n = instance.n
    prob = pulp.LpProblem("sudoku", pulp.LpMaximize)
    # PuLP >= 3.3 wants variables made through the problem; older ones only have LpVariable
    make = getattr(prob, "add_variable", None) or pulp.LpVariable
    x = [
        [
            [
                make(
                    f"x_{r}_{c}_{d}",
                    1 if instance.grid[r][c] == d + 1 else 0,
                    1,
                    pulp.LpInteger,  # LpBinary would reset the clue's lower bound to 0
                )
                for d in range(n)
            ]
            for c in range(n)
        ]
        for r in range(n)
    ]
    prob += pulp.lpSum(x[r][c][d] for r in range(n) for c in range(n) for d in range(n))
    for r in range(n):
        for c in range(n):
            prob += pulp.lpSum(x[r][c]) == 1, f"cell_{r}_{c}"
    for u, cells in enumerate(instance.units):
        for d in range(n):
            prob += pulp.lpSum(x[r][c][d] for r, c in cells) == 1, f"unit_{u}_{d}"
    return prob, x, ModelSize(n * n * n, n * n + len(instance.units) * n)


def decode(x: list) -> dict[str, list[list[int]]]:
    """The grid from variable values (the digit whose variable is set)."""
    grid = []
    for row in x:
        out = []
        for cell in row:
            values = [v.varValue or 0.0 for v in cell]
            out.append(max(range(len(values)), key=values.__getitem__) + 1)
        grid.append(out)
    return {"grid": grid}
