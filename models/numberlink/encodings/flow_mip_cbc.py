"""The flow formulation (see ``_flow_model``) as a MIP through PuLP on its bundled CBC.

CBC can overrun its own time limit in the root LP; the harness's hard kill holds the
limit (DESIGN.md, solver facts).

Options (first = default): ``search=updepth`` (depth first, up branch first, cuts,
pump and heuristics off: ``_flow_mip.CBC_OPTIONS``) or ``default`` (CBC's own), and
``order=arcs`` (columns in the model's arc order) or ``name`` (PuLP's alphabetical
order). Neither setup wins on every board, so the suite case ``nl-cbc-search`` sweeps
both (docs/experiments/numberlink-encodings.md).
"""

from __future__ import annotations

from typing import ClassVar

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._flow_mip import CBC_OPTIONS, FlowMip
from models.numberlink.encodings._flow_model import VARIANTS
from models.numberlink.rules import Board


class FlowMipCbc(Encoding):
    name = "flow-mip-cbc"
    puzzles = ("numberlink",)
    solver = "cbc"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "search": ("updepth", "default"),
        "order": ("arcs", "name"),
        "variant": tuple(VARIANTS),
    }

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        variant = VARIANTS[self.option("variant")]
        self.mip = FlowMip(instance, order=self.option("order"), **variant)
        return self.mip.size()

    def solve(self, limits: Limits) -> Outcome:
        search = CBC_OPTIONS if self.option("search") == "updepth" else []
        return self.mip.solve_cbc(limits, search)
