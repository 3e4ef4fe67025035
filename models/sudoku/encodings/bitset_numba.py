"""``bitset-numba``: a dedicated, complete Sudoku search on candidate bitsets, compiled with numba.

Each cell holds the set of digits still possible as the bits of one integer (digit d is
bit d-1), so the side n of the grid may be up to 62 (order 2 to 7). Propagation is the two
classic rules, both sound for every solution:

- *naked single*: a cell with one candidate takes it, and the digit leaves every peer (a
  cell sharing a row, column, box or, for Sudoku X, diagonal); a peer left empty refutes
  the state;
- *hidden single*: per unit, the digits seen once (``once & ~twice`` over the unit's
  cells) must go where they are seen; a digit seen nowhere, or a cell asked to take two,
  refutes the state.

The search branches on a cell with the fewest candidates (the lowest digit first), copies
the parent's candidates into the next level of an explicit stack and propagates; an
exhausted stack is a proof that the grid has no solution (``infeasible``). The stack lives
in arrays so the kernel runs in chunks of decisions, and the clock is read between
chunks (numba has no clock). Deterministic: the seed and threads have no effect.

Counters (deterministic): ``nodes`` (digits tried), ``backtracks`` (cells whose every
digit failed).

The kernels are compiled on first import and cached on disk (numba ``cache=True``);
importing this module runs them once on a 4x4 grid and makes the peer tables of orders 2
to 5, so the warm parent of a sweep that runs it (a sweep imports the encodings it runs)
has both in memory before any run forks.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import numba
import numpy as np

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome

MAX_SIDE = 62  # candidates are bits of an int64
CHUNK = 20_000  # decisions between two looks at the clock
RUNNING, FOUND, EXHAUSTED = 0, 1, 2


@numba.njit(cache=True, inline="always")
def _popcount(m: int) -> int:
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (m * 0x0101010101010101) >> 56


@numba.njit(cache=True)
def _propagate(cand, queue, head, tail, peer_start, peers, units, full) -> bool:
    """Naked and hidden singles to a fixed point; False when the state is refuted.

    ``queue[head:tail]`` holds the cells that became single and still have to leave
    their peers; every other single of ``cand`` has already left them."""
    n_units, side = units.shape
    while True:
        while head < tail:
            cell = queue[head]
            head += 1
            m = cand[cell]
            for i in range(peer_start[cell], peer_start[cell + 1]):
                p = peers[i]
                c = cand[p]
                if c & m:
                    c &= ~m
                    if c == 0:
                        return False
                    cand[p] = c
                    if c & (c - 1) == 0:
                        queue[tail] = p
                        tail += 1
        for u in range(n_units):
            once = 0
            twice = 0
            for j in range(side):
                c = cand[units[u, j]]
                twice |= once & c
                once |= c
            if once != full:
                return False
            hidden = once & ~twice
            if hidden == 0:
                continue
            for j in range(side):
                cell = units[u, j]
                c = cand[cell]
                h = c & hidden
                if h and c & (c - 1):
                    if h & (h - 1):
                        return False  # one cell would need two digits
                    cand[cell] = h
                    queue[tail] = cell
                    tail += 1
        if head == tail:
            return True


@numba.njit(cache=True)
def _search(stack, branch, remaining, state, queue, peer_start, peers, units, full, budget):
    """Run up to ``budget`` decisions; ``state`` = [level, choose?, nodes, backtracks,
    outcome]. Returns RUNNING (budget spent), FOUND (``stack[level]`` is a full grid) or
    EXHAUSTED (no solution)."""
    cells = stack.shape[1]
    level, choose, nodes, backtracks = state[0], state[1], state[2], state[3]
    steps = 0
    outcome = RUNNING
    while steps < budget:
        if choose:
            current = stack[level]
            best, fewest = -1, 64
            for c in range(cells):
                m = current[c]
                if m & (m - 1):
                    count = _popcount(m)
                    if count < fewest:
                        best, fewest = c, count
                        if count == 2:
                            break
            if best < 0:
                outcome = FOUND
                break
            branch[level] = best
            remaining[level] = current[best]
            choose = 0
        m = remaining[level]
        if m == 0:
            backtracks += 1
            level -= 1
            if level < 0:
                outcome = EXHAUSTED
                break
            continue
        digit = m & -m
        remaining[level] = m ^ digit
        nxt = stack[level + 1]
        nxt[:] = stack[level]
        nxt[branch[level]] = digit
        nodes += 1
        steps += 1
        queue[0] = branch[level]
        if _propagate(nxt, queue, 0, 1, peer_start, peers, units, full):
            level += 1
            choose = 1
    state[0], state[1], state[2], state[3], state[4] = level, choose, nodes, backtracks, outcome
    return outcome


@numba.njit(cache=True)
def _start(stack, queue, clues, peer_start, peers, units, full) -> bool:
    """Level 0 from the clues (0 = empty), propagated; False when the clues clash."""
    first = stack[0]
    tail = 0
    for c in range(clues.shape[0]):
        if clues[c]:
            first[c] = 1 << (clues[c] - 1)
            queue[tail] = c
            tail += 1
        else:
            first[c] = full
    return _propagate(first, queue, 0, tail, peer_start, peers, units, full)


@numba.njit(cache=True)
def _digits(cand, out) -> None:
    for c in range(cand.shape[0]):
        m = cand[c]
        d = 0
        while m:
            m >>= 1
            d += 1
        out[c] = d


@cache
def _tables(order: int, diagonal: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Peers of every cell (compressed rows) and the units as cell indices."""
    n = order * order
    units = [[r * n + c for c in range(n)] for r in range(n)]
    units += [[r * n + c for r in range(n)] for c in range(n)]
    units += [
        [(br * order + i) * n + bc * order + j for i in range(order) for j in range(order)]
        for br in range(order)
        for bc in range(order)
    ]
    if diagonal:
        units.append([i * n + i for i in range(n)])
        units.append([i * n + n - 1 - i for i in range(n)])
    peer_sets: list[set[int]] = [set() for _ in range(n * n)]
    for unit in units:
        for cell in unit:
            peer_sets[cell].update(unit)
    start = np.zeros(n * n + 1, dtype=np.int64)
    flat: list[int] = []
    for cell, found in enumerate(peer_sets):
        flat.extend(sorted(found - {cell}))
        start[cell + 1] = len(flat)
    return start, np.array(flat, dtype=np.int64), np.array(units, dtype=np.int64)


