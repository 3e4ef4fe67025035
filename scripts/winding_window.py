"""Questions about a window of a full Numberlink cover, the rest of the board fixed.

Each is a small SAT problem where the whole-board one takes seconds to minutes:

* ``other_within``: is there another cover that differs from the planted one only inside
  ``free``? The generator's batched densify (``make_winding_numberlink.improve_batched``)
  asks it before a whole-board proof: the other covers of a board just joined mostly
  differ near the join.
* ``rejoin_within``: a cover in which two ends ``a`` and ``b`` of different paths are no
  longer ends (their paths become one), no path touching itself, equal to the planted
  cover outside ``free``: a join of ends that are not neighbours, the paths near them
  routed anew. Only ends an odd number of steps apart can be joined so (on a
  chessboard colouring a path has one more cell of its ends' colour when both ends have
  it, as many of each otherwise; the board's surplus is fixed, so a and b differ in
  colour). The generator does not use it: on its shipped boards almost no pair of ends
  can be joined so (``docs/experiments/rejoin_rate.py``).

Both encode only the rectangle around ``free`` (one ring more): its edges, every edge
with a cell outside ``free`` fixed as planted, each cell's degree inside the rectangle
its planted one (``a`` and ``b`` one more), and colours as ``degree-sat``'s binary ones:
each path met in the rectangle a colour (``a``'s and ``b``'s paths one);
the first and last cells of a path inside the rectangle take that path's colour (they
reach its ends through fixed pieces), two cells joined by a fixed piece outside take one
colour; for ``rejoin_within`` also two neighbours not joined differ in colour (no path
touches itself inside the rectangle; a touch further out is checked on the cover). A
model may close a cycle with the fixed rest of the board: it is taken into a
path by a 2x2 swap where one fits (``join_cycles``' move: the cover may then differ one
cell beyond ``free``), else cut (a cycle inside ``free``: some edge leaves it) or
forbidden (a loop through the fixed rest), and the question is asked again. An answer
of either is a full cover of its board; "unsat" proves nothing about the whole board.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from pysat.formula import IDPool
from pysat.solvers import Solver
from winding_moves import _touches

from models.numberlink.encodings.degree_sat import exactly
from models.solvers import solve_sat_conflicts

Cell = tuple[int, int]
Edge = frozenset  # of two cells


def within(rows: int, cols: int, centre: set[Cell], radius: int) -> set[Cell]:
    """The cells at most ``radius`` rows and columns from some cell of ``centre``."""
    return {
        (r, c)
        for a, b in centre
        for r in range(max(0, a - radius), min(rows, a + radius + 1))
        for c in range(max(0, b - radius), min(cols, b + radius + 1))
    }


class _Window:
    """The CNF of the rectangle around ``free`` (module docstring); ``merge``: two ends
    of different paths that become inner cells of one path."""

    def __init__(self, rows, cols, paths, free: set[Cell], merge: tuple[Cell, Cell] | None):
        r0 = max(0, min(r for r, _ in free) - 1)
        r1 = min(rows - 1, max(r for r, _ in free) + 1)
        c0 = max(0, min(c for _, c in free) - 1)
        c1 = min(cols - 1, max(c for _, c in free) + 1)
        inside = {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
        self.free, self.paths = free, paths
        self.ends = {c for p in paths for c in (p[0], p[-1])} - set(merge or ())
        owner = {c: k for k, p in enumerate(paths) for c in (p[0], p[-1])}
        joined = {owner[c] for c in merge} if merge else set()
        key = {k: (min(joined) if k in joined else k) for k in range(len(paths))}
        self.planted: set[Edge] = set()
        self.everywhere: set[Edge] = set()
        colour: dict[int, int] = {}
        for k, p in enumerate(paths):
            for i, cell in enumerate(p):
                if i:
                    self.everywhere.add(frozenset((p[i - 1], cell)))
                if cell in inside:
                    colour.setdefault(key[k], len(colour))
                    if i and p[i - 1] in inside:
                        self.planted.add(frozenset((p[i - 1], cell)))
        fixed, same = {}, []  # cells of known colour; pairs of cells of one colour
        for k, p in enumerate(paths):
            at = [i for i, cell in enumerate(p) if cell in inside]
            if not at:
                continue
            for i in (at[0], at[-1]):  # inside, or by a fixed piece to one of the path's ends
                fixed[p[i]] = colour[key[k]]
            same += [(p[i], p[j]) for i, j in itertools.pairwise(at) if j > i + 1]
        self.pool = pool = IDPool()
        self.edges = [
            frozenset((a, b))
            for a in sorted(inside)
            for b in ((a[0] + 1, a[1]), (a[0], a[1] + 1))
            if b in inside
        ]
        self.e = e = {ab: pool.id(ab) for ab in self.edges}
        degree = dict.fromkeys(inside, 0)
        for ab in self.planted:
            for cell in ab:
                degree[cell] += 1
        for cell in merge or ():
            degree[cell] += 1
        self.cnf: list[list[int]] = []
        at_cell: dict[Cell, list[int]] = {cell: [] for cell in inside}
        for ab in self.edges:
            for cell in ab:
                at_cell[cell].append(e[ab])
            if not ab <= free:
                self.cnf.append([e[ab]] if ab in self.planted else [-e[ab]])
        for cell in inside:
            self.cnf += exactly(at_cell[cell], degree[cell], pool, "binomial")
        bits = max(1, (len(colour) - 1).bit_length())
        y = {cell: [pool.id(("y", cell, j)) for j in range(bits)] for cell in inside}
        for cell, k in fixed.items():
            self.cnf += [[y[cell][j]] if k >> j & 1 else [-y[cell][j]] for j in range(bits)]
        for a, b in same:
            for j in range(bits):
                self.cnf += [[-y[a][j], y[b][j]], [y[a][j], -y[b][j]]]
        for ab in self.edges:
            a, b = tuple(ab)
            for j in range(bits):
                self.cnf += [[-e[ab], -y[a][j], y[b][j]], [-e[ab], y[a][j], -y[b][j]]]
            if merge:  # no path touches itself: neighbours not joined differ in colour
                differ = [pool.id(("d", ab, j)) for j in range(bits)]
                self.cnf.append([e[ab], *differ])
                for j, d in enumerate(differ):
                    self.cnf += [[-d, y[a][j], y[b][j]], [-d, -y[a][j], -y[b][j]]]

    def covers(self, sat: Solver, budget: int) -> Iterator[tuple[str, set[Edge] | None]]:
        """("cover", its edges) for each model that makes a cover by paths (cycles taken
        in, cut or forbidden as the module docstring says), then ("unsat" | "undecided",
        None). The caller may add clauses between covers."""
        while True:
            answer = solve_sat_conflicts(sat, budget, [])
            if answer is not True:
                yield ("unsat" if answer is False else "undecided"), None
                return
            model = set(lit for lit in sat.get_model() if lit > 0)
            used = {ab for ab in self.edges if self.e[ab] in model}
            whole = {ab for ab in self.everywhere if not ab <= self.free} | used
            cover = set(whole)
            cycles = _cycles(cover, self.ends)
            while cycles and _absorb(cycles[0], cover):
                cycles = _cycles(cover, self.ends)
            if not cycles:
                yield "cover", cover
                continue
            for cells in _cycles(whole, self.ends):
                if all(ab <= self.free for ab in whole if ab <= cells):  # a cut
                    sat.add_clause([self.e[ab] for ab in self.edges if len(ab & cells) == 1])
                else:  # pieces joined into a loop through the fixed rest: not these again
                    sat.add_clause([-self.e[ab] for ab in used if ab <= cells])

    def forbid(self, sat: Solver, cover: set[Edge]) -> None:
        """Not this cover's edges inside ``free`` again."""
        sat.add_clause([-self.e[ab] for ab in self.edges if ab <= self.free and ab in cover])


