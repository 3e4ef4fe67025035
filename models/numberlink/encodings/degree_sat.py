"""Degree CNF through PySAT with lazy elimination of detached cycles.

Variables: ``e[i]`` grid edge i is on a path, and a colour per cell: ``ceil(log2 K)``
bits (``colour=binary``, the default) or one-hot ``x[v][k]`` (``colour=onehot``).

* an end of pair k has colour k and exactly one incident edge; any other cell has
  exactly two incident edges (full cover). The degree constraints go through a named
  cardinality encoding (option ``card``: ``binomial`` writes the clauses of
  "exactly d of <= 4" directly; the others are ``pysat.card`` encodings);
* a used edge joins equal colours: ``e -> (x[a][k] <-> x[b][k])`` for every k (or for
  every bit);
* one-hot: at least one colour per cell, and at most one through ``pysat.card``
  (option ``amo``; implied once cycles are gone, stated because it propagates);
* edges between ends of different pairs are off (either end would get a second
  colour); no 2x2 block uses all four edges (a four-cycle without ends is detached).

Those clauses allow paths plus detached cycles. The loop solves, finds every
component of the chosen edges that holds no end (a cycle) and adds, for each, the
*cut* clause "some edge leaves this set of cells" (valid: every cell lies on a path
whose ends are outside the set) and the clause forbidding that exact cycle (option
``cut``); then it solves again in the same solver, keeping what it learnt. ``rounds``
counts solves, ``cuts`` the clauses added.

``repair=join`` (the default) first tries to join the cycles to paths by 2x2 edge
swaps (``_common.join_cycles``: degrees kept, so the result is a full cover by paths);
cuts are added only when some cycle cannot be joined, so the loop makes the same SAT
calls as ``repair=none`` and may stop after fewer of them.

``assume_unique`` (default off) adds the corner rules of published puzzles as clauses,
valid for every cover in which no path touches itself (no two cells of one path are
neighbours unless consecutive on it; ``scanline-numba``'s ``_scanline.py`` has them as
search rules). A run with it never answers ``infeasible``: an unsatisfiable formula is
reported as ``timeout`` with a message saying so (``no_touch_rules`` has the proofs).

Other options: ``backend`` the SAT solver (Glucose 4 by default); ``phases=detour``
a phase hint (each cell leans towards the pair it lies most directly between; only a
search hint); ``windows=S`` adds the cut clause up front for every end-free rectangle
up to S x S (valid as above). Measurements of these choices and of ideas dropped:
docs/experiments/numberlink-encodings.md.

CaDiCaL cannot be interrupted, so every back end runs ``solve_limited`` under a
conflict budget in chunks (a quarter of the time left, 0.5-5 s) and checks the clock
between them.
"""

from __future__ import annotations

import itertools
import time
from typing import ClassVar

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import (
    Grid,
    boundary_edges,
    grid_of,
    solution_or_cycles,
    useless_edges,
)
from models.numberlink.rules import Board
from models.solvers import solve_sat_within

NO_PROOF = "unsatisfiable under assume_unique: no proof of infeasibility"

CARD = {
    "seqcounter": EncType.seqcounter,
    "totalizer": EncType.totalizer,
    "sortnetwrk": EncType.sortnetwrk,
    "cardnetwrk": EncType.cardnetwrk,
}


def exactly(lits: list[int], d: int, pool: IDPool, how: str) -> list[list[int]]:
    """Clauses for "exactly d of lits"."""
    if how == "binomial":
        n = len(lits)
        if d > n:
            return [[]]
        most = [[-x for x in sub] for sub in itertools.combinations(lits, d + 1)]
        least = [list(sub) for sub in itertools.combinations(lits, n - d + 1)] if d else []
        return most + least + ([[-x] for x in lits] if d == 0 else [])
    return CardEnc.equals(lits, bound=d, vpool=pool, encoding=CARD[how]).clauses


def onehot_colours(
    grid: Grid, e: list[int], x: list[list[int]], pool: IDPool, amo: str
) -> list[list[int]]:
    """One-hot colour per cell; a used edge joins equal colours."""
    npairs = len(grid.pairs)
    cnf: list[list[int]] = []
    for v in range(grid.n):
        if v in grid.end_of:
            k0 = grid.end_of[v]
            cnf += [[x[v][k]] if k == k0 else [-x[v][k]] for k in range(npairs)]
            continue
        cnf.append(list(x[v]))
        if amo == "pairwise":
            cnf += [[-p, -q] for p, q in itertools.combinations(x[v], 2)]
        elif amo != "none" and npairs > 1:
            enc = EncType.ladder if amo == "ladder" else EncType.seqcounter
            cnf += CardEnc.atmost(x[v], 1, vpool=pool, encoding=enc).clauses
    for i, (a, b) in enumerate(grid.edges):
        for k in range(npairs):
            cnf.append([-e[i], -x[a][k], x[b][k]])
            cnf.append([-e[i], x[a][k], -x[b][k]])
    return cnf


