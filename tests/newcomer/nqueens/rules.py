"""The board (a size and the given queens), its file form, checker, generator and pictures.

File form: n lines of n characters, ``Q`` a given queen and ``.`` an empty square. A
solution is ``{"queens": [[row, col], ...]}``, one queen a row.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from models.errors import InstanceError


@dataclass(frozen=True)
class Board:
    n: int
    given: tuple[tuple[int, int], ...]


def parse(text: str, source: str = "<text>") -> Board:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    given = []
    for r, line in enumerate(lines):
        if len(line) != len(lines) or set(line) - {"Q", "."}:
            raise InstanceError(
                source, f"expected {len(lines)} of 'Q' and '.', got {line!r}", r + 1
            )
        given += [(r, c) for c, ch in enumerate(line) if ch == "Q"]
    if not lines:
        raise InstanceError(source, "empty board")
    return Board(len(lines), tuple(given))


def format_board(board: Board) -> str:
    rows = [["."] * board.n for _ in range(board.n)]
    for r, c in board.given:
        rows[r][c] = "Q"
    return "\n".join("".join(row) for row in rows) + "\n"


def size_of(board: Board) -> str:
    return f"{board.n}x{board.n}"


def verify(board: Board, solution: Any) -> str | None:
    queens = [tuple(q) for q in (solution or {}).get("queens", [])]
    if len(queens) != board.n:
        return f"{len(queens)} queens on a board of {board.n}"
    for name, key in (("row", lambda q: q[0]), ("column", lambda q: q[1]),
                      ("diagonal", lambda q: q[0] - q[1]), ("anti-diagonal", lambda q: q[0] + q[1])):  # fmt: skip
        if len({key(q) for q in queens}) != board.n:
            return f"two queens share a {name}"
    if any(not (0 <= r < board.n and 0 <= c < board.n) for r, c in queens):
        return "a queen off the board"
    missing = set(board.given) - set(queens)
    return f"given queen {sorted(missing)[0]} moved" if missing else None


def _place(n: int, rng: random.Random, cols: list[int]) -> list[int] | None:
    if len(cols) == n:
        return cols
    r = len(cols)
    for c in rng.sample(range(n), n):
        if all(c != c2 and abs(c - c2) != r - r2 for r2, c2 in enumerate(cols)):
            found = _place(n, rng, [*cols, c])
            if found:
                return found
    return None


def generate(rows: int, cols: int, seed: int, given: int = 0) -> Board:
    """A random solution's first ``given`` queens (an empty board when none exists)."""
    if rows != cols:
        raise ValueError("an N-Queens board is square")
    solution = _place(rows, random.Random(seed), []) or []
    return Board(rows, tuple((r, c) for r, c in enumerate(solution[:given])))


def render(board: Board, solution: Any = None) -> str:
    queens = set(map(tuple, (solution or {}).get("queens", board.given)))
    return "\n".join(
        "".join("Q" if (r, c) in queens else "." for c in range(board.n)) for r in range(board.n)
    )


def draw(board: Board, solution: Any = None) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 3))
    ax = fig.add_subplot()
    ax.imshow([[(r + c) % 2 for c in range(board.n)] for r in range(board.n)], cmap="Greys")
    for r, c in (solution or {}).get("queens", board.given):
        ax.text(c, r, "Q", ha="center", va="center", color="tab:red")
    return fig
