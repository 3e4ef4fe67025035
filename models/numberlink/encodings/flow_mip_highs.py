"""The flow formulation (see ``_flow_model``) as a MIP through PuLP on HiGHS (highspy)."""

from __future__ import annotations

from typing import ClassVar

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._flow_mip import FlowMip
from models.numberlink.encodings._flow_model import VARIANTS
from models.numberlink.rules import Board


class FlowMipHighs(Encoding):
    name = "flow-mip-highs"
    puzzles = ("numberlink",)
    solver = "highs"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"variant": tuple(VARIANTS)}

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.mip = FlowMip(instance, **VARIANTS[self.option("variant")])
        return self.mip.size()

    def solve(self, limits: Limits) -> Outcome:
        return self.mip.solve_highs(limits)
