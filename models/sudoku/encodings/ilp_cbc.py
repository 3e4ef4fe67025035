"""ilp-cbc: the brief's 0-1 program (see _ilp.py) through PuLP on the bundled CBC."""

from __future__ import annotations

from models.base import INFEASIBLE, SOLVED, Encoding, Limits, ModelSize, Outcome
from models.solvers import run_cbc
from models.sudoku.encodings._ilp import build_problem, decode


class IlpCbc(Encoding):
    """CBC as a command-line child of PuLP.

    Status comes from CBC's own log, not PuLP's ``status``: PuLP says "Optimal" for a
    run stopped by the limit that holds a feasible point (for Sudoku any integer point
    is a solution, so that is still ``solved``; but "infeasible" must be a proof).
    CBC may overrun its ``-sec`` limit in the root LP; the harness kills it then.
    Seed 0 keeps CBC's default random seed; other seeds set ``randomCbcSeed``.
    """

    name = "ilp-cbc"
    puzzles = ("sudoku", "sudoku_x")
    solver = "cbc"

    def build(self, instance, limits: Limits) -> ModelSize:
        self.prob, self.x, size = build_problem(instance)
        return size

    def solve(self, limits: Limits) -> Outcome:
        options = [f"randomCbcSeed {limits.seed}"] if limits.seed else []
        status, counters, message = run_cbc(self.prob, limits, options)
        if status == SOLVED:
            return Outcome(SOLVED, decode(self.x), counters)
        return Outcome(status, None, counters, "" if status == INFEASIBLE else message)
