"""The flow formulation of ``flow-mip-*`` (see ``_flow_model``) on CP-SAT, row for row,
so the comparison separates the formulation from the solver. Flows are integer here
(they count cells, so nothing is lost)."""

from __future__ import annotations

import math
from typing import ClassVar

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import grid_of, paths_from_edges
from models.numberlink.encodings._flow_model import VARIANTS, flow_model, used_edges
from models.numberlink.rules import Board
from models.solvers import solve_cpsat


class FlowCpsat(Encoding):
    name = "flow-cpsat"
    puzzles = ("numberlink",)
    solver = "cp-sat"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"variant": tuple(VARIANTS)}

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.grid = grid_of(instance)
        lin = self.lin = flow_model(self.grid, **VARIANTS[self.option("variant")])
        model = self.model = cp_model.CpModel()
        self.vars = [
            model.new_bool_var(name)
            if (integer and ub == 1)
            else model.new_int_var(math.ceil(lb), math.floor(ub), name)  # CP-SAT takes ints only
            for name, lb, ub, integer in zip(
                lin.names, lin.lower, lin.upper, lin.integer, strict=True
            )
        ]
        for coeffs, sense, rhs in lin.rows:
            expr = sum(int(c) * self.vars[i] for i, c in coeffs.items())
            if sense == "<=":
                model.add(expr <= int(rhs))
            elif sense == ">=":
                model.add(expr >= int(rhs))
            else:
                model.add(expr == int(rhs))
        return ModelSize(len(self.vars), len(lin.rows))

    def solve(self, limits: Limits) -> Outcome:
        def decode(solver: cp_model.CpSolver) -> dict:
            values = [solver.value(v) for v in self.vars]
            used = used_edges(self.grid, self.lin, values)
            return {"paths": paths_from_edges(self.grid, used)}

        return solve_cpsat(self.model, limits, decode)
