"""The independent checker: shares no code with any encoding (only the Board type).

A solution is ``{"paths": {label: [[r, c], ...]}}``, each path running from one end
of its pair to the other. The rule checked is the Flow Free rule: paths are simple,
move by unit orthogonal steps, never share a cell, never pass through another
pair's end, and together cover the whole board.
"""

from __future__ import annotations

import itertools
from typing import Any

from models.numberlink.rules import Board


def verify(board: Board, solution: Any, fill: bool = True) -> str | None:
    """None when ``solution`` is right, else a sentence naming the first problem."""
    if not isinstance(solution, dict) or not isinstance(solution.get("paths"), dict):
        return 'solution must be an object {"paths": {label: [[r, c], ...]}}'
    paths = solution["paths"]
    wanted, given = set(board.ends), {str(k) for k in paths}
    if given - wanted:
        return f"paths for labels not on the board: {sorted(given - wanted)}"
    if wanted - given:
        return f"no path for label(s) {sorted(wanted - given)}"
    end_at = {cell: label for label, pair in board.ends.items() for cell in pair}
    owner: dict[tuple[int, int], str] = {}
    for key, raw in paths.items():
        label = str(key)
        cells, problem = _cells(raw, board, label)
        if problem:
            return problem
        first, last = cells[0], cells[-1]
        if {first, last} != set(board.ends[label]) or len(cells) < 2:
            return f"path {label} must run from {board.ends[label][0]} to {board.ends[label][1]}"
        for a, b in itertools.pairwise(cells):
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
                return f"path {label} jumps from {a} to {b} (not one orthogonal step)"
        for cell in cells:
            if cell in owner:
                who = owner[cell]
                if who == label:
                    return f"path {label} visits {cell} twice"
                return f"paths {who} and {label} share cell {cell}"
            owner[cell] = label
            if cell in end_at and end_at[cell] != label:
                return f"path {label} passes through the end of {end_at[cell]} at {cell}"
    if fill:
        for r in range(board.rows):
            for c in range(board.cols):
                if (r, c) not in owner:
                    return f"cell {(r, c)} is not covered by any path"
    return None


def _cells(raw: Any, board: Board, label: str) -> tuple[list[tuple[int, int]], str | None]:
    """The path as cell tuples, or a message when its shape is wrong."""
    if not isinstance(raw, (list, tuple)) or not raw:
        return [], f"path {label} must be a non-empty list of [row, col] pairs"
    cells = []
    for step in raw:
        if (
            not isinstance(step, (list, tuple))
            or len(step) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in step)
        ):
            return [], f"path {label} holds {step!r}, not a [row, col] pair of integers"
        r, c = step
        if not (0 <= r < board.rows and 0 <= c < board.cols):
            return [], f"path {label} leaves the board at {(r, c)}"
        cells.append((r, c))
    return cells, None