def binary_colours(grid: Grid, e: list[int], pool: IDPool) -> list[list[int]]:
    """Colour as ceil(log2 K) bits per cell; a used edge joins equal bit patterns.
    Unused codes need no ban: a cell holding one lies on no path to an end, so on a
    detached cycle, which the loop removes anyway."""
    bits = max(1, (len(grid.pairs) - 1).bit_length())
    y = [[pool.id(("y", v, j)) for j in range(bits)] for v in range(grid.n)]
    cnf: list[list[int]] = []
    for v, k in grid.end_of.items():
        cnf += [[y[v][j]] if k >> j & 1 else [-y[v][j]] for j in range(bits)]
    for i, (a, b) in enumerate(grid.edges):
        for j in range(bits):
            cnf.append([-e[i], -y[a][j], y[b][j]])
            cnf.append([-e[i], y[a][j], -y[b][j]])
    return cnf


def window_cuts(grid: Grid, e: list[int], side: int) -> list[list[int]]:
    """Cut clauses given up front for every rectangle of cells, up to ``side`` x
    ``side``, that holds no end: some edge must leave it (each of its cells lies on a
    path whose ends are outside). They pre-empt the small cycles the loop would
    otherwise find one round at a time."""
    out = []
    for h in range(1, side + 1):
        for w in range(1, side + 1):
            if h * w < 4:
                continue
            for r in range(grid.rows - h + 1):
                for c in range(grid.cols - w + 1):
                    cells = [(r + i) * grid.cols + c + j for i in range(h) for j in range(w)]
                    if not any(v in grid.end_of for v in cells):
                        out.append([e[i] for i in sorted(set(boundary_edges(grid, cells)))])
    return out


def detour_phases(grid: Grid, pool: IDPool, onehot: bool) -> list[int]:
    """Preferred polarities: each free cell leans to the pair it lies most directly
    between (least detour ``|v s| + |v t| - |s t|``, Manhattan): that pair's one-hot
    literal, or its code's bits. Only a search hint."""

    def dist(u: int, v: int) -> int:
        (a, b), (c, d) = grid.cell(u), grid.cell(v)
        return abs(a - c) + abs(b - d)

    bits = max(1, (len(grid.pairs) - 1).bit_length())
    out = []
    for v in range(grid.n):
        if v not in grid.end_of:
            k = min(
                range(len(grid.pairs)),
                key=lambda k: (
                    dist(v, grid.pairs[k][0]) + dist(v, grid.pairs[k][1]) - dist(*grid.pairs[k])
                ),
            )
            if onehot:
                out.append(pool.id(("x", v, k)))
            else:
                out += [pool.id(("y", v, j)) * (1 if k >> j & 1 else -1) for j in range(bits)]
    return out


def no_four_cycles(grid: Grid, e: list[int]) -> list[list[int]]:
    """No 2x2 block uses all four of its edges (a detached 4-cycle). The block's edges
    by cell arithmetic, in edge order (``grid_of`` lists each cell's east edge, then its
    south one)."""
    cols, out = grid.cols, []
    at = {ab: i for i, ab in enumerate(grid.edges)}
    for r in range(grid.rows - 1):
        for c in range(cols - 1):
            v = r * cols + c
            block = ((v, v + 1), (v, v + cols), (v + 1, v + cols + 1), (v + cols, v + cols + 1))
            out.append([-e[i] for i in sorted(at[ab] for ab in block)])
    return out


def no_touch_rules(grid: Grid, e: list[int]) -> list[list[int]]:
    """Clauses that hold for every cover in which no path touches itself.

    * No 2x2 block uses three of its edges: three edges of a block make a path
      ``b - p - a - q`` around it, whose ends b and q are neighbours, on one path and not
      consecutive on it (a touch), unless the fourth edge closes a 4-cycle.
    * Lanes: an empty cell may turn towards a diagonal direction D (use the two edges
      of D's row and column directions) only if a number lies on its D-ray before the
      board edge. By the rule above, the inside cell ``p + D`` of a D-turn at p has no
      edge back to p's two path neighbours, so it is a number or, with two edges, a
      D-turn itself; ``p + D`` always lies on the board (p has neighbours in both of D's
      directions), so the chain of D-turns along the ray ends at a number.
    * Two neighbouring ends of one pair are joined directly: otherwise the path between
      them has its two ends next to each other and not consecutive.
    """
    cols, rows = grid.cols, grid.rows
    at = {ab: i for i, ab in enumerate(grid.edges)}
    out = []
    for r in range(rows - 1):
        for c in range(cols - 1):
            v = r * cols + c
            block = ((v, v + 1), (v, v + cols), (v + 1, v + cols + 1), (v + cols, v + cols + 1))
            for three in itertools.combinations(sorted(at[ab] for ab in block), 3):
                out.append([-e[i] for i in three])
    for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        rows_first = range(rows - 1, -1, -1) if dr == 1 else range(rows)
        number_on_ray = [[False] * cols for _ in range(rows)]
        for r in rows_first:
            for c in range(cols):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    number_on_ray[r][c] = rr * cols + cc in grid.end_of or number_on_ray[rr][cc]
        for r in range(rows):
            for c in range(cols):
                v = r * cols + c
                across = (v, v + 1) if dc == 1 else (v - 1, v)
                down = (v, v + cols) if dr == 1 else (v - cols, v)
                if v not in grid.end_of and not number_on_ray[r][c] and across in at and down in at:
                    out.append([-e[at[across]], -e[at[down]]])
    for a, b in grid.edges:
        if grid.end_of.get(a, -1) == grid.end_of.get(b, -2):
            out.append([e[at[(a, b)]]])
    return out


