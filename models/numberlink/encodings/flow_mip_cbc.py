"""The flow formulation (see ``_flow_model``) as a MIP through PuLP on its bundled CBC.

CBC can overrun its own time limit in the root LP; the harness's hard kill holds the
limit (DESIGN.md, solver facts).
"""

from __future__ import annotations

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._flow_mip import FlowMip
from models.numberlink.rules import Board


class FlowMipCbc(Encoding):
    name = "flow-mip-cbc"
    puzzles = ("numberlink",)
    solver = "cbc"

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.mip = FlowMip(instance, order="arcs")  # CBC's branching order, see FlowMip
        return self.mip.size()

    def solve(self, limits: Limits) -> Outcome:
        return self.mip.solve_cbc(limits)
