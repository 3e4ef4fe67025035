"""Route-and-fill local search, then ``degree-sat``: for boards with few long paths.

Such boards have many full covers, but the SAT model of ``degree-sat`` must find
long routes by propagation, which CDCL does badly (measurements:
``docs/experiments/numberlink-frontier.md``). The search below builds a cover the
other way round, from routes that are easy to find, then fills the board:

1. *route*: each pair by a breadth-first shortest path over free cells, pairs and
   neighbours in a random order; an attempt in which a pair finds no route ends;
2. *grow*: a path edge ``a-b`` whose parallel neighbours ``c-d`` (the other side of
   a 2x2 block) are both free becomes the detour ``a-c-d-b``, until none is left;
3. *holes*: for a random free cell ``u``, either two adjacent free cells beside a
   path edge are inserted as in *grow*, or, when ``u`` neighbours two cells
   ``x = p[i]`` and ``y = p[j]`` of one path with ``1 < j - i <= span``, the stretch
   ``p[i+1..j-1]`` is replaced by ``u`` (``x-u-y`` are adjacent, so it stays a path
   between the same ends; the cut cells become free and move the hole on).

A routing fixes the difference of dark and light free cells (chessboard colours), and
no step changes it: a detour takes one of each, and a cut stretch ``p[i+1..j-1]`` has
odd length and starts and ends on the colour of ``u``. So if the first routing leaves
it non-zero no attempt can fill the board, and the search stops at once.

Every step keeps each pair joined by one simple path and no cell on two paths, so a
state without free cells is a solution (which the puzzle's verifier checks anyway).
At most ``attempts`` attempts of ``STEPS`` hole moves, ``STEPS_PER_CELL`` moves per cell
in all (on small boards SAT is quicker than a long walk) and half the time limit,
seeded by the run's seed: within the time the counters ``attempts`` and ``steps``
repeat exactly. If no attempt fills the board, the model of ``degree-sat`` (with its
options) is solved in the time left. The local search never
claims "no solution", and the SAT loop claims it only when its formula is
unsatisfiable, so the encoding is complete.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import deque
from typing import ClassVar

from models.base import SOLVED, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import Grid
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.rules import Board
from models.solvers import effort_counters

STEPS = 2000  # hole moves per attempt before a fresh routing
STEPS_PER_CELL = 100  # hole moves in all, per cell of the board


class LocalFill:
    """One board's route-and-fill state: paths as cell lists, the free cells."""

    def __init__(self, grid: Grid, rng: random.Random, span: int):
        self.grid, self.rng, self.span = grid, rng, span
        self.paths: dict[int, list[int]] = {}
        self.free: set[int] = set()
        self.at: dict[int, tuple[int, int]] = {}  # cell -> (pair, index on its path)

    def neighbours(self, v: int) -> list[int]:
        rows, cols = self.grid.rows, self.grid.cols
        r, c = divmod(v, cols)
        return [
            v + d
            for d, ok in ((-cols, r > 0), (cols, r < rows - 1), (-1, c > 0), (1, c < cols - 1))
            if ok
        ]

    def route(self) -> bool:
        taken = set(self.grid.end_of)
        order = list(range(len(self.grid.pairs)))
        self.rng.shuffle(order)
        for k in order:
            start, goal = self.grid.pairs[k]
            came: dict[int, int] = {start: -1}
            queue = deque([start])
            while queue and goal not in came:
                here = queue.popleft()
                steps = self.neighbours(here)
                self.rng.shuffle(steps)
                for nxt in steps:
                    if nxt not in came and (nxt == goal or nxt not in taken):
                        came[nxt] = here
                        queue.append(nxt)
            if goal not in came:
                return False
            path = [goal]
            while came[path[-1]] != -1:
                path.append(came[path[-1]])
            taken.update(path)
            self.paths[k] = path[::-1]
        self.free = set(range(self.grid.n)) - taken
        for k in self.paths:
            self._index(k)
        return True

    def cover(self) -> dict[str, list[list[int]]]:
        """The paths as an answer (label -> cells), once no cell is free."""
        return {
            self.grid.labels[k]: [list(self.grid.cell(v)) for v in path]
            for k, path in self.paths.items()
        }

    def balanced(self) -> bool:
        """Whether the free cells hold as many dark cells as light ones."""
        cols = self.grid.cols
        return sum(1 if sum(divmod(v, cols)) % 2 else -1 for v in self.free) == 0

    def _index(self, k: int) -> None:
        for i, v in enumerate(self.paths[k]):
            self.at[v] = (k, i)

    def _detour(self, c: int, d: int) -> bool:
        """Insert the free neighbours ``c-d`` into a path edge beside them."""
        side = (1, -1) if abs(d - c) == self.grid.cols else (self.grid.cols, -self.grid.cols)
        for step in side:
            a, b = c + step, d + step
            if a not in self.neighbours(c) or b not in self.neighbours(d):
                continue
            (ka, ia), (kb, ib) = self.at.get(a, (-1, 0)), self.at.get(b, (-2, 0))
            if ka == kb and abs(ia - ib) == 1:
                path = self.paths[ka]
                path[max(ia, ib) : max(ia, ib)] = [c, d] if ia < ib else [d, c]
                self.free -= {c, d}
                self._index(ka)
                return True
        return False

    def grow(self) -> None:
        grown = True
        while grown:
            grown = False
            for k in list(self.paths):
                i = 0
                while i < len(self.paths[k]) - 1:
                    a, b = self.paths[k][i], self.paths[k][i + 1]
                    for c in self.neighbours(a):
                        d = c + b - a
                        if c in self.free and d in self.free and d in self.neighbours(b):
                            self.paths[k][i + 1 : i + 1] = [c, d]
                            self.free -= {c, d}
                            grown = True
                            break
                    i += 1
                self._index(k)

    def step(self) -> None:
        for c in sorted(self.free):
            for d in self.neighbours(c):
                if d in self.free and self._detour(c, d):
                    return
        hole = self.rng.choice(sorted(self.free))
        near = [self.at[x] for x in self.neighbours(hole) if x in self.at]
        cuts = [(k, i, j) for k, i in near for k2, j in near if k == k2 and 1 < j - i <= self.span]
        if not cuts:
            return
        k, i, j = self.rng.choice(cuts)
        cut = self.paths[k][i + 1 : j]
        self.paths[k][i + 1 : j] = [hole]
        for v in cut:
            del self.at[v]
        self.free.discard(hole)
        self.free.update(cut)
        self._index(k)


