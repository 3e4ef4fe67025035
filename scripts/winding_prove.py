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
from winding_lexmin import Shapes, lexmin_clauses, other_in_a_window

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
    lexmin: Shapes = (),
    crossing: frozenset[tuple[int, int]] = frozenset(),
) -> tuple[str, list[list[Cell]] | None, int]:
    """("unique" | "other" | "undecided", the other cover's paths or None, SAT calls);
    "undecided" once ``total_conflicts`` are spent (a check's bound, in work, the
    question near the planted cover included; ``near_conflicts`` 0 skips that one).
    Each planted edge proved to be in every cover is added to ``proved`` (cell
    numbers). ``lexmin``: window shapes whose clauses leave the proof only the locally
    least covers (``winding_lexmin``); then "every cover" above means every cover left,
    which still proves the planted one unique. ``crossing``: edges (cell-number pairs),
    none of them planted, that every other cover is known to use one of (a composed
    plant's seams, ``winding_compose``): the proof refutes only the covers that do."""
    grid = grid_of(board)
    e, cnf, pool = degree_cnf(grid)
    index = {ab: i for i, ab in enumerate(grid.edges)}
    order = planted_edges(board, paths, index)
    planted = set(order)
    if any(index[ab] in planted for ab in crossing):
        raise ValueError("a crossing edge is planted: the clause would cut the planted cover")
    if crossing:
        cnf = [*cnf, [e[index[ab]] for ab in sorted(crossing)]]
    if lexmin:
        other_edges = other_in_a_window(grid, planted, lexmin)
        if other_edges is not None:
            found = paths_from_edges(grid, sorted(other_edges))
            return "other", [[tuple(c) for c in p] for p in found.values()], 0
        cnf = cnf + lexmin_clauses(grid, e, lexmin)
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
