"""Writes ``blocks.py``: the small closed tours the constructive reference stitches together.

Run once at development time (``python scripts/make_knight_blocks.py``); the
reference itself never calls a solver. For every block shape h x w with 5 <= h, w <= 11
(not both odd) it asks CP-SAT for a closed tour that contains the four moves the
stitching step removes (see ``construct.py``), the way Parberry's divide-and-conquer
construction relies on hand-found "structured" base tours.
"""

from __future__ import annotations

from pathlib import Path

from ortools.sat.python import cp_model

from models.knights_tour.rules import KNIGHT_MOVES

SIDES = range(5, 12)


def merge_moves(h: int, w: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The directed moves a block's tour must make for stitching (see construct.py).

    Right and left moves join blocks in a row, bottom and top moves join block rows;
    their directions make every stitch splice two directed cycles into one. A side of 5
    only occurs on a board 5 squares wide (one block row or column), so a 5 x w block
    needs only the row moves and an h x 5 block only the column moves (5 x 6 holds no
    tour with all four).
    """
    row = [((0, w - 1), (2, w - 2)), ((3, 0), (1, 1))]
    column = [((h - 2, 2), (h - 1, 0)), ((1, 1), (0, 3))]
    if h == 5:
        return row
    if w == 5:
        return column
    return row + column


def base_tour(h: int, w: int) -> list[int]:
    """A directed closed tour of an h x w block making ``merge_moves``, as indices r*w+c."""
    model = cp_model.CpModel()
    arcs = {}
    for r in range(h):
        for c in range(w):
            for dr, dc in KNIGHT_MOVES:
                if 0 <= r + dr < h and 0 <= c + dc < w:
                    arcs[(r, c), (r + dr, c + dc)] = model.new_bool_var("")
    model.add_circuit([(a[0] * w + a[1], b[0] * w + b[1], x) for (a, b), x in arcs.items()])
    for a, b in merge_moves(h, w):
        model.add(arcs[a, b] == 1)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"no structured base tour for {h}x{w}")
    succ = {a[0] * w + a[1]: b[0] * w + b[1] for (a, b), x in arcs.items() if solver.value(x)}
    order, u = [], 0
    for _ in range(h * w):
        order.append(u)
        u = succ[u]
    return order


def main() -> None:
    lines = [
        '"""Base tours for the constructive reference (written by scripts/make_knight_blocks.py; do not edit).',
        "",
        "Each entry is a directed closed tour of an h x w block as 3-digit square indices r*w+c.",
        '"""',
        "",
        "BASE_TOURS: dict[tuple[int, int], str] = {",
    ]
    for h in SIDES:
        for w in SIDES:
            if h % 2 and w % 2:
                continue
            text = "".join(f"{u:03d}" for u in base_tour(h, w))
            chunks = [text[i : i + 81] for i in range(0, len(text), 81)]
            lines.append(f"    ({h}, {w}): (")
            lines += [f'        "{chunk}"' for chunk in chunks]
            lines.append("    ),")
    lines.append("}")
    Path(__file__).resolve().parent.parent.joinpath(
        "models", "knights_tour", "blocks.py"
    ).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
