"""What one run is asked to do (``RunTask``) and what it gave back (``Measurement``).

Both are plain data: a RunTask travels to a forked child (``bench.measure``) or, as JSON,
to a Dask worker's helper (``bench.remote``); a Measurement is read from the child's
report (``Measurement.from_report``), completed by the parent's own measurements and
verification, and becomes a stored record (``RunRecord.assemble``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from models.base import ERROR, INFEASIBLE, MEMOUT, SOLVED, TIMEOUT

#: statuses a run may report about itself (``wrong`` is the parent's verdict, never a report)
REPORTED = (SOLVED, INFEASIBLE, TIMEOUT, MEMOUT, ERROR)
#: what only the parent measures or decides: never taken from a run's own report
PARENT_MEASURES = {"verified", "wall_s", "cpu_s", "peak_rss_mb", "raw_maxrss_mb",
                   "late_answer_s", "made_instance"}  # fmt: skip


@dataclass(frozen=True)
class RunTask:
    """Everything a single run needs; picklable so it can travel to a Dask worker."""

    puzzle: str
    instance: str
    encoding: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    threads: int = 1
    time_limit_s: float | None = None
    memory_limit_mb: float | None = None
    #: after a solved run, ask the encoding whether the answer is the only one
    #: (encodings with a ``check_unique(limits)`` method); timed apart as unique_s
    check_unique: bool = False


@dataclass
class Measurement:
    """What one isolated run produced, as measured by the parent."""

    status: str
    verified: bool = False
    solution: dict[str, Any] | None = None
    build_s: float | None = None
    build_cpu_s: float | None = None  # CPU of the build alone: steadier than build_s under load
    solve_s: float | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0  # over the wall_s window (go to report), see bench.measure
    peak_rss_mb: float = 0.0  # the run's own peak (bench.procs.Usage), not the parent's image
    raw_maxrss_mb: float = 0.0  # wait4's ru_maxrss: the forked parent's shared pages included
    #: an answer (solved/infeasible) that came after the time limit: when it came (wall s);
    #: the run is then a timeout
    late_answer_s: float | None = None
    n_vars: int | None = None
    n_constraints: int | None = None
    counters: dict[str, float] = field(default_factory=dict)
    error: str = ""
    unique: bool | None = None  # only with RunTask.check_unique; None: not asked or undecided
    unique_s: float = 0.0
    generate_s: float = 0.0  # time the run spent making its gen: board (not part of wall_s)
    run_cpu_s: float | None = None  # the child's own figures (bench.procs.Usage.since)
    own_peak_mb: float | None = None
    #: a ``gen:`` board the run generated itself (not sent over JSON; see ``bench.remote``)
    made_instance: Any = field(default=None, repr=False, compare=False)

    @property
    def overhead_s(self) -> float | None:
        if self.build_s is None or self.solve_s is None:
            return None
        return max(0.0, self.wall_s - self.build_s - self.solve_s - self.unique_s)

    @classmethod
    def from_report(cls, report: dict[str, Any]) -> Measurement:
        """The child's report (``bench.run_child``): every key named like a field, and the
        board the run generated (``instance``); a status the run may not report is an error."""
        names = {f.name for f in fields(cls)} - PARENT_MEASURES
        values = {k: v for k, v in report.items() if k in names}
        status = values.get("status", ERROR)
        if status not in REPORTED:
            values["error"] = f"encoding returned unknown status {status!r}"
            status = ERROR
        values.update(
            status=status,
            counters=dict(values.get("counters") or {}),
            error=values.get("error") or "",
            unique_s=float(values.get("unique_s") or 0.0),
            generate_s=float(values.get("generate_s") or 0.0),
            made_instance=report.get("instance"),
        )
        return cls(**values)