class BitsetSearch:
    """The search state of one grid: the explicit stack and the kernels' tables."""

    def __init__(self, order: int, diagonal: bool, grid: Any):
        side = order * order
        if side > MAX_SIDE:
            raise ValueError(f"bitset-numba: side {side} is over {MAX_SIDE} (int64 candidates)")
        self.side, self.cells = side, side * side
        self.peer_start, self.peers, self.units = _tables(order, diagonal)
        self.full = (1 << side) - 1
        clues = np.array(grid, dtype=np.int64).reshape(-1)
        self.stack = np.empty((self.cells + 1, self.cells), dtype=np.int64)  # level 0 set next
        self.branch = np.zeros(self.cells + 1, dtype=np.int64)
        self.remaining = np.zeros(self.cells + 1, dtype=np.int64)
        self.queue = np.zeros(2 * self.cells + 1, dtype=np.int64)
        self.state = np.array([0, 1, 0, 0, RUNNING], dtype=np.int64)
        args = (self.peer_start, self.peers, self.units, self.full)
        if not _start(self.stack, self.queue, clues, *args):
            self.state[4] = EXHAUSTED

    def run(self, deadline: float | None) -> int | None:
        """FOUND or EXHAUSTED, or None when the deadline passed first."""
        args = (self.peer_start, self.peers, self.units, self.full)
        while self.state[4] == RUNNING:
            code = _search(
                self.stack, self.branch, self.remaining, self.state, self.queue, *args, CHUNK
            )
            if code == RUNNING and deadline is not None and time.monotonic() > deadline:
                return None
        return int(self.state[4])

    def grid(self) -> list[list[int]]:
        out = np.zeros(self.cells, dtype=np.int64)
        _digits(self.stack[self.state[0]], out)
        return out.reshape(self.side, self.side).tolist()

    def counters(self) -> dict[str, float]:
        return {"nodes": float(self.state[2]), "backtracks": float(self.state[3])}


def _warm() -> None:
    """Compile (or load from the on-disk cache) every kernel with its argument types, and
    make the tables of the usual orders, so a forked run starts with both in memory."""
    for order in range(2, 6):
        for diagonal in (False, True):
            _tables(order, diagonal)
    search = BitsetSearch(2, False, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    search.run(None)
    search.grid()


class BitsetNumba(Encoding):
    """Complete: ``infeasible`` is a proof (the whole tree was searched)."""

    name = "bitset-numba"
    puzzles = ("sudoku", "sudoku_x")
    solver = "numba"
    reference = False

    @classmethod
    def solver_version(cls) -> str:
        return f"puzzle-bench bitset search (numba {numba.__version__})"

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        self.search = BitsetSearch(instance.order, instance.diagonal, instance.grid)
        n = instance.n
        # the exact-cover view, as dlx counts it: (cell, digit) choices; cell + unit-digit columns
        return ModelSize(n_vars=n * n * n, n_constraints=n * n + len(self.search.units) * n)

    def solve(self, limits: Limits) -> Outcome:
        limit = limits.time_limit_s
        deadline = None if limit is None else time.monotonic() + limit
        code = self.search.run(deadline)
        counters = self.search.counters()
        if code is None:
            return Outcome(TIMEOUT, counters=counters, message="time limit")
        if code == EXHAUSTED:
            return Outcome(INFEASIBLE, counters=counters, message="search exhausted")
        return Outcome(SOLVED, {"grid": self.search.grid()}, counters)


_warm()
