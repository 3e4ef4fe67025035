"""Pictures and terminal text of a Sudoku board: clues dark and bold, filled digits blue."""

from __future__ import annotations

from typing import Any

from models.sudoku.rules import SudokuInstance

CLUE_COLOUR = "#111111"
FILL_COLOUR = "#1f5fbf"
DIAGONAL_SHADE = "#fde9b8"


def _answer(instance: SudokuInstance, solution: Any) -> list[list[int]]:
    if isinstance(solution, dict) and isinstance(solution.get("grid"), list):
        return solution["grid"]
    return [list(row) for row in instance.grid]


def draw(instance: SudokuInstance, solution: Any = None) -> Any:
    """A matplotlib Figure of the board; matplotlib is imported here so runs never pay for it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    n, k = instance.n, instance.order
    grid = _answer(instance, solution)
    side = max(4.0, 0.42 * n)
    fig = Figure(figsize=(side, side))
    ax = fig.add_axes((0.04, 0.03, 0.92, 0.89))
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    if instance.diagonal:
        for i in range(n):
            for r, c in ((i, i), (i, n - 1 - i)):
                ax.add_patch(Rectangle((c, r), 1, 1, color=DIAGONAL_SHADE, zorder=0))
    for i in range(n + 1):
        width = 2.2 if i % k == 0 else 0.6
        ax.plot([0, n], [i, i], color="black", linewidth=width, zorder=2)
        ax.plot([i, i], [0, n], color="black", linewidth=width, zorder=2)
    font = max(6.0, 15.0 - 0.3 * n)
    for r in range(n):
        for c in range(n):
            clue = instance.grid[r][c]
            value = clue or (grid[r][c] if r < len(grid) and c < len(grid[r]) else 0)
            if not value:
                continue
            ax.text(
                c + 0.5,
                r + 0.5,
                str(value),
                ha="center",
                va="center",
                fontsize=font,
                fontweight="bold" if clue else "normal",
                color=CLUE_COLOUR if clue else FILL_COLOUR,
                zorder=3,
            )
    kind = "Sudoku X" if instance.diagonal else "Sudoku"
    fig.suptitle(
        f"{kind} {n}x{n}: {instance.clue_count} clues (bold), filled in blue", fontsize=10, y=0.97
    )
    return fig


def render(instance: SudokuInstance, solution: Any = None) -> str:
    """The board as text with box separators; '.' marks a cell left empty."""
    n, k = instance.n, instance.order
    grid = _answer(instance, solution)
    width = len(str(n))
    rule = "+".join(["-" * (k * (width + 1) + 1)] * k)
    lines = []
    for r in range(n):
        if r and r % k == 0:
            lines.append(rule)
        parts = []
        for b in range(k):
            cells = [
                f"{grid[r][c]:>{width}}" if grid[r][c] else "." * width
                for c in range(b * k, b * k + k)
            ]
            parts.append(" " + " ".join(cells) + " ")
        lines.append("|".join(parts).rstrip())
    return "\n".join(lines) + "\n"
