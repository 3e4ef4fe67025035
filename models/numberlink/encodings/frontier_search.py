"""``frontier-search``: a complete backtracking search in plain Python (a reference).

A row-major frontier ("transfer matrix") DFS that memoises failed frontier states;
the search, its state and every pruning rule with the reason it is valid for any full
cover are described in ``_frontier.py``. It answers ``solved`` only with a full cover
(the harness verifies it), ``infeasible`` only when the whole search space is
exhausted (a proof: every rule that cuts is valid), and ``timeout`` when the time
limit runs out (checked every 4096 nodes).

Options: ``scan`` the direction of the scan (``auto``: along the shorter side, since
the frontier is one slot wider than the scanned rows and the number of frontier
states grows with its width); ``first`` which way a piece tries first; ``memo`` and
``nest`` switch the failed-state store and the nesting rule; ``restart`` (default
10000) restarts the DFS after ``restart * luby(i)`` nodes with a seeded random
east/south preference per cell (``limits.seed``), keeping every stored failed state
(each was searched to the end, so it stays a nogood under any order; the budgets grow
without bound, so the search stays complete). Restarts cut the heavy tail of
backtracking: an early mistake is found rows later, after the unrelated choices
elsewhere on the frontier were enumerated. Measurements: docs/experiments/numberlink-encodings.md.

Counters: ``nodes`` (cells entered), ``backtracks`` (states whose subtree failed and
were stored), ``memo_hits`` (states cut because they failed before), ``pruned``
(states cut by the nesting rule), ``failed_states`` (size of the store), ``restarts``.
All are deterministic.
"""

from __future__ import annotations

import platform
import time
from typing import Any, ClassVar

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import grid_of, paths_from_edges
from models.numberlink.encodings._frontier import FrontierSearch, Timeout


class FrontierSearchEncoding(Encoding):
    name = "frontier-search"
    puzzles = ("numberlink",)
    solver = "python"
    reference = True
    #: scan: "auto" runs along the shorter side; first: which way a piece tries first
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "scan": ("auto", "rows", "cols"),
        "first": ("toward", "south", "east"),
        "memo": (True, False),
        "nest": (True, False),
        "restart": (10000, 0, 1000, 100000),
    }

    @classmethod
    def solver_version(cls) -> str:
        return f"puzzle-bench frontier search (Python {platform.python_version()})"

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        self.board = instance
        rows, cols = instance.rows, instance.cols
        scan = self.option("scan")
        self.flip = scan == "cols" or (scan == "auto" and cols > rows)
        h, w = (cols, rows) if self.flip else (rows, cols)
        colour = [0] * (h * w)
        for k, ends in enumerate(instance.ends.values()):
            for r, c in ends:
                rr, cc = (c, r) if self.flip else (r, c)
                colour[rr * w + cc] = k + 1
        self.search = FrontierSearch(
            h,
            w,
            colour,
            memo=self.option("memo"),
            nest=self.option("nest"),
            first=self.option("first"),
            restart=self.option("restart"),
        )
        # nothing to build: the size recorded is the board's cells and edges
        self.grid = grid_of(instance)  # also maps the found edges back to paths
        return ModelSize(n_vars=rows * cols, n_constraints=len(self.grid.edges))

    def solve(self, limits: Limits) -> Outcome:
        deadline = None
        if limits.time_limit_s is not None:
            deadline = time.monotonic() + limits.time_limit_s
        search = self.search
        try:
            found = search.run(deadline, limits.seed)
        except Timeout:
            return Outcome(TIMEOUT, counters=self._counters(), message="time limit")
        if not found:
            return Outcome(INFEASIBLE, counters=self._counters(), message="search exhausted")
        return Outcome(SOLVED, {"paths": self._paths()}, self._counters())

    def _counters(self) -> dict[str, float]:
        s = self.search
        return {
            "nodes": s.nodes,
            "backtracks": s.backtracks,
            "memo_hits": s.memo_hits,
            "pruned": s.pruned,
            "failed_states": len(getattr(s, "failed", ())),
            "restarts": s.restarts,
        }

    def _paths(self) -> dict[str, list[list[int]]]:
        """The chosen edges, mapped back to the board's orientation, walked end to end."""
        grid = self.grid
        index = {edge: i for i, edge in enumerate(grid.edges)}
        s, cols = self.search, self.board.cols
        used = []
        for v in range(s.h * s.w):
            r, c = divmod(v, s.w)
            for flag, (r2, c2) in ((s.right[v], (r, c + 1)), (s.down[v], (r + 1, c))):
                if flag:
                    a, b = ((c, r), (c2, r2)) if self.flip else ((r, c), (r2, c2))
                    x, y = a[0] * cols + a[1], b[0] * cols + b[1]
                    used.append(index[(min(x, y), max(x, y))])
        return paths_from_edges(grid, used)
