"""Is a planted Numberlink cover the only full cover of its board? A complete SAT proof.

Used by ``make_winding_numberlink.py``. The board's CNF is ``degree-sat``'s (every end
has one chosen edge, every other cell two, a chosen edge joins equal colours, no 2x2
block uses all four edges; ``models/numberlink/encodings/degree_sat.py``). A full cover
is fixed by its edges, and the planted edges already give every cell its degree, so
the planted cover is the only one exactly when every planted edge is in every cover
(is a *backbone* literal). Each planted edge ``e`` is asked in turn, in one incremental
solver (``assumptions=[-e]``):

* unsatisfiable: ``e`` is in every cover, and the unit clause ``e`` is added (so later
  questions propagate it);
* a model: if its chosen edges form paths only, it is another full cover (it lacks
  ``e``), the answer ``other``; if they hold detached cycles, each cycle is first
  joined to a path by 2x2 swaps (``_common.join_cycles``; a cover found so that is not
  the planted one is an answer), else the cut "some edge leaves these cells" (valid:
  every cell lies on a path whose ends are outside) and the clause forbidding that
  cycle are added, and the question is asked again;
* undecided within the conflict budget: asked again in the next pass, after the other
  edges' units; a pass that proves nothing multiplies the budget by 4, up to
  ``max_conflicts``, past which the answer is ``undecided``; so is a check that has
  spent ``total_conflicts`` in all.

Before the edges one by one, a single question "is some planted edge unused?" (one
clause, switched on by an assumption) is asked under ``first_conflicts``: it finds
most other covers at once and proves small boards unique outright.

Before that, the same question in a solver of its own whose decisions lean to the
planted cover (its edges as the preferred phases), under ``near_conflicts``: the other
covers of a board the generator has just joined or split mostly differ from the planted
one in a small area, and a search that starts from the planted edges meets them within
a few hundred conflicts where an unbiased one wanders the board (24 joins of shipped
boards 17x17 to 36x20: the 16 with another cover 8.9 s in all against 81.2 s, the 8
unique ones 28.9 s against 24.4 s; ``docs/experiments/numberlink-frontier.md``). In a
solver of its own, because phases kept for the proof edge by edge made unique boards
1.5-2x slower to prove.

The default back end is CaDiCaL 1.9.5: on 16 checks of a 17x17 run it took 21 s where
Glucose 4 took 52 s and MapleChrono 246 s (the times are heavy-tailed, one check up to
28 s).

Every clause added holds for every full cover, so "all planted edges proved" is a
proof that the planted cover is unique. The budgets are counted in conflicts (not
seconds), so the verdict does not depend on the machine or its load.

``prove_unique_dp`` adds the exact count (``models.numberlink.frontier_count``,
complete, no budget but a cap on the frontiers of one layer) between a short and a
full ``prove_unique``: the planted edges the short one proved are forced in the count
(every cover has them, so the count is the same, through far fewer frontiers). One
cover is the proof; two covers stopped at step ``t`` of the scan means another cover
that agrees with the planted one on every cell after ``t``, which the SAT question
above then finds with those cells' edges fixed (a small problem); the cap reached
falls back to the full ``prove_unique``.
"""

from __future__ import annotations

import contextlib
import itertools

from pysat.formula import IDPool
from pysat.solvers import Solver

from models.numberlink.encodings._common import (
    Grid,
    boundary_edges,
    cycles_without_ends,
    grid_of,
    join_cycles,
    paths_from_edges,
    useless_edges,
)
from models.numberlink.encodings.degree_sat import (
    binary_colours,
    exactly,
    no_four_cycles,
    window_cuts,
)
from models.numberlink.frontier_count import count_covers
from models.numberlink.rules import Board
from models.solvers import solve_sat_conflicts

Cell = tuple[int, int]
WINDOWS = 3  # cut clauses up front for end-free rectangles up to this side
NEAR_CONFLICTS = 20_000  # the question near the planted cover (module docstring)


def planted_edges(board: Board, paths: list[list[Cell]], index: dict) -> list[int]:
    """The planted cover's edge indices, each path from both ends inward (the edges
    next to the ends are the cheapest to prove, and their units help the rest)."""
    cols, out = board.cols, []
    for p in sorted(paths, key=len):
        ids = []
        for a, b in itertools.pairwise(p):
            u, v = a[0] * cols + a[1], b[0] * cols + b[1]
            ids.append(index[(min(u, v), max(u, v))])
        lo, hi = 0, len(ids) - 1
        while lo <= hi:
            out.append(ids[lo])
            if hi != lo:
                out.append(ids[hi])
            lo, hi = lo + 1, hi - 1
    return out


