"""Knight's-tour instances: the board, its file form, and the size label.

The file form is one line ``ROWS COLS`` optionally followed by the word ``open``
(a Hamiltonian path instead of a closed tour). Blank lines and ``#`` comments are
tolerated so instance files can carry a note about where they come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.errors import InstanceError

#: the eight knight moves (row delta, column delta)
KNIGHT_MOVES: tuple[tuple[int, int], ...] = (
    (1, 2),
    (2, 1),
    (-1, 2),
    (2, -1),
    (-2, 1),
    (1, -2),
    (-1, -2),
    (-2, -1),
)


@dataclass(frozen=True)
class Board:
    """A knight's-tour instance: a ``rows`` x ``cols`` board; ``closed`` asks for a cycle."""

    rows: int
    cols: int
    closed: bool = True

    @property
    def squares(self) -> int:
        return self.rows * self.cols

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        """Squares a knight reaches from (r, c), in KNIGHT_MOVES order."""
        return [
            (r + dr, c + dc)
            for dr, dc in KNIGHT_MOVES
            if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols
        ]


def parse(text: str, source: str = "<text>") -> Board:
    """Read ``ROWS COLS [open]``; every other form is an InstanceError naming the line."""
    found: Board | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if found is not None:
            raise InstanceError(source, "extra line after the board size", number)
        tokens = line.split()
        if len(tokens) < 2:
            raise InstanceError(
                source, f"expected 'ROWS COLS [open]', got {len(tokens)} token", number
            )
        sizes = []
        for place, token in zip(("ROWS", "COLS"), tokens[:2], strict=True):
            try:
                value = int(token)
            except ValueError:
                raise InstanceError(
                    source, f"board size {place} is not an integer", number
                ) from None
            if value < 1:
                raise InstanceError(source, f"board size {value} is below 1", number)
            sizes.append(value)
        closed = True
        if len(tokens) >= 3:
            if tokens[2].lower() != "open":
                raise InstanceError(
                    source, "unknown word after the size (only 'open' may follow it)", number
                )
            closed = False
        if len(tokens) > 3:
            raise InstanceError(source, f"extra tokens after 'open' ({len(tokens) - 3})", number)
        found = Board(sizes[0], sizes[1], closed)
    if found is None:
        raise InstanceError(source, "empty instance: expected 'ROWS COLS [open]'")
    return found


def format_board(board: Board) -> str:
    """The file text of ``board`` (parse(format_board(b)) == b)."""
    return f"{board.rows} {board.cols}{'' if board.closed else ' open'}\n"


def size_of(board: Board) -> str:
    return f"{board.rows}x{board.cols}"