class DegreeSat(Encoding):
    name = "degree-sat"
    puzzles = ("numberlink",)
    solver = "pysat"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "backend": ("glucose4", "cadical153", "cadical195", "glucose42", "minisat22"),
        "card": ("binomial", "seqcounter", "totalizer", "sortnetwrk", "cardnetwrk"),
        "amo": ("ladder", "seqcounter", "pairwise", "none"),
        "cut": ("both", "boundary", "cycle"),
        "phases": ("none", "detour"),
        "colour": ("binary", "onehot"),
        "windows": (0, 2, 3, 4),
        "repair": ("join", "none"),
        "assume_unique": (False, True),
    }

    @classmethod
    def proves_infeasible(cls, options) -> bool:
        return not options.get("assume_unique", False)

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        grid = self.grid = grid_of(instance)
        pool = self.pool = IDPool()
        e = self.e = [pool.id(("e", i)) for i in range(len(grid.edges))]
        onehot = self.option("colour") == "onehot"
        ids = range(len(grid.pairs)) if onehot else ()
        x = [[pool.id(("x", v, k)) for k in ids] for v in range(grid.n)]
        cnf: list[list[int]] = []
        for i in useless_edges(grid):
            cnf.append([-e[i]])
        amo = self.option("amo")
        for v in range(grid.n):
            deg = 1 if v in grid.end_of else 2
            cnf += exactly([e[i] for i in grid.incident[v]], deg, pool, self.option("card"))
        cnf += onehot_colours(grid, e, x, pool, amo) if onehot else binary_colours(grid, e, pool)
        cnf += no_four_cycles(grid, e)
        cnf += window_cuts(grid, e, self.option("windows"))
        if self.option("assume_unique"):
            cnf += no_touch_rules(grid, e)
        self.cnf = cnf
        self.phases = detour_phases(grid, pool, onehot) if self.option("phases") == "detour" else []
        return ModelSize(pool.top, len(cnf))

    def solve(self, limits: Limits) -> Outcome:
        deadline = None if limits.time_limit_s is None else time.monotonic() + limits.time_limit_s
        rounds, cuts = 0, 0
        with Solver(name=self.option("backend"), bootstrap_with=self.cnf) as sat:
            if self.phases:
                sat.set_phases(self.phases)
            while True:
                rounds += 1
                answer, _ = solve_sat_within(sat, deadline)
                counters = {**sat.accum_stats(), "rounds": rounds, "cuts": cuts}
                if answer is None:
                    return Outcome(TIMEOUT, None, counters, "time limit")
                if answer is False and self.option("assume_unique"):
                    return Outcome(TIMEOUT, None, counters | {"exhausted": 1}, NO_PROOF)
                if answer is False:
                    return Outcome(INFEASIBLE, None, counters)
                solution, added = self.read_model(sat)
                if solution is not None:
                    return Outcome(SOLVED, solution, counters)
                cuts += added

    def read_model(self, sat) -> tuple[dict | None, int]:
        """The solver's model as a solution, or None with the cuts of its detached cycles
        added to ``sat`` (their count): every SAT loop over this CNF reads models so."""
        model, e, grid = sat.get_model(), self.e, self.grid
        used = [i for i in range(len(e)) if model[e[i] - 1] > 0]
        solution, cycles = solution_or_cycles(grid, used, self.option("repair") == "join")
        if solution is not None:
            return solution, 0
        added = 0
        for cells in cycles:
            for clause in self._cuts(grid, cells, used):
                sat.add_clause(clause)
                added += 1
        return None, added

    def _cuts(self, grid: Grid, cells: list[int], used: list[int]) -> list[list[int]]:
        e, how, inside = self.e, self.option("cut"), set(cells)
        out = []
        if how in ("both", "boundary"):
            out.append([e[i] for i in sorted(set(boundary_edges(grid, cells)))])
        if how in ("both", "cycle"):
            cyc = [i for i in used if grid.edges[i][0] in inside and grid.edges[i][1] in inside]
            out.append([-e[i] for i in cyc])
        return out
