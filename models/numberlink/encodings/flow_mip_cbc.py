"""The flow formulation (see ``_flow_model``) as a MIP through PuLP on its bundled CBC.

CBC can overrun its own time limit in the root LP; the harness's hard kill holds the
limit (DESIGN.md, solver facts).

Options (first = default): ``search=updepth`` (depth first, up branch first, cuts,
pump and heuristics off: ``_flow_mip.CBC_OPTIONS``) or ``default`` (CBC's own), and
``order=arcs`` (columns in the model's arc order) or ``name`` (PuLP's alphabetical
order). Measured on the seed board: updepth + arcs 50 nodes, 7 s; CBC's defaults in
alphabetical order 850 nodes, 128 s. But on gen_10x10_p5_s1 CBC's defaults in
alphabetical order solve at the root in 3.4 s (0 nodes) and updepth + arcs times out
at 120 s (5856 nodes), so the suites sweep both.
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
