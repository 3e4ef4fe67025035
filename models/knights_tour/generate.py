"""Knight's-tour boards by size: the board is the whole instance, so the seed is ignored."""

from __future__ import annotations

from typing import Any

from models.knights_tour.rules import Board


def generate(rows: int, cols: int, seed: int = 0, **params: Any) -> Board:
    """A ``rows`` x ``cols`` board; ``open=1`` asks for an open tour.

    The seed is accepted for the common generator interface and does not matter:
    a knight's-tour instance has nothing random in it.
    """
    unknown = set(params) - {"open"}
    if unknown:
        raise ValueError(f"unknown knights_tour parameter(s) {sorted(unknown)} (known: open)")
    if rows < 1 or cols < 1:
        raise ValueError(f"board size {rows}x{cols} is below 1x1")
    is_open = params.get("open", 0)
    if is_open not in (0, 1, True, False):
        raise ValueError(f"open must be 0 or 1, got {is_open!r}")
    return Board(rows, cols, closed=not is_open)
