"""More searches for the race of ``_race.py``: the CNF of ``degree-sat`` and the
route-and-fill local search of ``fill-sat``, each resumable in turns counted in work.

Why in a race of scan searches: boards with many covers and few long paths
(``gen:`` boards, planted ones) have covers whose paths touch themselves, so the corner
rules find none and the complete scan search thrashes; there the local fill finds a
cover in a few thousand moves, and the CNF answers the denser ones in thousands of
conflicts (``instances/numberlink/README.md``). Each keeps the contract of a race member
(``step(budget)`` returns ``FOUND``, ``EXHAUSTED`` or 0 for budget spent; ``paths()``;
``counters()``):

* ``CnfSearch`` (complete): a turn is one SAT call of ``budget`` conflicts. A model whose
  chosen edges hold detached cycles is joined into a cover or cut away (the cuts hold for
  every cover), as ``degree-sat`` does; an unsatisfiable formula is a proof that no cover
  exists, so its ``EXHAUSTED`` proves ``infeasible``.
* ``CnfSearch`` with ``degree-sat``'s ``assume_unique`` (not complete): the corner rules
  of ``scanline-numba``'s ``assume_unique`` as clauses (no 2x2 block with three edges,
  lanes), valid only for covers in which no path touches itself. Where the corner search
  thrashes on long parallel strands that can only turn together (sparse boards from
  40x40 up), CDCL learns the collective doom the scan order cannot see
  (``docs/experiments/numberlink-frontier.md``, "The corner rules as clauses"). Its
  covers are full covers; its ``EXHAUSTED`` only takes it out of the race.
* ``FillSearch`` (not complete): a turn is ``budget`` units of work (a hole move scans
  the free cells: one unit each), a fresh routing every ``fill_sat.STEPS`` moves; a
  state without free cells is a cover. It gives up (``EXHAUSTED``, never a proof) when the routing's colour count shows no fill can exist, or after
  ``fill_sat.STEPS_PER_CELL`` moves per cell, so on boards it cannot fill it costs a
  bounded share of the time. Seeded: its counters repeat for a seed.
"""

from __future__ import annotations

import random

from pysat.solvers import Solver

from models.base import Limits
from models.numberlink.encodings._common import grid_of
from models.numberlink.encodings._race import EXHAUSTED, FOUND
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.encodings.fill_sat import STEPS, STEPS_PER_CELL, FillSat, LocalFill
from models.numberlink.rules import Board
from models.solvers import solve_sat_conflicts

SPAN = FillSat({}).option("span")  # fill-sat's default span of a cut


class CnfSearch:
    """``degree-sat`` (at its defaults, or with ``options``), asked in conflict budgets."""

    def __init__(self, board: Board, options: dict | None = None):
        self.model = DegreeSat(options or {})
        self.model.build(board, Limits())
        self.sat = Solver(name=self.model.option("backend"), bootstrap_with=self.model.cnf)
        self.solution: dict | None = None
        self.rounds = self.cuts = 0

    def step(self, budget: int) -> int:
        answer = solve_sat_conflicts(self.sat, budget)
        if answer is None:
            return 0
        self.rounds += 1
        if answer is False:
            return EXHAUSTED
        self.solution, added = self.model.read_model(self.sat)
        self.cuts += added
        return 0 if self.solution is None else FOUND

    def paths(self) -> dict[str, list[list[int]]]:
        assert self.solution is not None
        return self.solution["paths"]

    def counters(self) -> dict[str, float]:
        stats = self.sat.accum_stats()
        return {"conflicts": stats.get("conflicts", 0), "rounds": self.rounds, "cuts": self.cuts}


class FillSearch:
    """``fill-sat``'s local search, ``budget`` units of work a turn."""

    def __init__(self, board: Board, seed: int):
        self.grid = grid_of(board)
        self.rng = random.Random(seed)
        self.fill: LocalFill | None = None
        self.moves = self.attempts = self.steps = 0
        self.limit = STEPS_PER_CELL * self.grid.n

    def step(self, budget: int) -> int:
        """Work ``budget`` units: a routing costs a unit a cell of the board, a hole move
        one a free cell (it scans them), so a turn takes about as long on any board."""
        done = 0
        while done < budget:
            if self.steps >= self.limit:
                return EXHAUSTED
            if self.fill is None or self.moves >= STEPS:
                self.attempts += 1
                fill = LocalFill(self.grid, self.rng, SPAN)
                done += self.grid.n
                if not fill.route():
                    self.fill, self.steps = None, self.steps + 1
                    continue
                if not fill.balanced():
                    return EXHAUSTED
                fill.grow()
                self.fill, self.moves = fill, 0
            if not self.fill.free:
                return FOUND
            done += len(self.fill.free) + 1
            self.fill.step()
            self.moves += 1
            self.steps += 1
        return 0

    def paths(self) -> dict[str, list[list[int]]]:
        assert self.fill is not None and not self.fill.free
        return self.fill.cover()

    def counters(self) -> dict[str, float]:
        return {"attempts": self.attempts, "steps": self.steps}
