"""What a sweep shows while it runs and when it ends.

The progress bar is refreshed by hand (``auto_refresh=False``): rich's refresh thread
would make the forking parent multi-threaded, which DESIGN forbids. On a terminal: a
bar with done/total, elapsed, estimate, current case and status counts; elsewhere (CI
logs, pipes): one line per finished run.
"""

from __future__ import annotations

import time
from collections import Counter

import pandas as pd
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from bench.analysis import stats
from bench.analysis.formats import missing
from bench.analysis.names import rich_text, visible
from bench.analysis.tables import with_config
from bench.plan import PlannedRun
from bench.record import RunRecord
from models.base import ERROR, INFEASIBLE, MEMOUT, SOLVED, TIMEOUT, WRONG

#: the bar is redrawn at most this often (a forced redraw per run cost a sweep of short
#: runs more than the runs: docs/experiments/runner-overhead.md)
REFRESH_S = 0.1


class SweepProgress:
    """Progress of one sweep; call ``started``/``finished``/``tick`` from the parent's loop."""

    def __init__(self, total: int, done: int, title: str, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.total, self.done = total, done
        self.counts: Counter[str] = Counter()
        self.current = ""
        self._last = 0.0
        self.live = self.console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}", markup=False),  # a case name is data
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[counts]}"),
            console=self.console,
            auto_refresh=False,
            transient=False,
        )
        self._task = self._progress.add_task(visible(title), total=total, completed=done, counts="")

    def __enter__(self) -> SweepProgress:
        if self.live:
            self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.live:
            self._progress.refresh()
            self._progress.stop()

    def started(self, planned: PlannedRun) -> None:
        self.current = visible(f"{planned.case}: {planned.encoding} {planned.instance}")
        self.tick()

    def finished(self, record: RunRecord) -> None:
        took = "" if record.wall_s is None else f" {record.wall_s:.3f} s"
        self._advance(record, record.status, f"{record.status}{took}")
        self.tick()

    def skipped(self, planned: PlannedRun, reason: str) -> None:
        """A planned run that will not run (``bench.schedule``): counted done, status skipped."""
        self._advance(planned, "skipped", f"skipped ({reason})")

    def lost(self, planned: PlannedRun, reason: str) -> None:
        """A run the harness or the cluster lost (``bench.lost``): done here, not stored."""
        first = reason.strip().splitlines()[0] if reason.strip() else ""
        self._advance(planned, "lost", f"lost ({first})")
        self.tick(force=True)

    def note(self, line: str) -> None:
        """One line of news (e.g. waiting for Dask workers), above the bar on a terminal."""
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def _advance(self, run: RunRecord | PlannedRun, status: str, outcome: str) -> None:
        """One more run done: the bar moves, or (not on a terminal) one line is printed."""
        self.done += 1
        self.counts[status] += 1
        if self.live:
            self._progress.update(self._task, completed=self.done)
        else:
            self.console.print(
                f"[{self.done}/{self.total}] "
                + visible(f"{run.case}: {run.puzzle} {run.encoding} {run.instance}: {outcome}"),
                highlight=False,
                markup=False,  # names are data: `[/bold]` is a case name, not a tag
                soft_wrap=True,
            )

    def tick(self, force: bool = False) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if not force and now - self._last < REFRESH_S:
            return
        self._last = now
        order = (SOLVED, INFEASIBLE, TIMEOUT, MEMOUT, WRONG, ERROR, "skipped", "lost")
        counts = " ".join(
            f"{s} {self.counts[s]}"
            for s in order
            if self.counts[s] or s in (SOLVED, TIMEOUT, WRONG)
        )
        self._progress.update(self._task, description=_clip(self.current, 48), counts=counts)
        self._progress.refresh()


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def summary_table(
    records: list[RunRecord],
    run_id: str,
    seconds: float | None = None,
    skipped: list[PlannedRun] | None = None,
    ran: int | None = None,
    before: int = 0,
) -> Table:
    """Per puzzle x configuration (``tables.with_config``, the report's labels, so option
    sweeps stay apart): run status counts, runs of the encoding not run (``skipped``: after
    a timeout on a smaller board), median time with IQR, PAR-2 (the report's, per
    instance), median wall and overhead. The title counts the ``ran`` runs this session
    stored (default: all) and the ``before`` ones an earlier session stored."""
    frame = pd.DataFrame([r.to_row() for r in records])
    not_run = Counter((p.puzzle, p.encoding) for p in skipped or [])
    ran = len(records) if ran is None else ran
    title = f"run {run_id}: {ran} run{'' if ran == 1 else 's'}"
    if seconds is not None:
        title += f" in {seconds:.1f} s"
    if before:  # a resume: the table shows the whole sweep, the title this session's runs
        title += f" (and {before} stored before)"
    table = Table(title=title)
    columns = ("puzzle", "configuration", "solved", "infeas", "timeout", "memout", "wrong",
               "error", "not run", "time s (IQR)", "PAR-2 s", "wall s", "ovh ms")  # fmt: skip
    for name in columns:
        table.add_column(name, justify="left" if name in ("puzzle", "configuration") else "right")
    if frame.empty:
        return table
    frame = with_config(frame)
    encoding_of = dict(zip(frame["config"], frame["encoding"], strict=True))
    for row in stats.summary(frame, ("puzzle", "config")).itertuples(index=False):
        data = row._asdict()
        time_text = _seconds(data["median_time_s"])
        if not missing(data["time_iqr_s"]) and data["answered"] > 1:
            time_text += f" ({_seconds(data['time_iqr_s'])})"
        overhead = data["median_overhead_s"]
        table.add_row(
            rich_text(data["puzzle"]),
            rich_text(data["config"]),  # `[option=value]` is not rich markup
            *(str(data[s]) for s in (SOLVED, INFEASIBLE, TIMEOUT, MEMOUT, WRONG, ERROR)),
            str(not_run[(data["puzzle"], encoding_of[data["config"]])]),
            time_text,
            _seconds(data["par2_s"]),
            _seconds(data["median_wall_s"]),
            "-" if missing(overhead) else f"{overhead * 1000:.1f}",
        )
    return table


def problems(records: list[RunRecord], limit: int = 10) -> list[str]:
    """One line per wrong or error run (the first ``limit``), for the end of a sweep."""
    lines = []
    for record in records:
        if record.status in (WRONG, ERROR):
            first = (record.error or "").strip().splitlines()
            lines.append(
                visible(
                    f"{record.status}: {record.puzzle} {record.encoding} {record.instance} "
                    f"(seed {record.seed}, repeat {record.repeat}): {first[0] if first else ''}"
                )
            )
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more"]
    return lines


def _seconds(value) -> str:
    if missing(value):
        return "-"
    return f"{value:.3f}" if value < 100 else f"{value:.0f}"
