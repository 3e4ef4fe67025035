"""ilp-highs: the brief's 0-1 program (see _ilp.py) through PuLP on HiGHS (highspy)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import highspy
import pulp

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.sudoku.encodings._ilp import build_problem, decode


class IlpHighs(Encoding):
    """HiGHS in process. The status is read from HiGHS itself (model status and primal
    solution status), since PuLP maps a time-limited run with a point to "Optimal"."""

    name = "ilp-highs"
    puzzles = ("sudoku", "sudoku_x")
    solver = "highs"

    def build(self, instance, limits: Limits) -> ModelSize:
        self.prob, self.x, size = build_problem(instance)
        return size

    def solve(self, limits: Limits) -> Outcome:
        solver = pulp.HiGHS(
            msg=False,
            timeLimit=limits.time_limit_s,
            threads=limits.threads,
            random_seed=limits.seed,
        )
        with _quiet_stdout():  # highspy.Highs() prints a banner on stdout
            self.prob.solve(solver)
        highs = self.prob.solverModel
        info = highs.getInfo()
        counters = {
            "nodes": float(info.mip_node_count),
            "lp_iterations": float(info.simplex_iteration_count),
        }
        status = highs.getModelStatus()
        if info.primal_solution_status == 2:  # a feasible point: for Sudoku, a solution
            return Outcome(SOLVED, decode(self.x), counters)
        if status == highspy.HighsModelStatus.kInfeasible:
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(TIMEOUT, None, counters, highs.modelStatusToString(status))


@contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Point file descriptor 1 at /dev/null: the banner comes from C++, not sys.stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
