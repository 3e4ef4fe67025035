"""Sudoku instance type, parse, format, split and size: shared by classic and diagonal Sudoku.

The file never says whether a grid is diagonal: the puzzle that reads it does (``sudoku``
or ``sudoku_x``), so the same file serves both when its clues allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from models.errors import InstanceError

LINE_CHARS = "0123456789."


@dataclass(frozen=True)
class SudokuInstance:
    """A Sudoku of order ``order`` (side ``n = order**2``); ``grid[r][c] == 0`` is empty."""

    order: int
    grid: tuple[tuple[int, ...], ...]
    diagonal: bool = False

    @property
    def n(self) -> int:
        return self.order * self.order

    @property
    def clue_count(self) -> int:
        return sum(1 for row in self.grid for v in row if v)

    @cached_property
    def units(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Every group of cells that must hold 1..n once: rows, columns, boxes, diagonals.

        For the encodings; the verifier computes its own groups so it shares no code.
        """
        n, k = self.n, self.order
        rows = [tuple((r, c) for c in range(n)) for r in range(n)]
        cols = [tuple((r, c) for r in range(n)) for c in range(n)]
        boxes = [
            tuple((br * k + i, bc * k + j) for i in range(k) for j in range(k))
            for br in range(k)
            for bc in range(k)
        ]
        units = rows + cols + boxes
        if self.diagonal:
            units.append(tuple((i, i) for i in range(n)))
            units.append(tuple((i, n - 1 - i) for i in range(n)))
        return tuple(units)


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(line number from 1, text without comment) for every line with content."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if body:
            out.append((number, body))
    return out


def _is_line_form(body: str) -> bool:
    """A one-line puzzle is a single token longer than any grid row token could be."""
    return len(body.split()) == 1 and (len(body) > 2 or "." in body)


def split(text: str) -> list[tuple[int, str]]:
    """Collection files hold one 81-character puzzle per line; anything else is one entry."""
    lines = _content_lines(text)
    if lines and all(_is_line_form(body) for _, body in lines):
        return [(number, body) for number, body in lines]
    return [(1, text)]


def parse(text: str, source: str, diagonal: bool = False) -> SudokuInstance:
    """Parse the n x n integer grid or the 81-character line; contradictions are not errors."""
    lines = _content_lines(text)
    if not lines:
        raise InstanceError(source, "no puzzle in the text")
    first_line, first = lines[0]
    if _is_line_form(first):
        if len(lines) > 1:
            raise InstanceError(source, "extra content after a one-line puzzle", lines[1][0])
        return _parse_line(first, source, first_line, diagonal)
    return _parse_grid(lines, source, diagonal)


def _parse_line(body: str, source: str, line: int, diagonal: bool) -> SudokuInstance:
    if len(body) != 81:
        raise InstanceError(
            source, f"one-line puzzle must have 81 characters, got {len(body)}", line
        )
    bad = next((i for i, ch in enumerate(body, start=1) if ch not in LINE_CHARS), None)
    if bad is not None:  # told by place: a file's text is never quoted
        raise InstanceError(
            source,
            f"bad character at column {bad} of a one-line puzzle (digits, or . for empty)",
            line,
        )
    values = [0 if ch == "." else int(ch) for ch in body]
    grid = tuple(tuple(values[r * 9 : r * 9 + 9]) for r in range(9))
    return SudokuInstance(3, grid, diagonal)


def _parse_grid(lines: list[tuple[int, str]], source: str, diagonal: bool) -> SudokuInstance:
    rows: list[tuple[int, ...]] = []
    width = len(lines[0][1].split())
    for number, body in lines:
        tokens = body.split()
        if len(tokens) != width:
            raise InstanceError(
                source,
                f"ragged rows: this row has {len(tokens)} numbers, the first {width}",
                number,
            )
        row = []
        for column, token in enumerate(tokens, start=1):
            try:
                row.append(int(token))
            except ValueError:
                raise InstanceError(source, f"token {column} is not an integer", number) from None
        rows.append(tuple(row))
    if len(rows) != width:
        raise InstanceError(
            source, f"grid has {len(rows)} rows of {width} numbers; it must be square", lines[-1][0]
        )
    order = math.isqrt(width)
    if order * order != width:
        raise InstanceError(source, f"side {width} is not a square number (4, 9, 16, 25, ...)")
    for (number, _), row in zip(lines, rows, strict=True):
        for value in row:
            if not 0 <= value <= width:
                raise InstanceError(source, f"clue {value} outside 1..{width} (0 = empty)", number)
    return SudokuInstance(order, tuple(rows), diagonal)


def format_instance(instance: SudokuInstance) -> str:
    """The integer-grid form, columns aligned; ``parse`` reads it back unchanged."""
    width = len(str(instance.n))
    return "".join(" ".join(f"{v:>{width}}" for v in row) + "\n" for row in instance.grid)


def format_line(instance: SudokuInstance) -> str:
    """The 81-character line form of a 9x9 puzzle ('.' = empty)."""
    if instance.n != 9:
        raise ValueError("the one-line form exists for 9x9 only")
    return "".join(str(v) if v else "." for row in instance.grid for v in row)


def size_of(instance: SudokuInstance) -> str:
    return f"{instance.n}x{instance.n}"
