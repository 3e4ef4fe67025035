"""Constructive knight's tours for the ``warnsdorff`` reference (no solver at run time).

Two methods:

* **Block stitching** (divide and conquer after Parberry 1997) for closed tours on
  boards whose sides are both >= 5 and not both odd. The board is cut into blocks with
  sides in 5..11 (at most one odd part per side); each block gets a stored directed
  closed tour (``blocks.py``) that makes known moves near its corners. Two neighbouring
  cycles are joined by a 2-move swap: drop move a->b of one and d->c of the other, add
  a->c and d->b (both knight moves across the border). Joining along a spanning tree of
  the blocks (every block row left to right, the first block column top to bottom)
  leaves one directed cycle. Everything is vectorised with numpy; only the final walk
  along the successors is a plain loop.
* **Warnsdorff** with random restarts for everything else (small or thin boards, odd x
  odd open tours): always move to the square with fewest onward moves, ties broken
  towards the rim, the centre or at random (alternating between restarts), as the move
  order of a depth-first search with a node budget; a closed tour needs the last square
  to be a knight move from the first.
"""

from __future__ import annotations

import random
import time

import numpy as np

from models.knights_tour.blocks import BASE_TOURS
from models.knights_tour.rules import KNIGHT_MOVES


def closed_tour_exists(rows: int, cols: int) -> bool:
    """Schwenk (1991): m x n, m <= n, has a closed tour unless m, n both odd, m in {1, 2, 4},
    or m = 3 and n in {4, 6, 8}."""
    m, n = sorted((rows, cols))
    return not ((m % 2 and n % 2) or m in (1, 2, 4) or (m == 3 and n in (4, 6, 8)))


def open_tour_exists(rows: int, cols: int) -> bool:
    """Conrad et al. (1994): m x n, m <= n, has an open tour iff it is 1 x 1, m = 3 and
    n = 4 or n >= 7, m = 4 and n >= 5, or m >= 5."""
    m, n = sorted((rows, cols))
    return (m, n) == (1, 1) or (m == 3 and (n == 4 or n >= 7)) or (m == 4 and n >= 5) or m >= 5


def split_side(length: int) -> list[int] | None:
    """Cut a side into block lengths from 5..11, or None if it is below 5.

    Odd sides get one odd part: the whole side up to 11, else a 7. A 5 therefore only
    occurs on a side of exactly 5 (the stored 5 x w tours hold only the row moves).
    """
    if length < 5:
        return None
    if length % 2 and length <= 11:
        return [length]
    parts: list[int] = []
    if length % 2:
        parts.append(7)
        length -= 7
    tens, rest = divmod(length, 10)
    if rest in (2, 4) and tens:
        tens -= 1
        rest += 10
    parts += [10] * tens
    parts += {0: [], 6: [6], 8: [8], 12: [6, 6], 14: [6, 8]}[rest]
    return parts


def can_stitch(rows: int, cols: int) -> bool:
    return rows >= 5 and cols >= 5 and not (rows % 2 and cols % 2)


