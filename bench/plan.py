"""A sweep's plan: the planned runs, their resume key, their order, and the command line's
filters over them (``run --puzzle/--encoding/--repeat/--time-limit/--all-sizes``).

A suite file becomes a plan (``bench.suites``); a stored sweep keeps its plan, so a resume
runs the same runs (``bench.commands.run``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from bench.record import KEY_FIELDS
from bench.task import RunTask
from models import registry
from models.errors import UsageError

#: the largest plan a suite may ask for, refused before it is built (a typo in ``repeats``
#: must not grow the planner to gigabytes): runs in a sweep, repeats per run
MAX_PLANNED_RUNS = 200_000
MAX_REPEATS = 1_000


@dataclass(frozen=True, kw_only=True)
class PlannedRun(RunTask):
    """One run a suite asks for: a task within a case, its repeat and whether the case stops
    at its first timeout; the fields of ``KEY_FIELDS`` identify it within a sweep."""

    case: str
    repeat: int = 0
    stop_at_timeout: bool = True

    @classmethod
    def of(cls, record: Any) -> PlannedRun:
        """The planned run a stored record (``RunRecord``) was made from, its fields by name."""
        values = {f.name: getattr(record, f.name) for f in fields(cls) if hasattr(record, f.name)}
        return cls(**{**values, "options": dict(values["options"])})

    def key(self) -> tuple:
        """The resume key (record.KEY_FIELDS), with options as canonical JSON."""
        return run_key(asdict(self))

    def task(self) -> RunTask:
        """Only the task (what travels to a Dask worker as JSON)."""
        return RunTask(**{f.name: getattr(self, f.name) for f in fields(RunTask)})


def run_key(values: dict[str, Any]) -> tuple:
    """Key of a planned run or a stored record (``record.KEY_FIELDS``; options as dict or
    JSON text, compared as canonical JSON)."""
    key = []
    for name in KEY_FIELDS:
        value = values[name]
        if name == "options":
            value = json.dumps(json.loads(value) if isinstance(value, str) else value or {},
                               sort_keys=True)  # fmt: skip
        elif name in ("seed", "threads", "repeat"):
            value = int(value)
        key.append(value)
    return tuple(key)


def in_rounds(runs: list[PlannedRun]) -> list[PlannedRun]:
    """Every first repeat, then every second one, ...: a burst of load on the machine then
    hits one repeat of many cases, not every repeat of one, so the spread of a case's
    repeats shows the machine's noise (the order within a round is the suite's)."""
    return sorted(runs, key=lambda run: run.repeat)


def narrow(
    runs: list[PlannedRun],
    puzzle: str | None = None,
    encoding: str | None = None,
    repeats: int | None = None,
    time_limit_s: float | None = None,
    all_sizes: bool = False,
) -> list[PlannedRun]:
    """Apply the command line's filters and overrides to a plan (``run --puzzle/--encoding/...``)."""
    if puzzle is not None:
        registry.get_puzzle(puzzle)
        runs = [r for r in runs if r.puzzle == puzzle]
    if encoding is not None:
        # the names are read from the source, not imported: only the encoding chosen is
        if not any(encoding in registry.encoding_names(p) for p in registry.puzzles()):
            raise UsageError(f"unknown encoding {encoding!r} (see `python -m bench list`)")
        runs = [r for r in runs if r.encoding == encoding]
    if time_limit_s is not None:
        runs = [replace(r, time_limit_s=float(time_limit_s)) for r in runs]
    if all_sizes:
        runs = [replace(r, stop_at_timeout=False) for r in runs]
    if repeats is not None:
        if repeats > MAX_REPEATS:
            raise UsageError(f"--repeat must be at most {MAX_REPEATS}, got {repeats}")
        firsts = _unique([replace(r, repeat=0) for r in runs])
        runs = in_rounds([replace(r, repeat=i) for r in firsts for i in range(repeats)])
    return runs


def with_memory_limit(
    runs: list[PlannedRun], given: float | None, default: float
) -> list[PlannedRun]:
    """Every run gets a memory limit: ``given`` (``run --memory-limit``) for all, else its
    suite's, else ``default`` (`solve`'s default divided among the runs at once, so that
    parallel runs never ask for more than the machine has)."""
    if given is not None:
        return [replace(r, memory_limit_mb=float(given)) for r in runs]
    return [r if r.memory_limit_mb else replace(r, memory_limit_mb=float(default)) for r in runs]


def _unique(runs: list[PlannedRun]) -> list[PlannedRun]:
    seen, out = set(), []
    for run in runs:
        if run.key() not in seen:
            seen.add(run.key())
            out.append(run)
    return out


def instance_hashes(instances: dict[tuple[str, str], registry.LoadedInstance]) -> list[list[str]]:
    """[puzzle, spec, content hash] of every file instance a sweep plans (kept with the sweep,
    so a resume can tell an edited file; generated boards are remade by their runs)."""
    return [
        [puzzle, spec, loaded.content_hash]
        for (puzzle, spec), loaded in sorted(instances.items())
        if not spec.startswith(registry.GENERATED_PREFIX)
    ]


def check_unchanged(
    run_id: str,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    planned: list[list[str]],
    stored: Any,
) -> None:
    """Refuse to resume when an instance file no longer holds the board the sweep planned
    (or, for a sweep stored without its plan's hashes, the board its stored runs had):
    the new board would run under the old name, and a case would mix two boards."""
    expected = {(puzzle, spec): digest for puzzle, spec, digest in planned}
    if not expected:  # a sweep stored before plans kept their hashes
        for record in stored:
            if record.instance_hash:
                expected.setdefault((record.puzzle, record.instance), record.instance_hash)
    for key, loaded in sorted(instances.items()):
        if key in expected and loaded.content_hash != expected[key]:
            raise UsageError(
                f"{key[1]}: the file changed since sweep {run_id} planned it (board hash"
                f" {expected[key]}, now {loaded.content_hash}): restore it, or run the suite"
                " afresh"
            )
