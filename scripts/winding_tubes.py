"""Plant sparse Numberlink covers as nested tubes, by SAT: the solver chooses the ends too.

Random joins of a cut Hamiltonian path stop near 40 cells per pair on large boards (past
that every join left makes a path touch itself); here a cell is an end (exactly 2K of
them, no two neighbours) with one edge, any other cell two; no 2x2 block uses three edges;
a cell turns towards a diagonal only if an end lies on that diagonal ray (the lane rule of
``degree_sat.no_touch_rules``, with the ends as variables); a component without an end is
cut ("some edge leaves it, or it holds an end") and a path that touches itself loses the
stretch between the two cells that touch ("not all of these edges"), and the solver is
asked again. Three cells forced to be ends (drawn from the seed) make the seeds differ,
since the solver itself is deterministic.

The lane rule holds for every cover whose paths do not touch themselves, so it adds no
constraint to such a cover; what differs from a random plant is the shape: the solver
places ends and paths together, and the covers come out as nested tubes of parallel paths
with staircase turns, as people draw large puzzles. ``make_winding_numberlink.py --plant
tubes`` starts its uniqueness loop from them (measured, not proved, to end sparser:
``docs/experiments/numberlink-frontier.md``, "Tube plants as the start of the uniqueness
loop"). Deterministic per seed (``docs/experiments/plant_numberlink_tubes.py`` writes the
``planted/t_*`` boards with it).
"""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from models.numberlink.encodings._common import Grid, boundary_edges, grid_of
from models.numberlink.encodings.degree_sat import exactly
from models.numberlink.rules import Board
from models.solvers import solve_sat_conflicts

CONFLICTS = 2_000_000  # per SAT call
FORCED_ENDS = 3


def formula(grid: Grid, pairs: int, pool: IDPool) -> tuple[list[int], list[int], list[list[int]]]:
    """Edge and end variables and the clauses of the module docstring (cuts come later)."""
    rows, cols = grid.rows, grid.cols
    at = {ab: i for i, ab in enumerate(grid.edges)}
    e = [pool.id(("e", i)) for i in range(len(grid.edges))]
    end = [pool.id(("end", v)) for v in range(grid.n)]
    cnf: list[list[int]] = []
    for v in range(grid.n):
        incident = [e[i] for i in grid.incident[v]]
        cnf += [[*clause, -end[v]] for clause in exactly(incident, 1, pool, "binomial")]
        cnf += [[*clause, end[v]] for clause in exactly(incident, 2, pool, "binomial")]
    cnf += CardEnc.equals(end, 2 * pairs, vpool=pool, encoding=EncType.seqcounter).clauses
    cnf += [[-end[a], -end[b]] for a, b in grid.edges]
    for r, c in itertools.product(range(rows - 1), range(cols - 1)):
        v = r * cols + c
        block = ((v, v + 1), (v, v + cols), (v + 1, v + cols + 1), (v + cols, v + cols + 1))
        cnf += [[-e[at[ab]] for ab in three] for three in itertools.combinations(block, 3)]
    for r, c in itertools.product(range(rows), range(cols)):
        v = r * cols + c
        for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            across = (v, v + 1) if dc == 1 else (v - 1, v)
            down = (v, v + cols) if dr == 1 else (v - cols, v)
            if across not in at or down not in at:
                continue
            steps = range(1, max(rows, cols))
            ray = [(r + k * dr, c + k * dc) for k in steps]
            ray = [end[x * cols + y] for x, y in ray if 0 <= x < rows and 0 <= y < cols]
            cnf.append([-e[at[across]], -e[at[down]], end[v], *ray])
    return e, end, cnf


def _walks(grid: Grid, used: list[int], ends: set[int]) -> tuple[list[list[int]], list[list[int]]]:
    """(paths from end to end, components without an end) of the chosen edges."""
    adj: dict[int, list[int]] = {v: [] for v in range(grid.n)}
    for i in used:
        a, b = grid.edges[i]
        adj[a].append(b)
        adj[b].append(a)
    seen: set[int] = set()
    paths, cycles = [], []
    for v in sorted(ends) + list(range(grid.n)):
        if v in seen:
            continue
        walk, previous = [v], -1
        seen.add(v)
        while True:
            ahead = [w for w in adj[walk[-1]] if w != previous and w not in seen]
            if not ahead:
                break
            previous = walk[-1]
            walk.append(ahead[0])
            seen.add(ahead[0])
        (paths if v in ends else cycles).append(walk)
    return paths, cycles


def plant(rows: int, cols: int, pairs: int, seed: int) -> list[list[tuple[int, int]]] | None:
    """A full cover of the empty R x C board with ``pairs`` paths, none touching itself, as
    cell lists; None when the solver finds none within ``CONFLICTS`` a call (the forced
    ends may allow none)."""
    rng = random.Random(seed)
    grid = grid_of(Board(rows, cols, tuple((None,) * cols for _ in range(rows))))
    at = {ab: i for i, ab in enumerate(grid.edges)}
    pool = IDPool()
    e, end, cnf = formula(grid, pairs, pool)
    forced = [end[v] for v in rng.sample(range(grid.n), FORCED_ENDS)]
    with Solver(name="glucose4", bootstrap_with=cnf) as sat:
        while solve_sat_conflicts(sat, CONFLICTS, forced) is True:
            model = sat.get_model()
            used = [i for i in range(len(e)) if model[e[i] - 1] > 0]
            ends = {v for v in range(grid.n) if model[end[v] - 1] > 0}
            paths, cycles = _walks(grid, used, ends)
            for cells in cycles:
                sat.add_clause(
                    [e[i] for i in sorted(set(boundary_edges(grid, cells)))]
                    + [end[v] for v in cells]
                )
            touched = 0
            for walk in paths:
                index = {v: k for k, v in enumerate(walk)}
                for k, v in enumerate(walk):
                    for w in (v + 1, v + cols):
                        j = index.get(w, k)
                        if (v, w) in at and abs(j - k) > 1:
                            lo, hi = sorted((k, j))
                            stretch = zip(walk[lo:hi], walk[lo + 1 : hi + 1], strict=True)
                            sat.add_clause([-e[at[min(a, b), max(a, b)]] for a, b in stretch])
                            touched += 1
            if not cycles and not touched:
                return [[divmod(v, cols) for v in walk] for walk in paths]
    return None
