"""``race-numba-sat``: the path search of ``pathsearch-numba`` and the CNF of
``degree-sat`` in turns, in one thread; the first to answer wins.

Neither dominates on boards with few long paths: the path search (with its
``untouched_first`` race) answers most small and mid-sized puzzles in a millisecond,
where building the CNF alone takes longer, while SAT solves some winding boards in a
tenth of a second on which the path search runs out of time (measurements:
``instances/numberlink/README.md``). Taking turns costs at most about twice the faster
of the two.

Turns are counted in work, not time, so the counters repeat exactly: the path search
takes ``NODE_WORK // cells`` decisions a turn for each of its two searches (at least
``MIN_NODES``), SAT ``CONFLICTS`` conflicts. The first turn is the path search's alone:
on a board it answers at once the CNF is never built. Every answer is one of the two
complete methods' (``pathsearch-numba`` and ``degree-sat``): a cover either finds, a
search exhausted without the no-touch rule, or an unsatisfiable formula; so the
encoding is complete and never claims ``infeasible`` without a proof. Options are
``degree-sat``'s (for its half).
"""

from __future__ import annotations

import time
from typing import ClassVar

from pysat.solvers import Solver

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits, ModelSize, Outcome
from models.numberlink.encodings import _pathsearch as ps
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.encodings.pathsearch_numba import PathSearch
from models.numberlink.rules import Board
from models.solvers import effort_counters, solve_sat_conflicts

NODE_WORK = 400_000  # decisions x cells per turn (a decision costs about one board scan)
MIN_NODES = 100
CONFLICTS = 1_000


class RaceNumbaSat(DegreeSat):
    name = "race-numba-sat"
    puzzles = ("numberlink",)
    solver = "pysat"
    option_choices: ClassVar[dict[str, tuple]] = dict(DegreeSat.option_choices)

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.board = instance
        self.searches = [PathSearch(instance, True), PathSearch(instance, False)]
        self.all_searches = list(self.searches)
        self.turn_nodes = max(MIN_NODES, NODE_WORK // (instance.rows * instance.cols))
        n = instance.rows * instance.cols
        edges = instance.rows * (instance.cols - 1) + instance.cols * (instance.rows - 1)
        return ModelSize(n_vars=n, n_constraints=edges)

    def solve(self, limits: Limits) -> Outcome:
        deadline = None if limits.time_limit_s is None else time.monotonic() + limits.time_limit_s
        stats = {"turns": 0, "rounds": 0, "cuts": 0, "won_by_search": 0}
        sat = None
        try:
            while True:
                if deadline is not None and time.monotonic() >= deadline:
                    return self._out(TIMEOUT, None, sat, stats, "time limit")
                stats["turns"] += 1
                for search in list(self.searches):
                    code = search.step(self.turn_nodes)
                    if code == ps.SOLVED:
                        stats["won_by_search"] = 1
                        return self._out(SOLVED, {"paths": search.paths()}, sat, stats)
                    if code == ps.EXHAUSTED:
                        if search.meta[ps.UNIQUE] == 0:
                            stats["won_by_search"] = 1
                            return self._out(INFEASIBLE, None, sat, stats, "search exhausted")
                        self.searches.remove(search)  # the no-touch search only gives up
                if sat is None:
                    super().build(self.board, limits)
                    sat = Solver(name=self.option("backend"), bootstrap_with=self.cnf)
                    continue
                answer = solve_sat_conflicts(sat, CONFLICTS)
                if answer is None:
                    continue
                stats["rounds"] += 1
                if answer is False:
                    return self._out(INFEASIBLE, None, sat, stats)
                solution, added = self.read_model(sat)
                if solution is not None:
                    return self._out(SOLVED, solution, sat, stats)
                stats["cuts"] += added
        finally:
            if sat is not None:
                sat.delete()

    def _out(self, status, solution, sat, stats, message: str = "") -> Outcome:
        counters = dict.fromkeys(effort_counters(self.solver), 0)  # no SAT call yet
        if sat is not None:
            counters.update(sat.accum_stats())
        for search in self.all_searches:
            for key, value in search.counters().items():
                counters[key] = counters.get(key, 0) + value
        counters.update(stats)
        return Outcome(status, solution, counters, message)