class FillSat(DegreeSat):
    name = "fill-sat"
    puzzles = ("numberlink",)
    solver = "pysat"
    option_choices: ClassVar[dict[str, tuple]] = {
        "attempts": (100, 0, 20, 400),
        "span": (16, 5, 25),
        **DegreeSat.option_choices,
    }

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.seed = limits.seed or 0
        return super().build(instance, limits)

    def solve(self, limits: Limits) -> Outcome:
        start = time.monotonic()
        rng = random.Random(self.seed)
        attempts = steps = 0
        # the search may use half the time; the SAT loop always gets the rest
        stop = None if limits.time_limit_s is None else start + limits.time_limit_s / 2
        budget = STEPS_PER_CELL * self.grid.n
        for _ in range(self.option("attempts")):
            if steps >= budget or (stop is not None and time.monotonic() > stop):
                break
            attempts += 1
            fill = LocalFill(self.grid, rng, self.option("span"))
            if not fill.route():
                continue
            if not fill.balanced():
                break
            fill.grow()
            for step in range(min(STEPS, budget - steps)):
                if not fill.free or (step % 64 == 0 and stop and time.monotonic() > stop):
                    break
                fill.step()
                steps += 1
            if not fill.free:
                cells = fill.cover()
                no_sat = dict.fromkeys(effort_counters(self.solver), 0)  # no SAT call made
                counters = {**no_sat, "attempts": attempts, "steps": steps}
                return Outcome(SOLVED, {"paths": cells}, counters)
        left = None
        if limits.time_limit_s is not None:
            left = max(0.0, limits.time_limit_s - (time.monotonic() - start))
        outcome = super().solve(dataclasses.replace(limits, time_limit_s=left))
        outcome.counters.update(attempts=attempts, steps=steps)
        return outcome
