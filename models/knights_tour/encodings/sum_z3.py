"""``sum-z3``: the brief's model with ``Sum(If(cond, 1, 0)) == 1`` in place of ``PbEq``.

The brief remarks that this form is slower; the benchmark measures by how much.
Everything else (variables, Distinct, closing, options) is ``pbeq-z3``'s.
"""

from __future__ import annotations

import z3

from models.knights_tour.encodings.pbeq_z3 import PbEqZ3


class SumZ3(PbEqZ3):
    name = "sum-z3"

    def exactly_one(self, conditions: list[z3.BoolRef]) -> z3.BoolRef:
        """Exactly one condition holds, as an arithmetic sum of 0/1 terms."""
        if not conditions:
            return z3.BoolVal(False)
        return z3.Sum([z3.If(cond, 1, 0) for cond in conditions]) == 1
