"""Large winding boards from four unique ones: does a 2x2 of proved tiles stay unique?

    python docs/experiments/compose_tiles.py SEED CONFLICTS T1.txt T2.txt T3.txt T4.txt
    python docs/experiments/compose_tiles.py --per-edge SEED CONFLICTS T1.txt T2.txt T3.txt T4.txt

Places the four tiles (boards of one size, each with its ``.sol.json``), each turned and
mirrored at random by SEED, in a 2x2 (``scripts/winding_compose.py``, the generator's
``--plant compose``) and asks one SAT question of the whole board's CNF
(``scripts/winding_prove.py``'s ``degree_cnf``): does some cover use an edge across a seam?
Why that one question is the whole proof: every pair has both ends in one tile, so a cover
that crosses no seam is a cover of each tile by its own pairs, which is the tile's
planted one (each tile was proved unique); and a cover that crosses a seam is not the
planted one. Unsatisfiable: the composed board is unique at the tiles' density, and the
generator's densify (``--densify``) could then join paths across the seams. A model:
another cover crosses a seam (or a model with detached cycles, not checked here).
CONFLICTS bounds the question (CaDiCaL cannot be interrupted).

``--per-edge`` asks the same thing seam edge by seam edge, as the backbone proof asks
planted edges: the tiles' uniqueness added as clauses (for each tile and each planted edge
``p`` in it, "some seam edge of this tile is used, or ``p``": valid for every cover by the
argument above), then "is seam edge ``s`` used?" for each ``s`` in turn, within a budget
that grows fourfold after a pass that refutes none, each refuted edge kept as a unit.
Models with detached cycles are joined or cut as the generator's proof does
(``winding_prove.ask``); CONFLICTS bounds the whole run. Results in
``docs/experiments/numberlink-frontier.md``, "Large boards from four unique tiles".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_winding_numberlink import board_and_cover  # noqa: E402
from pysat.solvers import Solver  # noqa: E402
from winding_compose import compose  # noqa: E402
from winding_prove import ask, degree_cnf, planted_edges  # noqa: E402

from models.numberlink.encodings._common import grid_of  # noqa: E402
from models.solvers import solve_sat_conflicts  # noqa: E402


def seams_edge_by_edge(sat, grid, edge, board, paths, seam, tile, conflicts: int) -> str:
    """The ``--per-edge`` proof (module docstring): its verdict, in the one-question words."""
    index = {ab: i for i, ab in enumerate(grid.edges)}
    planted = planted_edges(board, paths, index)
    around: list[list[int]] = [[], [], [], []]  # each tile's seam edges
    for i in seam:
        for k in {tile(v) for v in grid.edges[i]}:
            around[k].append(edge[i])
    home = {i: tile(grid.edges[i][0]) for i in planted}  # no planted edge crosses a seam
    for k in range(4):
        for i in planted:
            if home[i] == k:
                sat.add_clause([*around[k], edge[i]])
    left, budget, planted_set = list(seam), 200, set(planted)
    while left:
        unproved = []
        for i in left:
            verdict, _, _ = ask(sat, grid, edge, planted_set, [edge[i]], budget)
            if verdict == "other":
                return "a cover crosses a seam"
            if verdict == "unsat":
                sat.add_clause([-edge[i]])
            else:
                unproved.append(i)
            if sat.accum_stats().get("conflicts", 0) > conflicts:
                return "undecided"
        spent = sat.accum_stats().get("conflicts", 0)
        print(
            f"  {len(left) - len(unproved)} of {len(left)} seam edges refuted at {budget} conflicts a question ({spent} in all)"
        )
        if len(unproved) == len(left):
            budget *= 4
        left = unproved
    return "unique"


def main() -> None:
    args = sys.argv[1:]
    per_edge = bool(args) and args[0] == "--per-edge"
    args = args[per_edge:]
    seed, conflicts = int(args[0]), int(float(args[1]))
    try:
        rows, cols, paths = compose([Path(t) for t in args[2:6]], seed)
    except (OSError, ValueError) as error:  # a missing tile, or tiles of two sizes
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    board, _ = board_and_cover(rows, cols, paths)  # the generator's: board and verified cover
    grid = grid_of(board)
    edge, cnf, _ = degree_cnf(grid)

    def tile(v: int) -> int:
        return 2 * (v // cols >= rows // 2) + (v % cols >= cols // 2)

    seam = [i for i, (a, b) in enumerate(grid.edges) if tile(a) != tile(b)]
    began = time.monotonic()
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        if per_edge:
            verdict = seams_edge_by_edge(sat, grid, edge, board, paths, seam, tile, conflicts)
        else:
            sat.add_clause([edge[i] for i in seam])
            answer = solve_sat_conflicts(sat, conflicts)
            verdict = {None: "undecided", False: "unique", True: "a model crosses a seam"}[answer]
        spent = sat.accum_stats().get("conflicts", 0)
    print(
        f"{rows}x{cols}, {len(paths)} pairs ({rows * cols / len(paths):.1f} cells/pair), "
        f"{len(seam)} seam edges: {verdict}, {spent} conflicts, {time.monotonic() - began:.1f} s"
    )


if __name__ == "__main__":
    main()
