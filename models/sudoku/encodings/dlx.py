"""dlx: a non-solver reference — Knuth's Algorithm X over the Sudoku exact-cover matrix.

Dancing links are replaced by the equivalent dict-of-sets representation (columns map
to the set of rows that cover them; covering removes rows from the other columns'
sets and uncovering puts them back in reverse order), which is the fast form in Python.
Rows are (row, col, digit); columns are "cell filled" and "digit once in unit" for
every row, column, box and, for Sudoku X, both diagonals. Clues are pre-eliminated by
selecting their rows before the search; a clue whose row is gone is a clash
(proved infeasible). Deterministic: the seed and threads have no effect.
"""

from __future__ import annotations

import time

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome

CHECK_EVERY = 1024  # nodes between looks at the clock


class _Timeout(Exception):
    pass


class Dlx(Encoding):
    """Exhaustive search, so ``infeasible`` is a proof; most-constrained column first."""

    name = "dlx"
    puzzles = ("sudoku", "sudoku_x")
    solver = "python"
    reference = True

    @classmethod
    def solver_version(cls) -> str:
        return "algorithm-x (pure python)"

    def build(self, instance, limits: Limits) -> ModelSize:
        n = instance.n
        unit_of: dict[tuple[int, int], list[int]] = {}
        for u, unit in enumerate(instance.units):
            for cell in unit:
                unit_of.setdefault(cell, []).append(u)
        rows: dict[tuple[int, int, int], list[tuple]] = {}
        for (r, c), units in unit_of.items():
            for d in range(1, n + 1):
                rows[r, c, d] = [("cell", r, c)] + [("unit", u, d) for u in units]
        columns: dict[tuple, set] = {}
        for row, cols in rows.items():
            for col in cols:
                columns.setdefault(col, set()).add(row)
        self.rows, self.columns, self.n = rows, columns, n
        size = ModelSize(len(rows), len(columns))
        self.solution: list[tuple[int, int, int]] = []
        self.clash = False
        for r, line in enumerate(instance.grid):
            for c, d in enumerate(line):
                if d:
                    if any((r, c, d) not in columns[col] for col in rows[r, c, d]):
                        self.clash = True
                        break
                    self._select((r, c, d))
                    self.solution.append((r, c, d))
        return size

    def _select(self, row: tuple[int, int, int]) -> list[set]:
        columns, rows = self.columns, self.rows
        removed = []
        for col in rows[row]:
            for other in columns[col]:
                for col2 in rows[other]:
                    if col2 != col:
                        columns[col2].remove(other)
            removed.append(columns.pop(col))
        return removed

    def _deselect(self, row: tuple[int, int, int], removed: list[set]) -> None:
        columns, rows = self.columns, self.rows
        for col in reversed(rows[row]):
            columns[col] = removed.pop()
            for other in columns[col]:
                for col2 in rows[other]:
                    if col2 != col:
                        columns[col2].add(other)

    def solve(self, limits: Limits) -> Outcome:
        self.nodes = self.backtracks = 0
        limit = limits.time_limit_s
        self.deadline = None if limit is None else time.monotonic() + limit
        if self.clash:
            return Outcome(INFEASIBLE, None, {"nodes": 0.0, "backtracks": 0.0}, "clues clash")
        try:
            found = self._search()
        except _Timeout:
            return Outcome(TIMEOUT, None, self._counters())
        if not found:
            return Outcome(INFEASIBLE, None, self._counters())
        grid = [[0] * self.n for _ in range(self.n)]
        for r, c, d in self.solution:
            grid[r][c] = d
        return Outcome(SOLVED, {"grid": grid}, self._counters())

    def _counters(self) -> dict[str, float]:
        return {"nodes": float(self.nodes), "backtracks": float(self.backtracks)}

    def _search(self) -> bool:
        columns = self.columns
        if not columns:
            return True
        self.nodes += 1
        if (
            self.deadline is not None
            and self.nodes % CHECK_EVERY == 0
            and time.monotonic() > self.deadline
        ):
            raise _Timeout
        col = min(columns, key=lambda key: len(columns[key]))
        if not columns[col]:
            self.backtracks += 1
            return False
        for row in sorted(columns[col]):
            removed = self._select(row)
            self.solution.append(row)
            if self._search():
                return True
            self.solution.pop()
            self._deselect(row, removed)
        return False