def other_within(
    rows: int, cols: int, paths: list[list[Cell]], free: set[Cell], budget: int
) -> tuple[str, list[list[Cell]] | None]:
    """Another cover that differs from the planted one only inside ``free``: ("other",
    its paths) | ("unsat" | "undecided", None) within ``budget`` conflicts a call."""
    window = _Window(rows, cols, paths, free, None)
    differ = [-window.e[ab] for ab in window.planted if ab <= free]
    if not differ:
        return "unsat", None
    with Solver(name="cadical195", bootstrap_with=[*window.cnf, differ]) as sat:
        for verdict, cover in window.covers(sat, budget):
            if verdict == "cover":
                return "other", _walk(cover, [p[0] for p in paths])
            return verdict, None
    raise AssertionError("covers() ends with a verdict")


def rejoin_within(
    rows: int,
    cols: int,
    paths: list[list[Cell]],
    a: Cell,
    b: Cell,
    free: set[Cell],
    budget: int,
    tries: int = 8,
) -> list[list[Cell]] | None:
    """The cover with one path fewer in which the ends ``a`` and ``b`` (of two paths)
    are joined, equal to ``paths`` outside ``free`` and with no path touching itself
    (a cover whose changed paths touch themselves is forbidden and another asked, at
    most ``tries``); None if none is found within ``budget`` conflicts a call."""
    if a not in free or b not in free:
        return None
    (pa,) = [p for p in paths if a in (p[0], p[-1])]
    (pb,) = [p for p in paths if b in (p[0], p[-1])]
    if pa is pb:
        return None
    window = _Window(rows, cols, paths, free, (a, b))
    kept = [p for p in paths if p is not pa and p is not pb]
    starts = [p[0] for p in kept] + [pa[-1] if pa[0] == a else pa[0]]
    goal = {frozenset((p[0], p[-1])) for p in kept}
    goal.add(frozenset((starts[-1], pb[-1] if pb[0] == b else pb[0])))
    with Solver(name="cadical195", bootstrap_with=window.cnf) as sat:
        for verdict, cover in window.covers(sat, budget):
            if verdict != "cover" or tries == 0:
                return None
            tries -= 1
            out = _walk(cover, starts)
            changed = [p for p in out if any(c in free for c in p)]
            if {frozenset((p[0], p[-1])) for p in out} == goal and not any(
                _touches(p) for p in changed
            ):
                return out
            window.forbid(sat, cover)
    return None


