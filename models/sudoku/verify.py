"""Independent checker for Sudoku and Sudoku X answers.

Shares no code with any encoding: it rebuilds its own row, column, box and diagonal
groups from the side length and looks at the answer only through plain Python.
"""

from __future__ import annotations

from typing import Any

from models.sudoku.rules import SudokuInstance


def verify(instance: SudokuInstance, solution: Any) -> str | None:
    """None when ``solution`` solves ``instance``, else the first problem found."""
    n, k = instance.n, instance.order
    if not isinstance(solution, dict) or "grid" not in solution:
        return 'solution must be an object with a "grid" key'
    grid = solution["grid"]
    if not isinstance(grid, list) or len(grid) != n:
        return f"grid must be a list of {n} rows"
    for r, row in enumerate(grid):
        if not isinstance(row, list) or len(row) != n:
            return f"row {r} must be a list of {n} numbers"
        for c, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, int):
                return f"cell ({r}, {c}) holds {value!r}, not an integer"
            if not 1 <= value <= n:
                return f"cell ({r}, {c}) holds {value}, outside 1..{n}"
            clue = instance.grid[r][c]
            if clue and clue != value:
                return f"cell ({r}, {c}) changed the clue {clue} to {value}"
    groups: list[tuple[str, list[tuple[int, int]]]] = []
    for i in range(n):
        groups.append((f"row {i}", [(i, j) for j in range(n)]))
        groups.append((f"column {i}", [(j, i) for j in range(n)]))
    for b in range(n):
        top, left = (b // k) * k, (b % k) * k
        groups.append((f"box {b}", [(top + i // k, left + i % k) for i in range(n)]))
    if instance.diagonal:
        groups.append(("main diagonal", [(i, i) for i in range(n)]))
        groups.append(("anti-diagonal", [(i, n - 1 - i) for i in range(n)]))
    for label, cells in groups:
        seen: dict[int, tuple[int, int]] = {}
        for r, c in cells:
            value = grid[r][c]
            if value in seen:
                return f"{label}: {value} appears at {seen[value]} and at ({r}, {c})"
            seen[value] = (r, c)
    return None
