"""Two searches of one board in turns: a complete one and one with a cover-only rule.

``pathsearch-numba`` (no path touches itself) and ``scanline-numba`` (concentric corners)
share this race. A search here is resumable: ``step(nodes)`` runs a fixed budget and
returns a code (solved, exhausted, or None for budget spent), ``next_solution(deadline)``
runs to the next cover or the deadline, ``paths()`` decodes its cover and ``counters()``
reports its work. The turns are counted in work (``race_nodes``), never in seconds, so
the counters repeat whatever the machine.

Why the answers stay sound: a cover found by either search is a full cover (a rule only
removes covers), so it is the answer; only the complete search, exhausted, proves
``infeasible``; with ``assume_unique`` the rule search runs alone (or with its partners,
below) and its exhaustion is a ``timeout`` that says so. No Encoding is registered from
here (the class is abstract).

*Partners* and *backups* (optional: ``build`` sets ``self.make_partners`` and
``self.make_backups``, callables that make them as ``Member``s): further searches of
other kinds, made when they join the turns once the first two have spent
``partner_after`` (``backup_after``) units between them without an answer. A partner
takes a turn (of its own units) every round. Of the backups one takes a turn each round
after the others, in rotation, so the rule search keeps a third of the time on boards it
answers late; once the rule search has left (exhausted), every backup takes a turn each
round. With ``assume_unique`` the search with the rule races its partners alone (no
complete search, no backups). A cover any of them finds is a full cover. A complete
member's exhaustion proves ``infeasible`` like the complete search's (and
``check_unique`` continues it when it can enumerate); an incomplete one's
only takes it out of the race. Boards answered before they join run exactly as without
them (same counters); a member's counters are reported with its name as prefix once it
joined, and its name alone is 1 when it found the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, Outcome

#: the codes ``step``/``next_solution`` return (both kernels use these values)
FOUND, EXHAUSTED = 1, 2


@dataclass(frozen=True)
class Member:
    """A search that joins the race late: ``name`` prefixes its counters, ``turn`` is its
    work a turn, ``complete`` says whether its exhaustion is a proof."""

    name: str
    search: Any
    turn: int
    complete: bool


class RacingSearch(Encoding):
    """``solve`` and ``check_unique`` for an encoding whose ``build`` sets ``self.search``
    (complete, or with the rule when ``self.unique``) and ``self.untouched`` (the rule
    search to race, or None)."""

    race_nodes: int = 2_000
    search_nodes: int = 0  # the complete search's work per turn (0: race_nodes)
    search: Any
    untouched: Any
    unique: bool
    make_backups: Callable[[], list[Member]] | None = None  # the searches that join late
    backup_after: int = 0  # cells the first two spend before the backups join
    make_partners: Callable[[], list[Member]] | None = None  # join early, a turn every round
    partner_after: int = 0

    @classmethod
    def proves_infeasible(cls, options) -> bool:
        return not options.get("assume_unique", False)

    def _reset(self) -> None:
        """Call at the end of ``build``: nothing found yet."""
        self.found: Any = None  # the search that answered (a cover or a proof)
        self.solved = False
        self.backups: list[Member] = []  # every member made so far (partners and backups)

    def _on_found(self, search: Any) -> None:
        """Hook: a search of the race just found a cover."""

    def solve(self, limits: Limits) -> Outcome:
        deadline = deadline_of(limits)
        if self.untouched is None and self.make_partners is None:
            code = self.search.next_solution(deadline)
            self.found = self.search
        else:
            code = self._race(deadline)
        counters = self.search.counters()
        if self.untouched is not None:
            for key, value in self.untouched.counters().items():
                counters[key] += value
            counters["untouched"] = int(self.found is self.untouched)
        for member in self.backups:
            for key, value in member.search.counters().items():
                counters[f"{member.name}_{key}"] = value
            counters[member.name] = int(self.found is member.search)
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
        """The rule search and the complete one in turns of ``race_nodes``; once the
        backups joined, one of them takes a turn after those two each round, in rotation,
        or all of them once the rule search has left. The first cover any finds is the
        answer; the rule search or an incomplete backup, exhausted, leaves the race; a
        complete search exhausted is a proof."""
        live = [search for search in (self.untouched, self.search) if search is not None]
        partners: list[Member] = []
        late: list[Member] = []
        spent, joined, partnered, rounds = 0, False, False, 0
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            if self.make_partners is not None and not partnered and spent >= self.partner_after:
                partnered, partners = True, self.make_partners()
                self.backups += partners
            if self.make_backups is not None and not joined and spent >= self.backup_after:
                joined, late = True, self.make_backups()
                self.backups += late
            turn: list[tuple[Any, Member | None]] = [(search, None) for search in live]
            turn += [(m.search, m) for m in partners]
            if late and self.untouched in live:  # one backup a round, in rotation
                member = late[rounds % len(late)]
                turn.append((member.search, member))
            else:  # the rule search has left: every backup takes a turn each round
                turn += [(m.search, m) for m in late]
            rounds += 1
            for search, member in turn:
                budget = self.race_nodes
                if member is not None:
                    budget = member.turn
                elif search is self.search and self.untouched is not None and self.search_nodes:
                    budget = self.search_nodes
                code = search.step(budget)
                if code == FOUND:
                    self._on_found(search)
                    self.found = search
                    return code
                if code == EXHAUSTED:
                    if search is self.search or (member is not None and member.complete):
                        self.found = search  # a complete search: a proof
                        return code
                    if member is not None:
                        (partners if member in partners else late).remove(member)
                    else:
                        live.remove(search)
                if member is None:
                    spent += budget

    def check_unique(self, limits: Limits | None = None) -> bool | None:
        """After a solved run: True when no second full cover exists; None if undecided,
        with ``assume_unique`` (the rule may have cut other covers) or when the run found
        no cover."""
        if self.unique or not self.solved:
            return None
        deadline = deadline_of(limits)
        if self.found is self.search or any(
            m.search is self.found and m.complete and hasattr(m.search, "next_solution")
            for m in self.backups
        ):
            code = self.found.next_solution(deadline)
            return None if code is None else code == EXHAUSTED
        known = self.found.paths()  # found by a search that cannot enumerate: the scan one does
        while True:
            code = self.search.next_solution(deadline)
            if code is None:
                return None
            if code == EXHAUSTED:
                return True
            if not _same_cover(self.search.paths(), known):
                return False


def _same_cover(a: dict[str, list], b: dict[str, list]) -> bool:
    """Whether two answers are one cover (each path may be walked from either end)."""
    as_lists = {k: [list(c) for c in p] for k, p in b.items()}
    return a.keys() == b.keys() and all(
        [list(c) for c in p] in (as_lists[k], as_lists[k][::-1]) for k, p in a.items()
    )


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
