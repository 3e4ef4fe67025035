"""Solver parameters and status mapping shared by the two CP-SAT encodings."""

from __future__ import annotations

from ortools.sat.python import cp_model

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits, Outcome
from models.solvers import cpsat_counters, cpsat_solver


def run(model: cp_model.CpModel, limits: Limits, decode) -> Outcome:
    """Solve with the run's limit, seed and workers; ``decode(solver)`` reads the grid."""
    solver = cpsat_solver(limits)
    status = solver.solve(model)
    counters = cpsat_counters(solver)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Outcome(SOLVED, decode(solver), counters)
    if status == cp_model.INFEASIBLE:
        return Outcome(INFEASIBLE, None, counters)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT: invalid model: {model.validate()}")
    return Outcome(TIMEOUT, None, counters, solver.status_name(status))
