"""Pictures and text of a board and its tour.

matplotlib is imported inside ``draw`` so the harness never pays for it when it
only solves.
"""

from __future__ import annotations

from typing import Any

from models.knights_tour.rules import Board

#: boards above this many squares per side get a thin line and no numbers
LARGE_SIDE = 40
#: above this a line is a grey blur: the squares are coloured by visiting step instead
HUGE_SIDE = 150
#: boards above this many squares are rendered as a summary line, not numbers
TEXT_LIMIT = 2500


def _tour(solution: Any) -> list[list[int]] | None:
    """The tour list itself (not a copy: it may hold a million squares), or None."""
    if isinstance(solution, dict) and isinstance(solution.get("tour"), (list, tuple)):
        return list(solution["tour"]) or None
    return None


def draw(board: Board, solution: Any = None) -> Any:
    """A checkered board with the tour as a line, its start marked, the closing move dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tour = _tour(solution)
    if tour and max(board.rows, board.cols) > HUGE_SIDE:
        return _draw_huge(board, tour)
    large = max(board.rows, board.cols) > LARGE_SIDE
    side = 6.0 if not large else 9.0
    scale = side / max(board.rows, board.cols)
    fig, ax = plt.subplots(figsize=(max(2.5, board.cols * scale), max(2.5, board.rows * scale)))
    checker = (np.add.outer(np.arange(board.rows), np.arange(board.cols)) % 2).astype(float)
    if large:
        checker = np.zeros_like(checker)  # squares are sub-pixel: a flat background reads better
    ax.imshow(
        checker,
        cmap=matplotlib.colors.ListedColormap(["#f0d9b5", "#b58863"]),
        vmin=0,
        vmax=1,
        extent=(-0.5, board.cols - 0.5, board.rows - 0.5, -0.5),
        interpolation="nearest",
    )
    kind = "closed" if board.closed else "open"
    title = f"knight's tour {board.rows}x{board.cols} ({kind})"
    if tour:
        arr = np.asarray(tour, dtype=float)
        width = 1.6 if not large else max(0.05, 60.0 / max(board.rows, board.cols))
        ax.plot(arr[:, 1], arr[:, 0], color="#1f3b73", lw=width, zorder=2)
        if board.closed and len(tour) > 1:
            ax.plot(
                [arr[-1, 1], arr[0, 1]],
                [arr[-1, 0], arr[0, 0]],
                color="#c0392b",
                lw=max(width, 1.0),
                ls="--",
                zorder=3,
                label="closing move",
            )
        mark = 9 if not large else 7
        ax.plot(arr[0, 1], arr[0, 0], "o", color="#27ae60", ms=mark, zorder=4, label="start")
        ax.plot(arr[-1, 1], arr[-1, 0], "s", color="#c0392b", ms=mark * 0.7, zorder=4, label="end")
        if not large and board.rows * board.cols <= 400:
            for k, (r, c) in enumerate(tour):
                ax.text(
                    c,
                    r,
                    str(k),
                    ha="center",
                    va="center",
                    fontsize=7,
                    zorder=5,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
                )
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        title += f", {len(tour)} squares"
    else:
        title += ", no tour"
    ax.set_title(title)
    if large:
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        ax.set_xticks(range(board.cols))
        ax.set_yticks(range(board.rows))
        ax.tick_params(labelsize=7)
    ax.set_xlim(-0.5, board.cols - 0.5)
    ax.set_ylim(board.rows - 0.5, -0.5)
    fig.tight_layout()
    return fig


def _draw_huge(board: Board, tour: list) -> Any:
    """Each square coloured by when the tour visits it: shows how the route sweeps the board."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    squares = np.asarray(tour, dtype=np.int64)
    step = np.full((board.rows, board.cols), np.nan)
    step[squares[:, 0], squares[:, 1]] = np.arange(len(squares))
    scale = 8.0 / max(board.rows, board.cols)
    fig, ax = plt.subplots(
        figsize=(max(3.0, board.cols * scale + 1.5), max(3.0, board.rows * scale))
    )
    image = ax.imshow(step, cmap="viridis", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="visiting step", fraction=0.046, pad=0.04)
    ax.plot(squares[0, 1], squares[0, 0], "o", color="#c0392b", ms=8, label="start")
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.02), fontsize=8, frameon=False)
    kind = "closed" if board.closed else "open"
    ax.set_title(
        f"knight's tour {board.rows}x{board.cols} ({kind}), {len(tour)} squares\n"
        "colour = visiting step (too many moves to draw as a line)"
    )
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    return fig


def render(board: Board, solution: Any = None) -> str:
    """The board with each square's visiting number (0 = start), or a summary if huge."""
    kind = "closed" if board.closed else "open"
    tour = _tour(solution)
    head = f"{board.rows}x{board.cols} knight's tour ({kind})"
    if not tour:
        return head + ": no tour"
    if board.rows * board.cols > TEXT_LIMIT:
        return (
            f"{head}: {len(tour)} squares, start {tour[0]}, end {tour[-1]} "
            f"(board too large to print the visiting numbers)"
        )
    order = [["." for _ in range(board.cols)] for _ in range(board.rows)]
    for k, square in enumerate(tour):
        r, c = square
        if 0 <= r < board.rows and 0 <= c < board.cols:
            order[r][c] = str(k)
    width = len(str(len(tour) - 1))
    lines = [head]
    lines += [" ".join(cell.rjust(width) for cell in row) for row in order]
    return "\n".join(lines)
