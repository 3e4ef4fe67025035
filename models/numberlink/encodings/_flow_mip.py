"""The flow formulation (``_flow_model``) through PuLP, shared by ``flow-mip-cbc`` and
``flow-mip-highs``; no Encoding subclass lives here.

The model is a pure feasibility problem (objective 0), so any integer-feasible point
PuLP returns is a solution whatever status word comes with it; ``infeasible`` is
claimed only on the solver's own proof (HiGHS ``kInfeasible``; CBC's log line
"Result - Problem proven infeasible"), because PuLP says "Optimal" for a CBC run
stopped on time with a feasible point and "Infeasible" for some stopped runs too.
"""

from __future__ import annotations

import contextlib
import os
import sys

import pulp

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import Grid, grid_of, paths_from_edges
from models.numberlink.encodings._flow_model import LinearModel, flow_model, used_edges
from models.numberlink.rules import Board
from models.solvers import run_cbc

SENSE = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "==": pulp.LpConstraintEQ}


# HiGHS's root-node sub-MIP heuristics (reduced-cost, RINS, RENS) are off: on a
# feasibility model they cost more than they find (docs/experiments/numberlink-encodings.md).
HIGHS_OPTIONS = {
    "mip_heuristic_run_root_reduced_cost": False,
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_rens": False,
}

# CBC's ``updepth`` search: with a zero objective its pseudo-costs, cuts and feasibility
# pump learn nothing, so it goes depth first, up branch first (setting an arc to 1 fixes
# its colour and its neighbours), with cuts, pump and heuristics off. CBC breaks
# branching ties by column, hence ``order`` (docs/experiments/numberlink-encodings.md).
CBC_OPTIONS = ["nodeStrategy updepth", "cuts off", "feas off", "heur off"]


@contextlib.contextmanager
def _quiet_stdout():
    """Send file descriptor 1 to /dev/null for a moment (C-level prints included)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class FlowMip:
    """Builds the PuLP problem once; ``solve_with`` runs one back end on it."""

    def __init__(self, board: Board, order: str = "name", **model_options):
        """``order`` is the column order the solver sees (PuLP sorts columns by name):
        "name" = alphabetical names, "arcs" = the arcs in the model's own row-major
        order, then the colours, then the flows (CBC breaks branching ties by column).
        ``model_options`` go to ``flow_model`` (one of ``VARIANTS``)."""
        self.grid: Grid = grid_of(board)
        self.model: LinearModel = flow_model(self.grid, **model_options)
        m = self.model
        names = list(m.names)
        if order == "arcs":
            ranked = sorted(range(len(names)), key=lambda i: (i not in m.arcs, i))
            width = len(str(len(names)))
            for rank, i in enumerate(ranked):
                names[i] = f"c{rank:0{width}d}_{names[i]}"
        prob = pulp.LpProblem("numberlink_flow", pulp.LpMinimize)
        self.vars = [
            prob.add_variable(name, lb, ub, cat=pulp.LpInteger if integer else pulp.LpContinuous)
            for name, lb, ub, integer in zip(names, m.lower, m.upper, m.integer, strict=True)
        ]
        # feasibility: objective 0, on a column of the model (an empty objective makes PuLP
        # add a `__dummy` column, which would shift CBC's column order); a board may leave
        # no variable at all (`1 2 1 2`: every cell an end, no arc allowed): its rows then
        # read 0 == 1, which HiGHS and CBC prove infeasible themselves
        prob += pulp.LpAffineExpression([(v, 0.0) for v in self.vars[:1]])
        for j, (coeffs, sense, rhs) in enumerate(m.rows):
            expr = pulp.LpAffineExpression([(self.vars[i], c) for i, c in coeffs.items()])
            prob.addConstraint(pulp.LpConstraint(expr, SENSE[sense], rhs=rhs, name=f"r{j}"))
        self.prob = prob

    def size(self) -> ModelSize:
        return ModelSize(len(self.vars), len(self.model.rows))

    def solution(self) -> dict | None:
        values = [v.varValue for v in self.vars]
        if any(x is None for x in values):
            return None
        for x, integer in zip(values, self.model.integer, strict=True):
            if integer and abs(x - round(x)) > 1e-6:
                return None
        return {"paths": paths_from_edges(self.grid, used_edges(self.grid, self.model, values))}

    def solve_highs(self, limits: Limits) -> Outcome:
        import highspy

        solver = pulp.HiGHS(
            msg=False,
            timeLimit=limits.time_limit_s,
            threads=max(1, limits.threads),
            random_seed=limits.seed,
            **HIGHS_OPTIONS,
        )
        with _quiet_stdout():  # highspy prints a banner when PuLP creates the model
            self.prob.solve(solver)
        h = self.prob.solverModel
        status, info = h.getModelStatus(), h.getInfo()
        counters = {  # HiGHS says -1 for a count of a search it never started (presolve)
            "nodes": float(max(0, info.mip_node_count)),
            "lp_iterations": float(max(0, info.simplex_iteration_count)),
        }
        solution = self.solution() if info.primal_solution_status == 2 else None
        if solution is not None:
            return Outcome(SOLVED, solution, counters)
        if status == highspy.HighsModelStatus.kInfeasible:
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(TIMEOUT, None, counters, h.modelStatusToString(status))

    def solve_cbc(self, limits: Limits, search: list[str] = CBC_OPTIONS) -> Outcome:
        """``search``: CBC options after the seed (``[]`` leaves CBC's defaults)."""
        options = [f"randomCbcSeed {limits.seed + 1}", *search]
        status, counters, message = run_cbc(self.prob, limits, options)
        solution = self.solution() if status == SOLVED else None
        if solution is not None:
            return Outcome(SOLVED, solution, counters)
        if status == INFEASIBLE:
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(TIMEOUT, None, counters, message)
