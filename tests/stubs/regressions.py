"""A test-only ``bool-z3`` that carries one kind of regression, for the gate's own tests.

Registered through PUZZLE_BENCH_PLUGINS it replaces the real ``bool-z3`` (same name,
same solver, same model); ``BENCH_STUB_REGRESSION`` picks the regression:

- ``slow-build:F``: the build takes F times its CPU time (the extra spent spinning in
  Python: building the model again would count in Z3's context-wide rlimit), so the
  solver's work and counters are unchanged;
- ``wrong``: two cells of the answer are swapped, which the checker refuses;
- ``version``: the run reports another solver version.
"""

from __future__ import annotations

import os
import time

from models.base import Limits, ModelSize, Outcome
from models.sudoku.encodings.bool_z3 import BoolZ3

MODE, _, ARGUMENT = os.environ.get("BENCH_STUB_REGRESSION", "").partition(":")


class RegressedBoolZ3(BoolZ3):
    name = "bool-z3"

    def build(self, instance, limits: Limits) -> ModelSize:
        start = time.process_time()
        size = super().build(instance, limits)
        if MODE == "slow-build":
            until = time.process_time() + (float(ARGUMENT) - 1) * (time.process_time() - start)
            while time.process_time() < until:
                pass
        return size

    def solve(self, limits: Limits) -> Outcome:
        outcome = super().solve(limits)
        if MODE == "wrong" and outcome.solution:
            row = outcome.solution["grid"][0]
            row[0], row[1] = row[1], row[0]
        return outcome

    @classmethod
    def solver_version(cls) -> str:
        return "z3-solver 0.0.0-test" if MODE == "version" else ""
