"""Pictures and text boards. matplotlib is imported lazily so the harness never pays for it."""

from __future__ import annotations

from typing import Any

from models.numberlink.rules import Board


def draw(board: Board, solution: dict[str, Any] | None = None) -> Any:
    """A figure of the grid, the labelled ends and each path as a coloured line."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    labels = board.labels
    cmap = matplotlib.colormaps["tab20" if len(labels) <= 20 else "gist_ncar"]
    # tab20 pairs each hue dark/light: take the ten dark hues first, then the light ones
    colour = {
        label: cmap((2 * i) % 20 + (i // 10) % 2 if len(labels) <= 20 else i / len(labels))
        for i, label in enumerate(labels)
    }
    scale = 0.45 if max(board.rows, board.cols) <= 15 else 0.3
    fig = Figure(figsize=(max(3.0, board.cols * scale), max(3.0, board.rows * scale)))
    ax = fig.add_subplot()
    ax.set_xlim(-0.5, board.cols - 0.5)
    ax.set_ylim(board.rows - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks([x - 0.5 for x in range(board.cols + 1)], labels=[])
    ax.set_yticks([y - 0.5 for y in range(board.rows + 1)], labels=[])
    ax.tick_params(length=0)
    ax.grid(True, color="0.8", linewidth=0.8)
    paths = (solution or {}).get("paths", {}) if isinstance(solution, dict) else {}
    for label, cells in paths.items():
        if label in colour and cells:
            ax.plot(
                [c for _, c in cells],
                [r for r, _ in cells],
                color=colour[label],
                linewidth=6 if board.rows <= 15 else 3,
                solid_capstyle="round",
                zorder=2,
            )
    font = 9 if max(board.rows, board.cols) <= 15 else 6
    for label, ends in board.ends.items():
        for r, c in ends:
            ax.scatter([c], [r], s=(font * 3.2) ** 2, color=colour[label], zorder=3, edgecolors="k")
            ax.text(c, r, label, ha="center", va="center", fontsize=font, zorder=4, weight="bold")
    state = "solved" if paths else "board"
    ax.set_title(f"Numberlink {board.rows}x{board.cols}, {len(labels)} pairs ({state})")
    fig.tight_layout()
    return fig


def render(board: Board, solution: dict[str, Any] | None = None) -> str:
    """Each cell shows its path's label (ends upper-case in the letter form are as given)."""
    shown = [[x if x is not None else "." for x in row] for row in board.cells]
    if isinstance(solution, dict):
        for label, cells in (solution.get("paths") or {}).items():
            for cell in cells or []:
                if isinstance(cell, (list, tuple)) and len(cell) == 2:
                    r, c = cell
                    if 0 <= r < board.rows and 0 <= c < board.cols and board.cells[r][c] is None:
                        shown[r][c] = str(label)
    width = max(len(x) for row in shown for x in row)
    sep = "" if width == 1 and board.form != "integer" else " "
    return "\n".join(sep.join(x.rjust(width) for x in row) for row in shown)
