"""Runs lost to the harness or the cluster: never a solver's failure, so never stored.

A run is *lost* when the harness failed to measure it, whatever the encoding would have
done: the Dask worker, its helper process or the scheduler died under it, the task could not
even be unpacked on the worker, or the run's temporary files hit a full (or read-only) disk.
Stored as ``error`` it would count against the encoding (PAR-2, ``compare``) and
``--resume`` would never run it again. So a lost run is not stored at all: the sweep goes
on where it can, stays unfinished (no ``finished_at``), says in one line how many runs were
lost and why, and exits 3; ``bench run --resume RUN_ID`` runs exactly the lost ones again.

Some losses stop the sweep at once (``models.errors.SweepStopped``), because every later run would be
lost the same way: the scheduler is gone, or the temporary disk is full.
"""

from __future__ import annotations

import errno
import os
import re

#: errors of the machine, not of the run (the same as ``bench.cli``'s exit-3 errors)
MACHINE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
#: the operating system's words for them, as a run's error text or solver output says them
_MACHINE_TEXT = re.compile(
    r"\[Errno ({})\]|({})".format(
        "|".join(str(n) for n in MACHINE_ERRNOS),
        "|".join(re.escape(os.strerror(n)) for n in MACHINE_ERRNOS),
    )
)


#: a sweep that lost runs ends with the harness's own exit code (``bench.cli``: exit 3)
EXIT_CODE = 3


def temp_disk_fault(error: str, host: str = "") -> str | None:
    """Why a run's ``error`` text is its temporary disk's fault (full, over quota,
    read-only), or None. A run writes nothing but its solver's files (PuLP's ``.mps``, CBC's
    log) into its own temporary folder, so the operating system's words in its error or
    output are the sign."""
    found = _MACHINE_TEXT.search(error or "")
    if found is None:
        return None
    words = os.strerror(int(found.group(1))) if found.group(1) else found.group(2)
    where = f" on {host}" if host else ""
    return f"the runs' temporary disk (TMPDIR){where} failed: {words}"


def is_machine_error(err: BaseException) -> bool:
    """An OSError of the machine (disk full, quota, read-only) rather than of the input."""
    return isinstance(err, OSError) and err.errno in MACHINE_ERRNOS


def stopped_message(run_id: str, why: str, lost: int, not_started: int) -> str:
    """The one line a stopped sweep ends with."""
    return (
        f"run {run_id} stopped: {why}; {_runs(lost)} lost (not stored), {not_started} not"
        f" started; fix that, then `bench run --resume {run_id}` runs them"
    )


def lost_message(run_id: str, reasons: list[str]) -> str:
    """The one line a sweep that lost runs but went on ends with."""
    first = reasons[0].strip().splitlines()[0] if reasons and reasons[0].strip() else "?"
    if len(first) > 160:
        first = first[:159] + "…"
    return (
        f"{_runs(len(reasons))} lost to the harness or the cluster, not stored (first: {first});"
        f" the sweep is unfinished: `bench run --resume {run_id}` runs them again"
    )


def _runs(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"
