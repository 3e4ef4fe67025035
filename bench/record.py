"""The one record type. Every column of the store, the DataFrame and every export comes from here.

Add a field here and it appears everywhere; nothing else lists columns by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from models.registry import cells_of


@dataclass
class RunRecord:
    """One run: one encoding on one instance with one seed, thread count and repeat."""

    run_id: str = ""
    started_at: str = ""  # ISO-8601 UTC, when this single run started (a datetime once loaded)
    suite: str = ""
    case: str = ""  # the suite case that planned the run
    puzzle: str = ""
    instance: str = ""  # PATH, PATH#N or gen:... spec
    instance_hash: str = ""  # hash of the instance's canonical text (catches edited files)
    size: str = ""  # ROWSxCOLS
    cells: int | None = None  # rows x cols, filled in from size: filter and plot by a number
    encoding: str = ""
    options: dict[str, Any] = field(default_factory=dict)  # per-encoding solver options
    solver: str = ""
    solver_version: str = ""
    encoding_hash: str = ""  # hash of the encoding's source files
    repeat: int = 0
    seed: int = 0
    threads: int = 1
    time_limit_s: float | None = None
    memory_limit_mb: float | None = None
    status: str = ""
    verified: bool = False
    build_s: float | None = None
    build_cpu_s: float | None = None  # CPU time of the build (the run's process, all threads)
    solve_s: float | None = None
    wall_s: float | None = None  # from the go signal until the run's report was written
    cpu_s: float | None = None  # user + sys over the same window (all threads, waited children)
    peak_rss_mb: float | None = None  # the run's own peak memory (over the forked parent's)
    raw_maxrss_mb: float | None = None  # wait4 ru_maxrss: the parent's shared image included
    late_answer_s: float | None = None  # an answer after the time limit came then: timeout
    overhead_s: float | None = None  # wall_s - build_s - solve_s: the harness's own cost
    n_vars: int | None = None
    n_constraints: int | None = None
    counters: dict[str, float] = field(default_factory=dict)
    error: str = ""
    host: str = ""
    solution: dict[str, Any] | None = None  # kept when small enough to store (pictures)

    def to_row(self) -> dict[str, Any]:
        """Flat values for storage: dicts become JSON text."""
        row = {name: getattr(self, name) for name in FIELD_NAMES}  # no deep copy: JSON below
        for name in JSON_FIELDS:
            row[name] = None if row[name] is None else json.dumps(row[name], sort_keys=True)
        return row

    @classmethod
    def assemble(cls, *parts: Any, **fields_: Any) -> RunRecord:
        """A record from the dataclasses a run passes through (the planned run, the task, the
        measurement) and extra fields: a part's field goes into the record when their names
        match, so no field is copied by hand; later parts and ``fields_`` win."""
        values: dict[str, Any] = {}
        for part in parts:  # shallow: a solution can be a million small lists
            values.update(
                {f.name: getattr(part, f.name) for f in fields(part) if f.name in FIELD_NAMES}
            )
        values.update(fields_)
        if values.get("cells") is None and values.get("size"):
            values["cells"] = cells_of(values["size"])
        values["options"] = dict(values.get("options") or {})
        values["counters"] = dict(values.get("counters") or {})
        return cls(**values)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RunRecord:
        values = {f: row[f] for f in FIELD_NAMES if f in row}
        for name in JSON_FIELDS:
            if isinstance(values.get(name), str):
                values[name] = json.loads(values[name])
        if "verified" in values:
            values["verified"] = bool(values["verified"])
        return cls(**values)


FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(RunRecord))
JSON_FIELDS: tuple[str, ...] = ("options", "counters", "solution")
#: fields that identify a planned run within a sweep (resume skips these when stored)
KEY_FIELDS: tuple[str, ...] = (
    "case",
    "puzzle",
    "instance",
    "encoding",
    "options",
    "seed",
    "threads",
    "repeat",
)
