"""The flow formulation (see ``_flow_model``) as a MIP through PuLP on HiGHS (highspy)."""

from __future__ import annotations

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._flow_mip import FlowMip
from models.numberlink.rules import Board


class FlowMipHighs(Encoding):
    name = "flow-mip-highs"
    puzzles = ("numberlink",)
    solver = "highs"

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.mip = FlowMip(instance)
        return self.mip.size()

    def solve(self, limits: Limits) -> Outcome:
        return self.mip.solve_highs(limits)