def _absorb(cells: set[Cell], cover: set[Edge]) -> bool:
    """Swap a cycle edge and a parallel edge off the cycle, in a 2x2 block, for the
    block's other two sides (in ``cover``): the path through that edge takes the cycle
    in. False if no block allows it."""
    for ab in [ab for ab in cover if ab <= cells]:
        (r, c), (r2, c2) = sorted(ab)
        dr, dc = c2 - c, r2 - r  # the side step across the edge
        for s in (1, -1):
            x, y = (r + s * dr, c + s * dc), (r2 + s * dr, c2 + s * dc)
            side = frozenset((x, y))
            if side in cover and not side & cells:
                cover -= {ab, side}
                cover |= {frozenset(((r, c), x)), frozenset(((r2, c2), y))}
                return True
    return False


def _adjacency(edges: set[Edge]) -> dict[Cell, list[Cell]]:
    adj: dict[Cell, list[Cell]] = {}
    for ab in edges:
        a, b = tuple(ab)
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    return adj


def _walk(cover: set[Edge], starts: list[Cell]) -> list[list[Cell]]:
    """The paths of the edge set ``cover``, one from each of ``starts`` (ends)."""
    adj = _adjacency(cover)
    out = []
    for start in starts:
        walk = [start]
        while len(walk) == 1 or len(adj[walk[-1]]) == 2:
            step = [q for q in adj[walk[-1]] if len(walk) == 1 or q != walk[-2]]
            walk.append(step[0])
        out.append(walk)
    return out


def _cycles(used: set[Edge], ends: set[Cell]) -> list[set[Cell]]:
    """The components of ``used`` edges without an end: detached cycles."""
    adj = _adjacency(used)
    seen: set[Cell] = set()
    out = []
    for start in adj:
        if start in seen:
            continue
        comp, stack = {start}, [start]
        while stack:
            for q in adj[stack.pop()]:
                if q not in comp:
                    comp.add(q)
                    stack.append(q)
        seen |= comp
        if not comp & ends:
            out.append(comp)
    return out
