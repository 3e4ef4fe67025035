"""Large winding boards from four unique ones: does a 2x2 of proved tiles stay unique?

    python docs/experiments/compose_tiles.py SEED CONFLICTS T1.txt T2.txt T3.txt T4.txt

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
CONFLICTS bounds the question (CaDiCaL cannot be interrupted). Results in
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
from winding_prove import degree_cnf  # noqa: E402

from models.numberlink.encodings._common import grid_of  # noqa: E402
from models.solvers import solve_sat_conflicts  # noqa: E402


def main() -> None:
    seed, conflicts = int(sys.argv[1]), int(float(sys.argv[2]))
    try:
        rows, cols, paths = compose([Path(t) for t in sys.argv[3:7]], seed)
    except (OSError, ValueError) as error:  # a missing tile, or tiles of two sizes
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    board, _ = board_and_cover(rows, cols, paths)  # the generator's: board and verified cover
    grid = grid_of(board)
    edge, cnf, _ = degree_cnf(grid)

    def quadrant(v: int) -> tuple[bool, bool]:
        return v // cols < rows // 2, v % cols < cols // 2

    seam = [i for i, (a, b) in enumerate(grid.edges) if quadrant(a) != quadrant(b)]
    began = time.monotonic()
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        sat.add_clause([edge[i] for i in seam])
        answer = solve_sat_conflicts(sat, conflicts)
        spent = sat.accum_stats().get("conflicts", 0)
    verdict = {None: "undecided", False: "unique", True: "a model crosses a seam"}[answer]
    print(
        f"{rows}x{cols}, {len(paths)} pairs ({rows * cols / len(paths):.1f} cells/pair), "
        f"{len(seam)} seam edges: {verdict}, {spent} conflicts, {time.monotonic() - began:.1f} s"
    )


if __name__ == "__main__":
    main()
