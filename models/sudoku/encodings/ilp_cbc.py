"""ilp-cbc: the seed's 0-1 program (see _ilp.py) through PuLP on the bundled CBC."""

from __future__ import annotations

import os
import re
import tempfile

import pulp

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
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
        fd, log_path = tempfile.mkstemp(prefix="cbc-", suffix=".log")
        os.close(fd)
        try:
            solver = pulp.COIN_CMD(
                path=_cbc_path(),
                msg=False,
                timeLimit=limits.time_limit_s,
                threads=limits.threads if limits.threads > 1 else None,
                options=options,
                logPath=log_path,
            )
            self.prob.solve(solver)
            with open(log_path, encoding="utf-8", errors="replace") as f:
                log = f.read()
        finally:
            os.unlink(log_path)
        counters = _counters(log)
        if self.prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
            return Outcome(SOLVED, decode(self.x), counters)
        proved = re.search(
            r"Result - (Problem proven infeasible|Linear relaxation infeasible)", log
        )
        if proved or (self.prob.status == pulp.LpStatusInfeasible and "Stopped" not in log):
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(TIMEOUT, None, counters, _result_line(log))


def _cbc_path() -> str | None:
    """The CBC binary bundled with PuLP (PULP_CBC_CMD is deprecated), else cbc on PATH."""
    bundled = getattr(pulp.PULP_CBC_CMD, "pulp_cbc_path", None)
    return bundled if bundled and os.access(bundled, os.X_OK) else None


def _counters(log: str) -> dict[str, float]:
    counters: dict[str, float] = {}
    for key, pattern in (
        ("nodes", r"Enumerated nodes:\s+(\d+)"),
        ("lp_iterations", r"Total iterations:\s+(\d+)"),
    ):
        match = re.search(pattern, log)
        if match:
            counters[key] = float(match.group(1))
    return counters


def _result_line(log: str) -> str:
    match = re.search(r"Result - (.*)", log)
    return match.group(1).strip() if match else "CBC gave no result line"
