"""Two searches of one board in turns: a complete one and one with a cover-only rule.

``pathsearch-numba`` (no path touches itself) and ``scanline-numba`` (concentric corners)
share this race. A search here is resumable: ``step(nodes)`` runs a fixed budget and
returns a code (solved, exhausted, or None for budget spent), ``next_solution(deadline)``
runs to the next cover or the deadline, ``paths()`` decodes its cover and ``counters()``
reports its work. The turns are counted in work (``race_nodes``), never in seconds, so
the counters repeat whatever the machine.

Why the answers stay sound: a cover found by either search is a full cover (a rule only
removes covers), so it is the answer; only the complete search, exhausted, proves
``infeasible``; with ``assume_unique`` the rule search runs alone and its exhaustion is a
``timeout`` that says so. No Encoding is registered from here (the class is abstract).

A *backup* (optional: ``build`` sets ``self.make_backup``, a callable that makes it): a
third, complete search of another kind, made when it joins the turns once
the first two have spent ``backup_after`` units between them without an answer, ``backup_nodes`` of its own units a turn. Its cover is a full cover;
being complete, its exhaustion proves ``infeasible`` like the complete search's, and
``check_unique`` continues it. Boards answered before it joins run exactly as without it
(same counters); its counters are reported with the prefix ``backup_`` once it joined.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, Outcome

#: the codes ``step``/``next_solution`` return (both kernels use these values)
FOUND, EXHAUSTED = 1, 2


class RacingSearch(Encoding):
    """``solve`` and ``check_unique`` for an encoding whose ``build`` sets ``self.search``
    (complete, or with the rule when ``self.unique``) and ``self.untouched`` (the rule
    search to race, or None)."""

    race_nodes: int = 2_000
    search_nodes: int = 0  # the complete search's work per turn (0: race_nodes)
    search: Any
    untouched: Any
    unique: bool
    make_backup: Any = None  # makes a complete search of another kind, or None
    backup_after: int = 0  # cells the first two spend before the backup joins
    backup_nodes: int = 0  # the backup's work per turn

    @classmethod
    def proves_infeasible(cls, options) -> bool:
        return not options.get("assume_unique", False)

    def _reset(self) -> None:
        """Call at the end of ``build``: nothing found yet."""
        self.found: Any = None  # the search that answered (a cover or a proof)
        self.solved = False
        self.backup: Any = None  # made when it joins the race

    def _on_found(self, search: Any) -> None:
        """Hook: a search of the race just found a cover."""

    def solve(self, limits: Limits) -> Outcome:
        deadline = deadline_of(limits)
        if self.untouched is None:
            code = self.search.next_solution(deadline)
            self.found = self.search
        else:
            code = self._race(deadline)
        counters = self.search.counters()
        if self.untouched is not None:
            for key, value in self.untouched.counters().items():
                counters[key] += value
            counters["untouched"] = int(self.found is self.untouched)
        if self.backup is not None:
            for key, value in self.backup.counters().items():
                counters[f"backup_{key}"] = value
            counters["backup"] = int(self.found is self.backup)
        if code is None:
            return Outcome(TIMEOUT, counters=counters, message="time limit")
        if code == FOUND:
            self.solved = True
            return Outcome(SOLVED, {"paths": self.found.paths()}, counters)
        if self.unique:
            counters["exhausted"] = 1
            return Outcome(
                TIMEOUT,
                counters=counters,
                message="search exhausted under assume_unique: no proof of infeasibility",
            )
        return Outcome(INFEASIBLE, counters=counters, message="search exhausted")

    def _race(self, deadline: float | None) -> int | None:
        """The rule search and the complete one in turns of ``race_nodes``: the first cover
        either finds is the answer; the rule search, exhausted, leaves the complete one
        alone; the complete one, exhausted, is a proof."""
        live = [self.untouched, self.search]
        spent = 0
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            if self.make_backup is not None and self.backup is None and spent >= self.backup_after:
                self.backup = self.make_backup()
                live.append(self.backup)
            for search in list(live):
                budget = self.race_nodes
                if search is self.backup:
                    budget = self.backup_nodes
                elif search is self.search and self.search_nodes:
                    budget = self.search_nodes
                code = search.step(budget)
                if code == FOUND:
                    self._on_found(search)
                    self.found = search
                    return code
                if code == EXHAUSTED:
                    if search is not self.untouched:  # a complete search: a proof
                        self.found = search
                        return code
                    live.remove(search)
                if search is not self.backup:
                    spent += budget

    def check_unique(self, limits: Limits | None = None) -> bool | None:
        """After a solved run: True when no second full cover exists; None if undecided,
        with ``assume_unique`` (the rule may have cut other covers) or when the run found
        no cover."""
        if self.unique or not self.solved:
            return None
        deadline = deadline_of(limits)
        if self.found is self.search or (self.backup is not None and self.found is self.backup):
            code = self.found.next_solution(deadline)
            return None if code is None else code == EXHAUSTED
        known = self.found.paths()  # found by the rule search: enumerate every cover
        while True:
            code = self.search.next_solution(deadline)
            if code is None:
                return None
            if code == EXHAUSTED:
                return True
            if self.search.paths() != known:
                return False


def run_in_chunks(
    step: Callable[[int], int],
    work_done: Callable[[], int],
    deadline: float | None,
    first_chunk: int,
    still_running: int,
    chunk_s: float = 0.05,
) -> int | None:
    """Step a search until it returns a code other than ``still_running``, looking at the
    clock between chunks sized to take about ``chunk_s`` each; None once ``deadline`` passed.
    The chunks change only when the clock is read, never the search, so counters repeat."""
    budget = first_chunk
    while True:
        start = time.monotonic()
        if deadline is not None and start >= deadline:
            return None
        before = work_done()
        code = step(budget if deadline is not None else 1 << 60)
        if code != still_running:
            return code
        took = max(1e-4, time.monotonic() - start)
        budget = max(100, int((work_done() - before) / took * chunk_s))


def deadline_of(limits: Limits | None) -> float | None:
    if limits is None or limits.time_limit_s is None:
        return None
    return time.monotonic() + limits.time_limit_s
