"""Numberlink boards: the instance type, parsing of its three file forms, and formatting.

Three forms are read, told apart automatically:

* the *integer* form (the brief's ``numberlink01``): whitespace-separated integers,
  ``0`` = empty, every number > 0 exactly twice. Labels are the numbers in decimal
  (``"07"`` is label ``"7"``), so ``format`` writes them back without padding.
* the *letter* form (Flow Free / numberlink-gym): one row per line, ``.`` empty, any
  other non-blank character an endpoint, each exactly twice.
* the *headed* form that the dedicated solver thomasahle/numberlink reads: a line
  ``WIDTH HEIGHT``, then the board in the letter form. Its collection files hold many
  boards, each after its own header, with ``# ...`` comment lines; ``split`` cuts such
  a file into its boards, so ``FILE#N`` names the N-th, as for Sudoku collections.

A file is in the headed form when its first line is two integers and every other line
(at least one) is one token; else in the integer form when some line holds several
whitespace-separated tokens or every token is an integer; otherwise in the letter form.
That way a stray letter in an integer grid is reported as a non-integer token rather
than silently switching forms. A line that starts with ``#`` and a blank is a comment
in every form.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

from models.errors import InstanceError

INTEGER = "integer"
LETTER = "letter"
HEADED = "headed"
_INT = re.compile(r"[+-]?\d+")
_COMMENT = re.compile(r"\s*#(\s|$)")

Cell = tuple[int, int]


@dataclass(frozen=True)
class Board:
    """A Numberlink board: ``cells[r][c]`` is the endpoint label there or ``None``."""

    rows: int
    cols: int
    cells: tuple[tuple[str | None, ...], ...]
    form: str = INTEGER

    @cached_property
    def ends(self) -> dict[str, tuple[Cell, Cell]]:
        """label -> (first end, second end) in reading order; labels sorted naturally."""
        found: dict[str, list[Cell]] = {}
        for r, row in enumerate(self.cells):
            for c, label in enumerate(row):
                if label is not None:
                    found.setdefault(label, []).append((r, c))
        return {k: (found[k][0], found[k][1]) for k in sorted(found, key=label_key)}

    @property
    def labels(self) -> list[str]:
        return list(self.ends)

    def neighbours(self, r: int, c: int) -> list[Cell]:
        out = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < self.rows and 0 <= cc < self.cols:
                out.append((rr, cc))
        return out


def label_key(label: str) -> tuple[int, int, str]:
    """Numbers sort numerically, other labels by their text."""
    return (0, int(label), "") if label.isdigit() else (1, 0, label)


def parse(text: str, source: str = "<text>") -> Board:
    """Parse any of the three forms; raise InstanceError naming source, line and problem."""
    tokens = _content(text)
    if not tokens:
        raise InstanceError(source, "empty board")
    integer_form = any(len(t) > 1 for _, t in tokens) or all(
        _INT.fullmatch(tok) for _, t in tokens for tok in t
    )
    if len(tokens) > 1 and _is_header(tokens[0][1]) and all(len(t) == 1 for _, t in tokens[1:]):
        rows, where, form = _headed_rows(tokens, source), [i for i, _ in tokens[1:]], HEADED
    elif integer_form:
        rows, where, form = _integer_rows(tokens, source), [i for i, _ in tokens], INTEGER
    else:
        rows, where, form = _letter_rows(tokens, source), [i for i, _ in tokens], LETTER
    width = len(rows[0])
    for line_no, row in zip(where, rows, strict=True):
        if len(row) != width:
            raise InstanceError(
                source, f"ragged rows: {len(row)} cells here, {width} in the first row", line_no
            )
    seen: dict[str, list[tuple[int, int]]] = {}  # label -> (line, column) of each
    for line_no, row in zip(where, rows, strict=True):
        for column, label in enumerate(row, start=1):
            if label is not None:
                seen.setdefault(label, []).append((line_no, column))
    if not seen:
        raise InstanceError(source, "no endpoints on the board")
    for label in sorted(seen, key=label_key):
        count = len(seen[label])
        if count != 2:
            line_no, column = seen[label][-1]
            # a number is named (the grammar read it as one); a letter only by its place
            name = f"number {label}" if form == INTEGER else f"the letter in column {column}"
            times = "once" if count == 1 else f"{count} times"
            raise InstanceError(
                source, f"{name} appears {times} (each must appear exactly twice)", line_no
            )
    return Board(len(rows), width, tuple(tuple(r) for r in rows), form)


def _content(text: str) -> list[tuple[int, list[str]]]:
    """(line number from 1, its tokens) for every line that is neither blank nor a comment."""
    return [
        (i, line.split())
        for i, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not _COMMENT.match(line)
    ]


def _is_header(tokens: list[str]) -> bool:
    return len(tokens) == 2 and all(_INT.fullmatch(tok) for tok in tokens)


def _headed_rows(tokens: list[tuple[int, list[str]]], source: str) -> list[list[str | None]]:
    """The rows after a ``WIDTH HEIGHT`` line, checked against it."""
    header_line, (width, height) = tokens[0][0], (int(t) for t in tokens[0][1])
    if width < 1 or height < 1:
        raise InstanceError(
            source, f"header {width} {height}: width and height must be > 0", header_line
        )
    rows = _letter_rows(tokens[1:], source)
    if len(rows) != height:
        raise InstanceError(
            source,
            f"the header says {height} rows (WIDTH HEIGHT = {width} {height}), the board has "
            f"{len(rows)}",
            header_line,
        )
    for (line_no, _), row in zip(tokens[1:], rows, strict=True):
        if len(row) != width:
            raise InstanceError(
                source, f"{len(row)} cells in this row, the header says {width} columns", line_no
            )
    return rows


def split(text: str) -> list[tuple[int, str]]:
    """The boards of a collection file: one per ``WIDTH HEIGHT`` header, each with the line
    it starts on. A file that does not open with a header is one board (as before)."""
    lines = text.splitlines()
    content = _content(text)
    starts = [
        k
        for k, (_, toks) in enumerate(content)
        if _is_header(toks) and k + 1 < len(content) and len(content[k + 1][1]) == 1
    ]
    if not starts or starts[0] != 0 or len(starts) == 1:
        return [(1, text)]
    firsts = [content[k][0] for k in starts] + [len(lines) + 1]
    return [
        (first, "\n".join(lines[first - 1 : after - 1]) + "\n")
        for first, after in itertools.pairwise(firsts)
    ]


def _integer_rows(tokens: list[tuple[int, list[str]]], source: str) -> list[list[str | None]]:
    rows = []
    for line_no, toks in tokens:
        row: list[str | None] = []
        for column, tok in enumerate(toks, start=1):  # told by place: never quoted
            if not _INT.fullmatch(tok):
                raise InstanceError(source, f"token {column} is not an integer", line_no)
            value = int(tok)
            if value < 0:
                raise InstanceError(source, f"token {column} is a negative number", line_no)
            row.append(str(value) if value else None)
        rows.append(row)
    return rows


def _letter_rows(tokens: list[tuple[int, list[str]]], source: str) -> list[list[str | None]]:
    rows = []
    for _line_no, toks in tokens:
        (word,) = toks  # the form test guarantees one token per line
        rows.append([None if ch == "." else ch for ch in word])
    return rows


def format_board(board: Board) -> str:
    """The board in the form it was read in (parse(format(b)) == b)."""
    if board.form in (LETTER, HEADED):
        header = f"{board.cols} {board.rows}\n" if board.form == HEADED else ""
        return header + "".join("".join(x or "." for x in row) + "\n" for row in board.cells)
    width = max(len(x) for row in board.cells for x in row if x is not None)
    return "".join(" ".join((x or "0").rjust(width) for x in row) + "\n" for row in board.cells)


def size_of(board: Board) -> str:
    return f"{board.rows}x{board.cols}"


def letter_labels(count: int) -> list[str]:
    """Labels for the letter form: A-Z, a-z, digits, then other printable characters."""
    alphabet = [chr(x) for x in range(ord("A"), ord("Z") + 1)]
    alphabet += [chr(x) for x in range(ord("a"), ord("z") + 1)]
    alphabet += [str(d) for d in range(10)]
    alphabet += [ch for ch in "!$%&*+=?@^~<>/|" if ch != "."]
    if count > len(alphabet):
        raise ValueError(f"the letter form holds at most {len(alphabet)} pairs")
    return alphabet[:count]