def degree_cnf(grid: Grid) -> tuple[list[int], list[list[int]], IDPool]:
    """``degree-sat``'s clauses with its defaults' choices (binary colours, binomial
    degrees), and cut clauses up to ``WINDOWS``."""
    pool = IDPool()
    e = [pool.id(("e", i)) for i in range(len(grid.edges))]
    cnf: list[list[int]] = [[-e[i]] for i in useless_edges(grid)]
    for v in range(grid.n):
        deg = 1 if v in grid.end_of else 2
        cnf += exactly([e[i] for i in grid.incident[v]], deg, pool, "binomial")
    cnf += binary_colours(grid, e, pool)
    cnf += no_four_cycles(grid, e)
    cnf += window_cuts(grid, e, WINDOWS)
    return e, cnf, pool


def ask(sat, grid: Grid, e: list[int], planted: set[int], assume: list[int], budget: int):
    """One question under ``assume``: ("unsat" | "other" | "undecided", paths, calls).
    Models with detached cycles are joined into covers or cut away and asked again."""
    calls = 0
    while True:
        calls += 1
        answer = solve_sat_conflicts(sat, budget, assume)
        if answer is False:
            return "unsat", None, calls
        if answer is None:
            return "undecided", None, calls
        model = sat.get_model()
        used = [j for j in range(len(e)) if model[e[j] - 1] > 0]
        cycles = cycles_without_ends(grid, used)
        cover = set(used) if not cycles else join_cycles(grid, used)
        if cover is not None and cover != planted:
            found = paths_from_edges(grid, sorted(cover))
            return "other", [[tuple(c) for c in p] for p in found.values()], calls
        for cells in cycles:
            inside = set(cells)
            sat.add_clause([e[j] for j in sorted(set(boundary_edges(grid, cells)))])
            sat.add_clause([-e[j] for j in used if set(grid.edges[j]) <= inside])