def stitched_tour(rows: int, cols: int) -> tuple[np.ndarray, dict[str, float]]:
    """A closed tour of a ``can_stitch`` board as square indices r*cols+c, and counters.

    Every stored block tour is directed and makes its stitching moves in fixed
    directions, so each stitch splices two directed cycles by rewiring two successors:
    rows: a=(r, x-1) -> b=(r+2, x-2) on the left, d=(r+3, x) -> c=(r+1, x+1) on the
    right become a -> c and d -> b; columns: b=(y-2, 2) -> a=(y-1, 0) above,
    c=(y+1, 1) -> d=(y, 3) below become b -> d and c -> a. Both keep one cycle.
    """
    row_parts, col_parts = split_side(rows), split_side(cols)
    assert row_parts and col_parts and can_stitch(rows, cols)
    row_at = np.cumsum([0, *row_parts[:-1]])
    col_at = np.cumsum([0, *col_parts[:-1]])
    succ = np.empty(rows * cols, dtype=np.int64)
    for h in sorted(set(row_parts)):
        for w in sorted(set(col_parts)):
            text = BASE_TOURS[h, w]
            local = np.array([int(text[i : i + 3]) for i in range(0, len(text), 3)])
            br = row_at[np.array(row_parts) == h]
            bc = col_at[np.array(col_parts) == w]
            origin = (br[:, None] * cols + bc[None, :]).reshape(-1, 1)
            squares = origin + (local // w * cols + local % w)[None, :]
            succ[squares] = np.roll(squares, -1, axis=1)
    r = np.repeat(row_at, len(col_at) - 1)
    x = np.tile(col_at[1:], len(row_at))
    a, b = r * cols + x - 1, (r + 2) * cols + x - 2
    c, d = (r + 1) * cols + x + 1, (r + 3) * cols + x
    _rewire(succ, (a, b), (d, c), (a, c), (d, b))
    y = row_at[1:]
    a, b = (y - 1) * cols, (y - 2) * cols + 2
    c, d = (y + 1) * cols + 1, y * cols + 3
    _rewire(succ, (b, a), (c, d), (b, d), (c, a))
    order = _walk(succ)
    merges = len(r) + len(y)
    return order, {"blocks": len(row_at) * len(col_at), "merges": merges, "steps": len(order)}


def _rewire(succ: np.ndarray, *moves: tuple[np.ndarray, np.ndarray]) -> None:
    """Drop the first two moves (u -> v arrays), which must be there, and add the last two."""
    (u1, v1), (u2, v2), (u3, v3), (u4, v4) = moves
    if not ((succ[u1] == v1).all() and (succ[u2] == v2).all()):
        raise AssertionError("a stitching move is missing from a stored block tour")
    succ[u3] = v3
    succ[u4] = v4


def _walk(succ: np.ndarray) -> np.ndarray:
    """Follow successors from square 0 once around; check that the cycle covers the board."""
    nxt = succ.tolist()
    n = len(nxt)
    order = [0] * n
    u = 0
    for k in range(n):
        order[k] = u
        u = nxt[u]
    result = np.array(order, dtype=np.int64)
    if u != 0 or not (np.bincount(result, minlength=n) == 1).all():
        raise AssertionError("stitched moves do not form one cycle")
    return result


def warnsdorff(
    rows: int, cols: int, closed: bool, seed: int, deadline: float | None, max_restarts: int
) -> tuple[list[int] | None, dict[str, float]]:
    """Warnsdorff's rule as the move order of a depth-first search with a node budget.

    Without a dead end this is plain Warnsdorff (one pass); the bounded backtracking
    rescues the small and thin boards where the rule alone keeps failing. Each restart
    takes a new start square and new random tie-breaks.
    """
    n = rows * cols
    rng = random.Random(seed)
    near = [
        [
            (r + dr) * cols + c + dc
            for dr, dc in KNIGHT_MOVES
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for r in range(rows)
        for c in range(cols)
    ]
    cr, cc = (rows - 1) / 2, (cols - 1) / 2
    rim = [(u // cols - cr) ** 2 + (u % cols - cc) ** 2 for u in range(n)]
    # ties go to the rim, to the centre, or to chance, in turn: no single rule suits every
    # board (rim-first never finds a 4 x 10 open tour, centre-first does from half the starts)
    tie_breaks = (rim, [-x for x in rim], [0.0] * n)
    counters = {"restarts": 0, "steps": 0, "backtracks": 0}
    for restart in range(max_restarts):
        if deadline is not None and time.monotonic() > deadline:
            break
        counters["restarts"] = restart
        start = rng.randrange(n)
        ties = tie_breaks[restart % 3]
        path = _search(near, ties, closed, start, rng, 20 * n + 1000, deadline, counters)
        if path is not None:
            return path, counters
    counters["restarts"] = max_restarts
    return None, counters


def _search(
    near: list[list[int]],
    rim: list[float],
    closed: bool,
    start: int,
    rng: random.Random,
    budget: int,
    deadline: float | None,
    counters: dict[str, float],
) -> list[int] | None:
    """One depth-first search from ``start``: children in Warnsdorff order, best last.

    Pruned when a square loses its last free neighbour (it can only be the final
    square, right next) or, for a closed tour, when the start does.
    """
    n = len(near)
    free = [len(x) for x in near]  # unvisited neighbours of every square
    seen = [False] * n

    low = [sum(1 for f in free if f <= 1)]  # unvisited squares with at most one way out

    def visit(v: int) -> int:
        """Mark v; return how many unvisited squares it left without a free neighbour."""
        seen[v] = True
        if free[v] <= 1:
            low[0] -= 1
        stranded = 0
        for u in near[v]:
            free[u] -= 1
            if not seen[u]:
                if free[u] == 1:
                    low[0] += 1
                elif free[u] == 0:
                    stranded += 1
        return stranded

    def leave(v: int) -> None:
        seen[v] = False
        if free[v] <= 1:
            low[0] += 1
        for u in near[v]:
            free[u] += 1
            if not seen[u] and free[u] == 2:
                low[0] -= 1

    def dead_ends(v: int) -> int:
        """Unvisited squares not next to v with one way out or none: each must end the tour."""
        return low[0] - sum(1 for u in near[v] if not seen[u] and free[u] <= 1)

    def ordered(v: int) -> list[int]:
        options = [(free[u], -rim[u], rng.random(), u) for u in near[v] if not seen[u]]
        return [u for *_, u in sorted(options, reverse=True)]

    visit(start)
    path, stack = [start], [ordered(start)]
    while stack:
        if not stack[-1] or budget <= 0:
            if budget <= 0:
                return None
            stack.pop()
            leave(path.pop())
            counters["backtracks"] += 1
            continue
        v = stack[-1].pop()
        stranded = visit(v)
        path.append(v)
        budget -= 1
        counters["steps"] += 1
        if budget % 4096 == 0 and deadline is not None and time.monotonic() > deadline:
            return None
        left = n - len(path)
        if left == 0:
            if not closed or start in near[v]:
                return path
        elif not (
            (closed and free[start] == 0)
            or stranded > 1
            or (stranded and left > 1)
            or dead_ends(v) > 1
        ):
            stack.append(ordered(v))
            continue
        stack.append([])  # dead end or the start cut off: undo v on the next turn
    return None
