"""Which planned run goes next, and on which core.

Stop at the first timeout: a configuration (case, puzzle, encoding, options, seed,
threads) that hit its time or memory limit on a board of N cells is not run on its
boards of more than N cells (a timeout well inside the limit gave up, ``models.base.gave_up``,
and stops nothing). Those runs would only wait out the limit again (most of
what made the old ``all`` sweep take 36 minutes), so they are *not run* and recorded
as skipped (``bench.skips``), never as measured timeouts: charts show only what was
measured, and a PAR-2 that counts them must do so knowingly. Boards of the same size
still run (difficulty is not size alone), and so do all boards of a configuration
whose case sets ``stop_at_timeout = false``.

So that the runs taken do not depend on timing, a run waits while a smaller board of
its configuration is still planned or in flight; with ``--jobs`` > 1 other runs fill
the gap.

Cores: each concurrent local run gets a core of its own (``CoreSlots``), so two runs
never share one and a run's threads never wander; runs asking for more than one thread
are left unpinned (one core would starve them).
"""

from __future__ import annotations

import json
import os
from collections import Counter, deque
from collections.abc import Iterable

from bench.plan import PlannedRun
from models.base import MEMOUT, TIMEOUT, gave_up
from models.registry import cells_of

#: statuses that end a configuration's size sweep
LIMIT_HIT = (TIMEOUT, MEMOUT)


def config_key(run: PlannedRun) -> tuple:
    """What a size sweep keeps fixed: everything but the instance and the repeat."""
    options = json.dumps(run.options, sort_keys=True)
    return (run.case, run.puzzle, run.encoding, options, run.seed, run.threads)


class SizeGate:
    """Decides, for each queued run, whether it runs now, waits, or is skipped."""

    def __init__(self, todo: Iterable[PlannedRun], sizes: dict[tuple[str, str], str]):
        self._sizes = sizes
        #: id(run) -> (run, its config key, its cells): worked out once a run, since ``take``
        #: looks at every waiting run again on each call (the run is kept so its id stays its)
        self._known: dict[int, tuple[PlannedRun, tuple, int | None]] = {}
        self._cells_of: dict[tuple[str, str], int | None] = {}
        self._unfinished: dict[tuple, Counter[int]] = {}
        #: config -> (cells, size, instance) of its smallest board that hit a limit
        self.stopped: dict[tuple, tuple[int, str, str]] = {}
        #: config -> its runs taken out of the queue to wait for a smaller board (plan
        #: order), put back at the queue's front once that board finished: ``take`` never
        #: looks at a waiting run twice, so a plan with its large boards first (thousands
        #: of seeds) costs no scan of the waiting runs per run taken
        self._parked: dict[tuple, list[PlannedRun]] = {}
        self.parked = 0  # runs waiting there (not in the queue, not yet run)
        self._queue: deque[PlannedRun] | None = None
        for run in todo:
            key, n = self._info(run)
            if n is not None:
                self._unfinished.setdefault(key, Counter())[n] += 1

    def _info(self, run: PlannedRun) -> tuple[tuple, int | None]:
        known = self._known.get(id(run))
        if known is None or known[0] is not run:
            cells = None
            if run.stop_at_timeout:
                where = (run.puzzle, run.instance)
                if where not in self._cells_of:
                    self._cells_of[where] = cells_of(self._sizes.get(where))
                cells = self._cells_of[where]
            known = (run, config_key(run), cells)
            self._known[id(run)] = known
        return known[1], known[2]

    def finished(
        self, run: PlannedRun, status: str, started: bool = True, wall_s: float | None = None
    ) -> None:
        """Note a run's end (``started=False``: a run stored by an earlier session)."""
        key, n = self._info(run)
        self._known.pop(id(run), None)  # a run ends once: never looked at again
        if n is None:
            return
        if started and self._unfinished.get(key, Counter())[n] > 0:
            self._unfinished[key][n] -= 1
        hit = status in LIMIT_HIT and not gave_up(status, wall_s, run.time_limit_s)
        if hit and (key not in self.stopped or n < self.stopped[key][0]):
            self.stopped[key] = (n, self._sizes[(run.puzzle, run.instance)], run.instance)
        if key in self._parked:
            self._unpark(key)

    def _unpark(self, key: tuple, every: bool = False) -> None:
        """Put the parked runs of a config that need not wait any more (or are to be
        skipped now; ``every``: all) back at the front of the queue, in plan order."""
        free: list[PlannedRun] = []
        still: list[PlannedRun] = []
        for run in self._parked.pop(key):
            go = every or self.skip_reason(run) is not None or not self.waits(run)
            (free if go else still).append(run)
        if still:
            self._parked[key] = still
        self.parked -= len(free)
        if self._queue is not None:
            self._queue.extendleft(reversed(free))

    def unpark_all(self) -> None:
        """Every parked run back into the queue (a parent with nothing in flight)."""
        for key in list(self._parked):
            self._unpark(key, every=True)

    def skip_reason(self, run: PlannedRun) -> str | None:
        """Why ``run`` is not to be run, or None."""
        key, n = self._info(run)
        stop = None if n is None else self.stopped.get(key)
        if stop is None or n <= stop[0]:
            return None
        return f"not run: this configuration hit its limit on the smaller {stop[1]} ({stop[2]})"

    def waits(self, run: PlannedRun) -> bool:
        """True while a smaller board of the run's configuration is planned or in flight."""
        key, n = self._info(run)
        if n is None:
            return False
        pending = self._unfinished.get(key, Counter())
        return any(count > 0 and smaller < n for smaller, count in pending.items())

    def take(
        self, queue: deque[PlannedRun]
    ) -> tuple[PlannedRun | None, list[tuple[PlannedRun, str]]]:
        """The first queued run that may start now (removed from the queue), and the runs
        found skipped on the way (removed too, with their reasons). Runs that must wait
        are parked (``parked`` counts them) and come back to the queue's front when the
        smaller board they wait for finished (``finished``)."""
        skipped: list[tuple[PlannedRun, str]] = []
        chosen = None
        self._queue = queue
        while queue:  # the checks of skip_reason and waits, inline: this loop is hot
            run = queue.popleft()
            key, n = self._info(run)
            if n is not None:
                stop = self.stopped.get(key)
                if stop is not None and n > stop[0]:
                    reason = self.skip_reason(run)
                    self.finished(run, "")
                    skipped.append((run, reason))
                    continue
                pending = self._unfinished.get(key)
                if pending and any(c > 0 and smaller < n for smaller, c in pending.items()):
                    self._parked.setdefault(key, []).append(run)
                    self.parked += 1
                    continue
            chosen = run
            break
        return chosen, skipped


class CoreSlots:
    """One distinct core per concurrent run (when there are at least as many cores as jobs)."""

    def __init__(self, jobs: int, pin: bool = True):
        available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.enabled = pin and 0 < jobs <= len(available)
        self._free = deque(available[:jobs] if self.enabled else [])

    def acquire(self, run: PlannedRun) -> int | None:
        """A core for ``run``, or None (unpinned: pinning off, or a multi-threaded run)."""
        if not self.enabled or run.threads > 1 or not self._free:
            return None
        return self._free.popleft()

    def release(self, core: int | None) -> None:
        if core is not None:
            self._free.append(core)
