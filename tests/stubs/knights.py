"""Test-only stand-in encodings for the knight's tour (registered via PUZZLE_BENCH_PLUGINS).

They misbehave on purpose so the harness's hard limits, crash handling and cross-checks can
be tested against the real checker: one solves honestly (slowly if asked), one ignores its
limit and leaves a child process behind, one dies from a signal, one raises, one eats memory,
one answers wrong, one claims infeasible. ``STUB_PID_FILE`` (env) receives pids to check.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, ClassVar

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.knights_tour.rules import KNIGHT_MOVES


def _tour(rows: int, cols: int, closed: bool) -> tuple[list[list[int]] | None, int]:
    """Backtracking with Warnsdorff ordering; fine for the small boards the tests use."""
    n = rows * cols
    if closed and n % 2:  # a closed tour alternates colours, so it needs an even count
        return None, 0
    seen = [[False] * cols for _ in range(rows)]
    path: list[tuple[int, int]] = [(0, 0)]
    seen[0][0] = True
    nodes = 0

    def free(r: int, c: int) -> list[tuple[int, int]]:
        out = []
        for dr, dc in KNIGHT_MOVES:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and not seen[rr][cc]:
                out.append((rr, cc))
        return out

    def extend() -> bool:
        nonlocal nodes
        nodes += 1
        if len(path) == n:
            r, c = path[-1]
            return not closed or abs(r) * abs(c) == 2
        r, c = path[-1]
        if closed and len(path) < n - 1 and not any(not seen[a][b] for a, b in _ends(rows, cols)):
            return False  # no free square left to close the tour through
        for rr, cc in sorted(free(r, c), key=lambda sq: len(free(*sq))):
            seen[rr][cc] = True
            path.append((rr, cc))
            if extend():
                return True
            path.pop()
            seen[rr][cc] = False
        return False

    found = extend()
    return ([[r, c] for r, c in path] if found else None), nodes


def _ends(rows: int, cols: int) -> list[tuple[int, int]]:
    """Squares from which a knight returns to the start (0, 0)."""
    return [(r, c) for r, c in ((1, 2), (2, 1)) if r < rows and c < cols]


class _Stub(Encoding):
    puzzles = ("knights_tour",)
    solver = "stub"

    @classmethod
    def solver_version(cls) -> str:
        return os.environ.get("STUB_SOLVER_VERSION", "stub-1")  # a Dask worker's may differ

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        self.board = instance
        return ModelSize(instance.rows * instance.cols, 0)

    def _honest(self) -> Outcome:
        tour, nodes = _tour(self.board.rows, self.board.cols, self.board.closed)
        if tour is None:
            return Outcome(INFEASIBLE, counters={"nodes": nodes})
        return Outcome(SOLVED, {"tour": tour}, {"nodes": nodes})


def _note_pid(pid: int) -> None:
    path = os.environ.get("STUB_PID_FILE")
    if path:
        with open(path, "a") as out:
            out.write(f"{pid}\n")


class Honest(_Stub):
    """Solves by backtracking; ``delay`` seconds of sleep first make slow-ish runs."""

    name = "stub-ok"
    option_choices: ClassVar = {"delay": (0.0, 0.3, 0.6)}

    def solve(self, limits: Limits) -> Outcome:
        _note_pid(os.getpid())
        time.sleep(self.option("delay"))
        return self._honest()


class Spinner(_Stub):
    """Ignores its time limit: starts a sleeping child process, then spins in Python."""

    name = "stub-spin"

    def solve(self, limits: Limits) -> Outcome:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        _note_pid(os.getpid())
        _note_pid(child.pid)
        while True:
            pass


class Crasher(_Stub):
    """Dies from SIGABRT in the middle of the solve."""

    name = "stub-crash"

    def solve(self, limits: Limits) -> Outcome:
        os.abort()


class Raiser(_Stub):
    """Raises an exception: the harness records ``error`` with the message."""

    name = "stub-raise"

    def solve(self, limits: Limits) -> Outcome:
        raise RuntimeError("stub failure on purpose")


class Hog(_Stub):
    """Allocates memory fast until the memory limit stops it."""

    name = "stub-hog"

    def solve(self, limits: Limits) -> Outcome:
        blocks = []
        while True:
            blocks.append(bytearray(16 << 20))
            time.sleep(0.005)


class Liar(_Stub):
    """Returns a tour that is not one: the checker must refuse it."""

    name = "stub-wrong"

    def solve(self, limits: Limits) -> Outcome:
        tour = [[r, c] for r in range(self.board.rows) for c in range(self.board.cols)]
        return Outcome(SOLVED, {"tour": tour})


class Denier(_Stub):
    """Claims every board infeasible: wrong wherever another encoding found a tour."""

    name = "stub-infeasible"

    def solve(self, limits: Limits) -> Outcome:
        return Outcome(INFEASIBLE)


class Where(_Stub):
    """Solves honestly and reports the cores it may run on (counters ``cores``, ``core``);
    answers ``timeout`` at once on boards of ``limit_cells`` cells or more (0: never)."""

    name = "stub-where"
    option_choices: ClassVar = {"limit_cells": (64, 0), "delay": (0.0, 0.3)}

    def solve(self, limits: Limits) -> Outcome:
        allowed = sorted(os.sched_getaffinity(0))
        counters = {"cores": len(allowed), "core": allowed[0]}
        time.sleep(self.option("delay"))
        cells = self.board.rows * self.board.cols
        if self.option("limit_cells") and cells >= self.option("limit_cells"):
            return Outcome(TIMEOUT, counters=counters)
        outcome = self._honest()
        outcome.counters.update(counters)
        return outcome


class Late(_Stub):
    """Answers honestly, but only ``late`` seconds after its time limit (within the kill
    grace): an answer that came too late must be a timeout, whatever the solver family."""

    name = "stub-late"
    option_choices: ClassVar = {"late": (0.4,)}

    def solve(self, limits: Limits) -> Outcome:
        time.sleep((limits.time_limit_s or 0.0) + self.option("late"))
        return self._honest()


class Allocator(_Stub):
    """Holds ``mb`` megabytes of its own (touched) while it solves: its own peak memory."""

    name = "stub-alloc"
    option_choices: ClassVar = {"mb": (0, 80)}

    def solve(self, limits: Limits) -> Outcome:
        held = bytearray(self.option("mb") << 20)
        for i in range(0, len(held), 4096):
            held[i] = 1
        outcome = self._honest()
        del held
        return outcome
