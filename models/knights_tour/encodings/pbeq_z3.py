"""``pbeq-z3``: the brief's model (brief 002) — an Int per square holding its visiting number.

Distinct numbers 0..N-1; a square numbered c < N-1 has exactly one knight
neighbour numbered c+1, one numbered c > 0 has exactly one numbered c-1, and (closed
tours) the square numbered N-1 has a neighbour numbered 0. "Exactly one" is ``PbEq``
as in the seed; ``sum-z3`` subclasses this file and only swaps that one function.
The open variant drops the closing constraint.

Z3 front end: the brief's ``z3.Solver()`` is the default; ``z3_solver=SimpleSolver``
is offered because only that one gives repeatable ``rlimit count`` (DESIGN facts).
"""

from __future__ import annotations

from typing import Any, ClassVar

import z3

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.knights_tour.rules import KNIGHT_MOVES
from models.solvers import z3_counters


def _neighbours(rows: int, cols: int, r: int, c: int) -> list[tuple[int, int]]:
    return [(r + a, c + b) for a, b in KNIGHT_MOVES if 0 <= r + a < rows and 0 <= c + b < cols]


class PbEqZ3(Encoding):
    name = "pbeq-z3"
    puzzles = ("knights_tour",)
    solver = "z3"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"z3_solver": ("Solver", "SimpleSolver")}

    def exactly_one(self, conditions: list[z3.BoolRef]) -> z3.BoolRef:
        """Exactly one condition holds (the brief's PbEq with unit weights)."""
        if not conditions:
            return z3.BoolVal(False)
        return z3.PbEq([(cond, 1) for cond in conditions], 1)

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        rows, cols, closed = instance.rows, instance.cols, instance.closed
        n = rows * cols
        if limits.threads > 1:
            # Z3's SMT core is sequential on this logic; parallel mode is its only knob.
            z3.set_param("parallel.enable", True)
            z3.set_param("parallel.threads.max", limits.threads)
        self.z3 = z3.SimpleSolver() if self.option("z3_solver") == "SimpleSolver" else z3.Solver()
        self.rows, self.cols = rows, cols
        self.cells = {(r, c): z3.Int(f"c_{r}_{c}") for r in range(rows) for c in range(cols)}
        count = 0
        for cell in self.cells.values():
            self.z3.add(cell >= 0, cell <= n - 1)
            count += 2
        self.z3.add(z3.Distinct(list(self.cells.values())))
        count += 1
        for (r, c), cell in self.cells.items():
            around = [self.cells[sq] for sq in _neighbours(rows, cols, r, c)]
            self.z3.add(z3.Implies(cell < n - 1, self.exactly_one([x == cell + 1 for x in around])))
            self.z3.add(z3.Implies(cell > 0, self.exactly_one([x == cell - 1 for x in around])))
            count += 2
            if closed:
                self.z3.add(z3.Implies(cell == n - 1, self.exactly_one([x == 0 for x in around])))
                count += 1
        if closed and n == 1:
            self.z3.add(z3.BoolVal(False))  # no move leads back to the only square
            count += 1
        return ModelSize(n_vars=n, n_constraints=count)

    def solve(self, limits: Limits) -> Outcome:
        if limits.time_limit_s is not None:
            self.z3.set("timeout", max(1, int(limits.time_limit_s * 1000)))
        self.z3.set("random_seed", limits.seed)
        z3.set_param("smt.random_seed", limits.seed)
        answer = self.z3.check()
        counters = z3_counters(self.z3)
        if answer == z3.sat:
            model = self.z3.model()
            order = sorted(self.cells, key=lambda sq: model.eval(self.cells[sq], True).as_long())
            return Outcome(SOLVED, {"tour": [list(sq) for sq in order]}, counters)
        if answer == z3.unsat:
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(TIMEOUT, None, counters, message=self.z3.reason_unknown())
