"""``warnsdorff``: the constructive reference (no solver; answers verified like any other).

Closed tours on boards with both sides >= 5 (not both odd) come from block stitching
(``construct.stitched_tour``: stored closed tours of 5..11-sided blocks joined by
2-move swaps, Parberry-style divide and conquer); it closes 1000 x 1000 in well
under two seconds. A closed tour also serves an open instance. Every other board
(sides 3 or 4, odd x odd open tours) goes to Warnsdorff's rule with restarts.

It never claims ``infeasible``: where Schwenk's theorem (closed) or Conrad et al.
(open) says no tour exists it answers ``timeout`` at once with that reason, and it
gives up with ``timeout`` when its restarts or the time limit run out.
"""

from __future__ import annotations

import gc
import time
from typing import Any, ClassVar

from models.base import SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.knights_tour import construct


class Warnsdorff(Encoding):
    name = "warnsdorff"
    puzzles = ("knights_tour",)
    solver = "python"
    reference = True
    #: method: "auto" stitches blocks where it can, "warnsdorff" always walks
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "method": ("auto", "warnsdorff"),
        "max_restarts": (200, 2000, 20000),
    }

    @classmethod
    def solver_version(cls) -> str:
        import numpy

        return f"puzzle-bench construct (numpy {numpy.__version__})"

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        self.board = instance
        # nothing to build: the size recorded is the board's squares and moves
        n = instance.rows * instance.cols
        return ModelSize(n_vars=n, n_constraints=0)

    def solve(self, limits: Limits) -> Outcome:
        rows, cols, closed = self.board.rows, self.board.cols, self.board.closed
        exists = construct.closed_tour_exists if closed else construct.open_tour_exists
        kind = "closed" if closed else "open"
        if not exists(rows, cols):
            theorem = "Schwenk 1991" if closed else "Conrad et al. 1994"
            return Outcome(
                TIMEOUT,
                message=f"no {kind} tour on {rows}x{cols} ({theorem}); a reference does not "
                "claim infeasible",
            )
        method = self.option("method")
        if method == "auto" and construct.can_stitch(rows, cols):
            order, counters = construct.stitched_tour(rows, cols)
            return Outcome(SOLVED, {"tour": _squares(order.tolist(), cols)}, counters)
        deadline = None
        if limits.time_limit_s is not None:
            deadline = time.monotonic() + limits.time_limit_s
        path, counters = construct.warnsdorff(
            rows, cols, closed, limits.seed, deadline, self.option("max_restarts")
        )
        if path is None:
            return Outcome(TIMEOUT, counters=counters, message=f"no {kind} tour found; gave up")
        return Outcome(SOLVED, {"tour": _squares(path, cols)}, counters)


def _squares(order: list[int], cols: int) -> list[list[int]]:
    """[[r, c], ...] for square indices; a million small lists, so the GC is held off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [[u // cols, u % cols] for u in order]
    finally:
        if enabled:
            gc.enable()
