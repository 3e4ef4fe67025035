"""The independent checker for knight's tours (shares no code with any encoding).

A 1000 x 1000 answer holds a million squares, so the common path is vectorised
with numpy; anything that does not convert to a clean integer array falls back
to a slow path whose only job is to name the first problem.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from models.knights_tour.rules import Board


def verify(board: Board, solution: Any) -> str | None:
    """None if ``solution`` is a knight's tour of ``board``, else the first problem found."""
    if not isinstance(solution, dict) or "tour" not in solution:
        return "solution must be an object with a 'tour' list"
    tour = solution["tour"]
    if not isinstance(tour, (list, tuple)):
        return "'tour' must be a list of [row, col] pairs"
    n = board.rows * board.cols
    if len(tour) != n:
        return f"tour visits {len(tour)} squares, the board has {n}"
    squares = _as_array(tour)
    if isinstance(squares, str):
        return squares
    rows, cols = squares[:, 0], squares[:, 1]
    outside = (rows < 0) | (rows >= board.rows) | (cols < 0) | (cols >= board.cols)
    if outside.any():
        k = int(np.argmax(outside))
        return f"step {k}: square {tour[k]} lies outside the {board.rows}x{board.cols} board"
    index = rows * board.cols + cols
    seen = np.bincount(index, minlength=n)
    if (seen != 1).any():
        twice = np.flatnonzero(seen > 1)
        if twice.size:
            sq = divmod(int(twice[0]), board.cols)
            k = np.flatnonzero(index == twice[0])
            return f"square {list(sq)} visited twice (steps {int(k[0])} and {int(k[1])})"
        missing = divmod(int(np.flatnonzero(seen == 0)[0]), board.cols)
        return f"square {list(missing)} never visited"
    dr = np.abs(np.diff(rows))
    dc = np.abs(np.diff(cols))
    bad = dr * dc != 2
    if bad.any():
        k = int(np.argmax(bad))
        return f"step {k} -> {k + 1}: {tour[k]} to {tour[k + 1]} is not a knight move"
    if board.closed and n == 1:
        return "a closed tour needs a knight move back to the start; a 1x1 board has none"
    closing = abs(int(rows[-1] - rows[0])) * abs(int(cols[-1] - cols[0]))
    if board.closed and closing != 2:
        return (
            f"closed tour required: last square {tour[-1]} is not a knight move "
            f"from the first {tour[0]}"
        )
    return None


def _as_array(tour: list | tuple) -> np.ndarray | str:
    """The tour as an (n, 2) int64 array, or the first malformed entry described."""
    try:
        arr = np.array(tour)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if arr is not None and arr.dtype.kind == "i" and arr.shape == (len(tour), 2):
        return arr.astype(np.int64, copy=False)
    for k, square in enumerate(tour):
        if not isinstance(square, (list, tuple)) or len(square) != 2:
            return f"step {k}: {square!r} is not a [row, col] pair"
        for value in square:
            if isinstance(value, bool) or not isinstance(value, int):
                return f"step {k}: {square!r} holds a non-integer coordinate"
            if abs(value) > 2**62:
                return f"step {k}: coordinate {value} lies outside the board"
    if not tour:
        return np.zeros((0, 2), dtype=np.int64)
    return np.array(tour, dtype=np.int64)
