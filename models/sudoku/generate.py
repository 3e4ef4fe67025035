"""Random Sudoku / Sudoku X puzzles, deterministic per seed.

A small bitset backtracking search (most-constrained cell first) fills a random full
grid and counts solutions for the uniqueness check. It is the generator's own search,
not an encoding: the benchmark never times it, and no encoding imports it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from models.sudoku.rules import SudokuInstance

DEFAULT_FILL = 0.4  # share of cells kept as clues when neither clues nor unique is given
MAX_UNIQUE_ORDER = 3
SEEDED_ATTEMPTS = 3  # randomly seeded fills tried before completing the empty grid  # the uniqueness loop counts solutions per removal: 9x9 is cheap


class _Budget(Exception):
    """The search used up its node budget."""


class _Search:
    """Backtracking over the empty cells with one bit mask per unit."""

    def __init__(self, order: int, diagonal: bool, grid: Sequence[Sequence[int]]):
        n = order * order
        self.n, self.full = n, (1 << n) - 1
        self.cell_units: list[tuple[int, ...]] = []
        for r in range(n):
            for c in range(n):
                units = [r, n + c, 2 * n + (r // order) * order + c // order]
                if diagonal and r == c:
                    units.append(3 * n)
                if diagonal and r + c == n - 1:
                    units.append(3 * n + 1)
                self.cell_units.append(tuple(units))
        self.masks = [0] * (3 * n + 2)
        self.values = [v for row in grid for v in row]
        self.consistent = True
        for cell, v in enumerate(self.values):
            if v:
                bit = 1 << (v - 1)
                for u in self.cell_units[cell]:
                    if self.masks[u] & bit:
                        self.consistent = False
                    self.masks[u] |= bit
        self.empties = [cell for cell, v in enumerate(self.values) if not v]
        self.nodes = 0

    def _candidates(self, cell: int) -> int:
        used = 0
        for u in self.cell_units[cell]:
            used |= self.masks[u]
        return self.full & ~used

    def run(self, rng: random.Random | None, limit: int, max_nodes: int) -> int:
        """Count solutions up to ``limit`` (the first one stays in ``values``)."""
        if not self.consistent:
            return 0
        self.found = 0
        self.max_nodes = max_nodes
        self.rng = rng
        self._step(limit)
        return self.found

    def _step(self, limit: int) -> bool:
        """True when enough solutions were found (stop and keep the grid)."""
        empties = self.empties
        if not empties:
            self.found += 1
            return self.found >= limit
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Budget
        best_i, best_mask, best_count = -1, 0, self.n + 1
        for i, cell in enumerate(empties):
            mask = self._candidates(cell)
            count = mask.bit_count()
            if count < best_count:
                best_i, best_mask, best_count = i, mask, count
                if count <= 1:
                    break
        if best_count == 0:
            return False
        cell = empties[best_i]
        empties[best_i] = empties[-1]
        empties.pop()
        digits = [d for d in range(self.n) if best_mask >> d & 1]
        if self.rng is not None:
            self.rng.shuffle(digits)
        units = self.cell_units[cell]
        for d in digits:
            bit = 1 << d
            for u in units:
                self.masks[u] |= bit
            self.values[cell] = d + 1
            done = self._step(limit)
            for u in units:
                self.masks[u] &= ~bit
            if done:
                break
            self.values[cell] = 0
        else:
            done = False
        empties.append(cell)
        empties[best_i], empties[-1] = empties[-1], empties[best_i]
        return done


def count_solutions(instance: SudokuInstance, limit: int = 2, max_nodes: int = 10**6) -> int:
    """Number of solutions, counted up to ``limit``; raises RuntimeError past the budget."""
    search = _Search(instance.order, instance.diagonal, instance.grid)
    try:
        return search.run(None, limit, max_nodes)
    except _Budget:
        raise RuntimeError(f"solution count gave up after {max_nodes} nodes") from None


def first_solution(instance: SudokuInstance, max_nodes: int = 10**6) -> list[list[int]] | None:
    """The first solution in search order, or None when there is none."""
    search = _Search(instance.order, instance.diagonal, instance.grid)
    if not search.run(None, 1, max_nodes):
        return None
    n = instance.n
    return [search.values[r * n : r * n + n] for r in range(n)]


class _ExactCover:
    """Algorithm X (dict-of-sets) over the Sudoku exact-cover matrix, rows tried in a
    fixed order: choosing the unit-digit or cell with fewest options completes an empty
    or lightly seeded 25x25 grid in a few thousand nodes, where randomising every choice
    makes the search thrash."""

    def __init__(self, order: int, diagonal: bool):
        n = order * order
        self.rows: dict[tuple[int, int, int], tuple] = {}
        for r in range(n):
            for c in range(n):
                units = [("r", r), ("c", c), ("b", (r // order) * order + c // order)]
                if diagonal and r == c:
                    units.append(("d", 0))
                if diagonal and r + c == n - 1:
                    units.append(("d", 1))
                for d in range(1, n + 1):
                    self.rows[r, c, d] = (("x", r, c), *((u, d) for u in units))
        self.columns: dict[tuple, dict] = {}
        for key, cols in self.rows.items():
            for col in cols:
                self.columns.setdefault(col, {})[key] = None
        self.chosen: list[tuple[int, int, int]] = []
        self.nodes = 0

    def select(self, row: tuple) -> list[dict]:
        removed = []
        for col in self.rows[row]:
            for other in self.columns[col]:
                for col2 in self.rows[other]:
                    if col2 != col:
                        del self.columns[col2][other]
            removed.append(self.columns.pop(col))
        self.chosen.append(row)
        return removed

    def _deselect(self, row: tuple, removed: list[dict]) -> None:
        self.chosen.pop()
        for col in reversed(self.rows[row]):
            self.columns[col] = removed.pop()
            for other in self.columns[col]:
                for col2 in self.rows[other]:
                    if col2 != col:
                        self.columns[col2][other] = None

    def search(self, max_nodes: int) -> bool:
        columns = self.columns
        if not columns:
            return True
        self.nodes += 1
        if self.nodes > max_nodes:
            raise _Budget
        col = min(columns, key=lambda key: len(columns[key]))
        for row in sorted(columns[col]):
            removed = self.select(row)
            if self.search(max_nodes):
                return True
            self._deselect(row, removed)
        return False


def _mirror_permutation(m: int, rng: random.Random) -> list[int]:
    """A random permutation p of 0..m-1 with p(m-1-i) == m-1-p(i) (keeps both diagonals)."""
    pairs = list(range(m // 2))
    rng.shuffle(pairs)
    p = list(range(m))
    for i, j in enumerate(pairs):
        flip = rng.random() < 0.5
        p[i], p[m - 1 - i] = (m - 1 - j, j) if flip else (j, m - 1 - j)
    return p


def _line_permutation(order: int, diagonal: bool, rng: random.Random) -> list[int]:
    """Permute bands and lines within bands; for Sudoku X only mirror-symmetric ones."""
    if diagonal:
        bands = _mirror_permutation(order, rng)
        inner = [
            _mirror_permutation(order, rng) if 2 * b + 1 == order else None for b in range(order)
        ]
        for b in range(order // 2):
            inner[b] = rng.sample(range(order), order)
            inner[order - 1 - b] = [order - 1 - inner[b][order - 1 - j] for j in range(order)]
    else:
        bands = rng.sample(range(order), order)
        inner = [rng.sample(range(order), order) for _ in range(order)]
    return [bands[i // order] * order + inner[i // order][i % order] for i in range(order * order)]


def random_solution(order: int, diagonal: bool, rng: random.Random) -> list[list[int]]:
    """A random full grid: a few random clues completed by Algorithm X (after three seedings
    that run long, the empty grid is completed instead), then shuffled by the symmetries of the puzzle (line permutations,
    transposition, relabelled digits)."""
    n = order * order
    for attempt in range(SEEDED_ATTEMPTS + 1):
        cover = _ExactCover(order, diagonal)
        if attempt < SEEDED_ATTEMPTS:  # the last attempt completes the empty grid
            cells = [(r, c) for r in range(n) for c in range(n)]
            for r, c in rng.sample(cells, order):
                options = list(cover.columns.get(("x", r, c), ()))
                if options:
                    cover.select(rng.choice(options))
        try:
            if cover.search(16 * n * n if attempt < SEEDED_ATTEMPTS else 10**7):
                break
        except _Budget:
            continue
    else:
        raise RuntimeError(f"no {n}x{n} grid found")
    grid = [[0] * n for _ in range(n)]
    for r, c, d in cover.chosen:
        grid[r][c] = d
    rows = _line_permutation(order, diagonal, rng)
    cols = rows if diagonal else _line_permutation(order, diagonal, rng)
    digits = [0, *rng.sample(range(1, n + 1), n)]
    out = [[digits[grid[rows[r]][cols[c]]] for c in range(n)] for r in range(n)]
    return [list(col) for col in zip(*out, strict=True)] if rng.random() < 0.5 else out


def check_params(
    rows: int,
    cols: int,
    seed: int = 0,
    clues: int | None = None,
    fill: float | None = None,
    unique: int | bool = False,
    diagonal: bool = False,
) -> int | None:
    """The clue count asked for (None: the default); ValueError (TypeError for an unknown
    parameter) for what ``generate`` refuses, found without making a board: a ``gen:`` spec
    is checked up front (exit 2, not a run's error)."""
    order = {4: 2, 9: 3, 16: 4, 25: 5}.get(rows)
    if rows != cols or order is None:
        raise ValueError(f"size must be 4x4, 9x9, 16x16 or 25x25, got {rows}x{cols}")
    n = rows
    if clues is not None and fill is not None:
        raise ValueError("give clues or fill, not both")
    if fill is not None:
        if not 0 <= fill <= 1:
            raise ValueError(f"fill must lie in 0..1, got {fill}")
        clues = round(fill * n * n)
    if clues is not None and not (isinstance(clues, int) and 0 <= clues <= n * n):
        raise ValueError(f"clues must be an integer in 0..{n * n}, got {clues!r}")
    if unique not in (0, 1, True, False):
        raise ValueError(f"unique must be 0 or 1, got {unique!r}")
    if unique and order > MAX_UNIQUE_ORDER:
        raise ValueError(f"unique puzzles are generated up to 9x9 only, not {n}x{n}")
    return clues


def generate(
    rows: int,
    cols: int,
    seed: int,
    clues: int | None = None,
    fill: float | None = None,
    unique: int | bool = False,
    diagonal: bool = False,
) -> SudokuInstance:
    """A puzzle of side ``rows == cols`` in {4, 9, 16, 25} with a planted solution.

    ``clues`` (a count) or ``fill`` (a share of the cells) sets how many clues stay;
    ``clues=0`` is the empty grid. ``unique=1`` (order <= 3) removes clues only while
    the puzzle keeps one solution; without ``clues`` it yields a minimal puzzle.
    """
    clues = check_params(rows, cols, seed, clues, fill, unique, diagonal)
    n, order = rows, {4: 2, 9: 3, 16: 4, 25: 5}[rows]
    rng = random.Random(f"sudoku:{n}:{int(diagonal)}:{seed}")
    grid = random_solution(order, diagonal, rng)
    cells = [(r, c) for r in range(n) for c in range(n)]
    rng.shuffle(cells)
    if not unique:
        keep = round(DEFAULT_FILL * n * n) if clues is None else clues
        for r, c in cells[keep:]:
            grid[r][c] = 0
        return _instance(order, grid, diagonal)
    target = 0 if clues is None else clues
    remaining = n * n
    for r, c in cells:
        if remaining <= target:
            break
        value, grid[r][c] = grid[r][c], 0
        if count_solutions(_instance(order, grid, diagonal), 2) == 1:
            remaining -= 1
        else:
            grid[r][c] = value
    return _instance(order, grid, diagonal)


def _instance(order: int, grid: list[list[int]], diagonal: bool) -> SudokuInstance:
    return SudokuInstance(order, tuple(tuple(row) for row in grid), diagonal)
