"""Z3 solving, limits and statistics shared by the two Z3 encodings.

``z3.SimpleSolver()`` is used because its ``rlimit count`` repeats run to run (DESIGN
facts); Z3 runs single-threaded here, so ``limits.threads`` has no effect.
"""

from __future__ import annotations

import z3

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits, Outcome
from models.solvers import z3_counters


def new_solver(limits: Limits) -> z3.Solver:
    solver = z3.SimpleSolver()
    solver.set("random_seed", limits.seed)
    return solver


def run(solver: z3.Solver, limits: Limits, decode) -> Outcome:
    """Check under the time limit; ``decode(model)`` reads the grid from a model."""
    if limits.time_limit_s is not None:
        solver.set("timeout", max(1, int(limits.time_limit_s * 1000)))
    result = solver.check()
    counters = z3_counters(solver)
    if result == z3.sat:
        return Outcome(SOLVED, decode(solver.model()), counters)
    if result == z3.unsat:
        return Outcome(INFEASIBLE, None, counters)
    return Outcome(TIMEOUT, None, counters, solver.reason_unknown())