def prove_unique(
    board: Board,
    paths: list[list[Cell]],
    first_conflicts: int = 2_000,
    max_conflicts: int = 200_000,
    backend: str = "cadical195",
    total_conflicts: int = 1_000_000,
    proved: set[tuple[int, int]] | None = None,
    near_conflicts: int = NEAR_CONFLICTS,
) -> tuple[str, list[list[Cell]] | None, int]:
    """("unique" | "other" | "undecided", the other cover's paths or None, SAT calls);
    "undecided" once ``total_conflicts`` are spent (a check's bound, in work, the
    question near the planted cover included; ``near_conflicts`` 0 skips that one).
    Each planted edge proved to be in every cover is added to ``proved`` (cell
    numbers)."""
    grid = grid_of(board)
    e, cnf, pool = degree_cnf(grid)
    index = {ab: i for i, ab in enumerate(grid.edges)}
    order = planted_edges(board, paths, index)
    planted = set(order)
    near = min(near_conflicts, total_conflicts)
    verdict, other, calls, spent = "undecided", None, 0, 0
    if near > 0:
        with Solver(name=backend, bootstrap_with=cnf) as sat:
            with contextlib.suppress(NotImplementedError):  # then it searches unbiased
                sat.set_phases([e[i] if i in planted else -e[i] for i in range(len(e))])
            sat.add_clause([-e[i] for i in order])
            verdict, other, calls = ask(sat, grid, e, planted, [], near)
            spent = sat.accum_stats().get("conflicts", 0)
    if verdict != "undecided":
        return ("unique" if verdict == "unsat" else "other"), other, calls
    with Solver(name=backend, bootstrap_with=cnf) as sat:
        # first the one question "is some planted edge unused?" under a small budget:
        # it finds most other covers at once and proves small boards unique outright
        act = pool.id("some planted edge unused")
        sat.add_clause([-act] + [-e[i] for i in order])
        verdict, other, n = ask(sat, grid, e, planted, [act], first_conflicts)
        calls += n
        if verdict != "undecided":
            return ("unique" if verdict == "unsat" else "other"), other, calls
        sat.add_clause([-act])
        budget = max(1, first_conflicts // 10)
        while order:
            left, progress = [], False
            for i in order:
                verdict, other, n = ask(sat, grid, e, planted, [-e[i]], budget)
                calls += n
                if verdict == "other":
                    return "other", other, calls
                if spent + sat.accum_stats().get("conflicts", 0) > total_conflicts:
                    return "undecided", None, calls
                if verdict == "unsat":
                    sat.add_clause([e[i]])
                    if proved is not None:
                        proved.add(grid.edges[i])
                    progress = True
                else:
                    left.append(i)
            order = left
            if order and not progress:
                if budget >= max_conflicts:
                    return "undecided", None, calls
                budget = min(max_conflicts, budget * 4)
    return "unique", None, calls


def other_within(
    rows: int, cols: int, paths: list[list[Cell]], free: set[Cell], budget: int
) -> tuple[str, list[list[Cell]] | None]:
    """Is there another cover that differs from the planted one only inside ``free``
    (cells)? ("other", its paths) | ("unsat" | "undecided", None) within ``budget``
    conflicts.

    A cheap filter before a whole-board proof: the other covers of a board just joined
    mostly differ near the join. Only the rectangle around ``free`` (one ring more) is
    encoded: its edges, every edge with a cell outside ``free`` fixed as planted, each
    cell's degree its planted degree inside the rectangle, and each cell on a planted
    path that path's colour. A model may join a path's pieces in another order: with the
    fixed rest of the board that is another cover unless it closes a cycle. A cycle is
    taken into a path by a 2x2 swap where one fits (``join_cycles``' move: the other
    cover may then differ one cell beyond ``free``), else forbidden and the question
    asked again. "unsat" proves nothing about the whole board."""
    r0 = max(0, min(r for r, _ in free) - 1)
    r1 = min(rows - 1, max(r for r, _ in free) + 1)
    c0 = max(0, min(c for _, c in free) - 1)
    c1 = min(cols - 1, max(c for _, c in free) + 1)
    inside = {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
    planted, colour, everywhere = set(), {}, set()
    for p in paths:
        for k, cell in enumerate(p):
            if k:
                everywhere.add(frozenset((p[k - 1], cell)))
            if cell in inside:
                colour.setdefault(id(p), len(colour))
                if k and p[k - 1] in inside:
                    planted.add(frozenset((p[k - 1], cell)))
    ends = {c for p in paths for c in (p[0], p[-1])}
    fixed, same = {}, []  # cells of known colour; pairs of cells of one colour
    for p in paths:
        at = [k for k, cell in enumerate(p) if cell in inside]
        if not at:
            continue
        for k in (at[0], at[-1]):  # inside, or by a fixed piece to one of the path's ends
            fixed[p[k]] = colour[id(p)]
        same += [(p[j], p[k]) for j, k in itertools.pairwise(at) if k > j + 1]
    pool = IDPool()
    edges = [
        frozenset((a, b))
        for a in sorted(inside)
        for b in ((a[0] + 1, a[1]), (a[0], a[1] + 1))
        if b in inside
    ]
    e = {ab: pool.id(ab) for ab in edges}
    degree = dict.fromkeys(inside, 0)
    for ab in planted:
        for cell in ab:
            degree[cell] += 1
    cnf: list[list[int]] = []
    at: dict[Cell, list[int]] = {cell: [] for cell in inside}
    for ab in edges:
        for cell in ab:
            at[cell].append(e[ab])
        if not ab <= free:
            cnf.append([e[ab]] if ab in planted else [-e[ab]])
    for cell in inside:
        cnf += exactly(at[cell], degree[cell], pool, "binomial")
    bits = max(1, (len(colour) - 1).bit_length())
    y = {cell: [pool.id(("y", cell, j)) for j in range(bits)] for cell in inside}
    for cell, k in fixed.items():  # a piece reaching an end of its path: that path's colour
        cnf += [[y[cell][j]] if k >> j & 1 else [-y[cell][j]] for j in range(bits)]
    for a, b in same:  # the two ends of a piece outside: one path, whichever it becomes
        for j in range(bits):
            cnf += [[-y[a][j], y[b][j]], [y[a][j], -y[b][j]]]
    for ab in edges:
        a, b = tuple(ab)
        for j in range(bits):
            cnf += [[-e[ab], -y[a][j], y[b][j]], [-e[ab], y[a][j], -y[b][j]]]
    differ = [-e[ab] for ab in planted if ab <= free]
    if not differ:
        return "unsat", None
    cnf.append(differ)
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        while True:
            answer = solve_sat_conflicts(sat, budget, [])
            if answer is not True:
                return ("unsat" if answer is False else "undecided"), None
            model = set(lit for lit in sat.get_model() if lit > 0)
            used = {ab for ab in edges if e[ab] in model}
            whole = {ab for ab in everywhere if not ab <= free} | used
            cycles = _cycles(whole, ends)
            cover = set(whole)
            while cycles and _absorb(cycles[0], cover):  # as join_cycles: a 2x2 swap
                cycles = _cycles(cover, ends)
            if not cycles:
                return "other", _walk(cover, paths)
            for cells in _cycles(whole, ends):
                if all(ab <= free for ab in whole if ab <= cells):  # a cut (valid: see ask)
                    sat.add_clause([e[ab] for ab in edges if len(ab & cells) == 1])
                else:  # pieces joined into a loop through the fixed rest: not these again
                    sat.add_clause([-e[ab] for ab in used if ab <= cells])


def _absorb(cells: set[Cell], cover: set[frozenset]) -> bool:
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


def _walk(cover: set[frozenset], paths: list[list[Cell]]) -> list[list[Cell]]:
    """The paths of the edge set ``cover``, each from the first end of a planted path."""
    adj: dict[Cell, list[Cell]] = {}
    for ab in cover:
        a, b = tuple(ab)
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    out = []
    for p in paths:
        walk = [p[0]]
        while len(walk) == 1 or len(adj[walk[-1]]) == 2:
            step = [q for q in adj[walk[-1]] if len(walk) == 1 or q != walk[-2]]
            walk.append(step[0])
        out.append(walk)
    return out


def _cycles(used: set[frozenset], ends: set[Cell]) -> list[set[Cell]]:
    """The components of ``used`` edges without an end: detached cycles."""
    adj: dict[Cell, list[Cell]] = {}
    for ab in used:
        a, b = tuple(ab)
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
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


def _after(board: Board, step: int, transposed: bool) -> list[int]:
    """Cells (r * cols + c) scanned after ``step`` by ``count_covers``."""
    rows, cols = board.rows, board.cols
    out = []
    for r in range(rows):
        for c in range(cols):
            at = c * rows + r if transposed else r * cols + c
            if at > step:
                out.append(r * cols + c)
    return out


def other_after(
    board: Board, paths: list[list[Cell]], step: int, transposed: bool, budget: int
) -> list[list[Cell]] | None:
    """The other cover the count saw: it uses the planted edges of every cell after
    ``step`` and no others there; None if SAT finds none within ``budget`` conflicts."""
    grid = grid_of(board)
    e, cnf, _ = degree_cnf(grid)
    index = {ab: i for i, ab in enumerate(grid.edges)}
    order = planted_edges(board, paths, index)
    planted = set(order)
    fixed = set(_after(board, step, transposed))
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        for i, (u, v) in enumerate(grid.edges):
            if u in fixed or v in fixed:  # decided at a cell after the step
                sat.add_clause([e[i] if i in planted else -e[i]])
        sat.add_clause([-e[i] for i in order])
        verdict, other, _ = ask(sat, grid, e, planted, [], budget)
    return other if verdict == "other" else None


def prove_unique_dp(
    board: Board,
    paths: list[list[Cell]],
    state_cap: int = 300_000,
    sat_first: int = 20_000,
    find_conflicts: int = 200_000,
    **sat_options,
) -> tuple[str, list[list[Cell]] | None, dict]:
    """("unique" | "other" | "undecided", the other cover or None, figures with
    ``prover``: the last one asked). In turn: ``prove_unique`` within ``sat_first``
    conflicts besides its question near the planted cover (it decides most boards in well
    under a second; 0: skipped); the exact
    count, with the planted edges SAT proved to be in every cover forced; given
    up when a layer holds more than ``state_cap`` frontiers (0: never); ``prove_unique`` with
    ``sat_options``' budget. "other" from the count may come without the cover (SAT
    did not rebuild it within ``find_conflicts``)."""
    proved: set[tuple[int, int]] = set()
    if sat_first > 0:  # the question near the planted cover on top of sat_first, once
        total = sat_options.get("total_conflicts", 1_000_000)
        near = min(sat_options.get("near_conflicts", NEAR_CONFLICTS), total)
        first = {**sat_options, "total_conflicts": min(sat_first, total) + near}
        verdict, other, calls = prove_unique(board, paths, proved=proved, **first)
        if verdict != "undecided":
            return verdict, other, {"prover": "sat", "calls": calls}
        sat_options = {**sat_options, "near_conflicts": 0}
    count, stats = count_covers(board, paths, state_cap, forced=proved)
    stats.update(prover="count", forced=len(proved))
    if count == 1:
        return "unique", None, stats
    if count == 2:
        other = other_after(board, paths, stats["step"], stats["transposed"], find_conflicts)
        return "other", other, stats
    if count == 0:
        raise ValueError("the planted paths are no cover of the board")
    verdict, other, calls = prove_unique(board, paths, **sat_options)
    stats.update(prover="sat", calls=calls)
    return verdict, other, stats
