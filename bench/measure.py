"""Measure one run in its own process, forked from a warm parent.

Why fork: the parent has already imported every solver library (the registry imports
every encoding), so a run pays neither the 0.1-0.4 s of imports nor a fresh
interpreter; a fork + wait costs a few milliseconds. The child makes itself a
process group so that a kill reaches a solver's own child processes (CBC).
The parent measures from the operating system (``os.wait4``: CPU of the run and
everything it waited for, peak RSS), enforces the time limit with a hard kill
shortly after the solver's own limit, enforces the memory limit by watching the
group's resident size, and verifies the answer with the puzzle's own checker.
Keep the forking parent single-threaded and solver-free.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models import registry
from models.base import ERROR, INFEASIBLE, MEMOUT, SOLVED, TIMEOUT, WRONG, Limits

#: how long after the time limit the parent kills a run that did not stop by itself
KILL_GRACE_S = 1.0
#: how often the parent looks at a run's memory when a memory limit is set
MEMORY_POLL_S = 0.05


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


@dataclass
class Measurement:
    """What one isolated run produced, as measured by the parent."""

    status: str
    verified: bool = False
    solution: dict[str, Any] | None = None
    build_s: float | None = None
    solve_s: float | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    n_vars: int | None = None
    n_constraints: int | None = None
    counters: dict[str, float] = field(default_factory=dict)
    error: str = ""

    @property
    def overhead_s(self) -> float | None:
        if self.build_s is None or self.solve_s is None:
            return None
        return max(0.0, self.wall_s - self.build_s - self.solve_s)


def run_isolated(task: RunTask) -> Measurement:
    """Fork, run ``task`` in the child, measure, kill on overrun, verify; never raises for the run's faults."""
    loaded = registry.load_instance(
        task.instance, task.puzzle
    )  # bad input raises here, in the parent
    encoding_cls = registry.get_encoding(task.puzzle, task.encoding)
    encoding_cls(task.options)  # unknown options raise here, in the parent
    read_fd, write_fd = os.pipe()
    gc.collect()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: never returns
        os.close(read_fd)
        _child(task, loaded.instance, write_fd)
    os.close(write_fd)
    payload, stopped_as = _collect(pid, read_fd, task, started)
    _, wait_status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    _kill_group(pid)  # anything the run left behind (an orphaned CBC) goes too
    result = _interpret(payload, stopped_as, wait_status)
    result.wall_s = wall
    result.cpu_s = usage.ru_utime + usage.ru_stime
    result.peak_rss_mb = usage.ru_maxrss / 1024.0
    if result.status == SOLVED:
        problem = _verify(task.puzzle, loaded.instance, result.solution)
        if problem is None:
            result.verified = True
        else:
            result.status, result.error = WRONG, f"checker refused the answer: {problem}"
    else:
        result.solution = None
    return result


def _verify(puzzle: str, instance: Any, solution: Any) -> str | None:
    try:
        return registry.get_puzzle(puzzle).verify(instance, solution)
    except Exception as err:  # a checker must not crash on a malformed answer, but if it does
        return f"checker failed on the answer: {type(err).__name__}: {err}"


def _child(task: RunTask, instance: Any, write_fd: int) -> None:
    """Run the encoding and send a pickled report through the pipe; exit without cleanup."""
    code = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        report = _run_encoding(task, instance)
    except MemoryError:
        report = {"status": MEMOUT, "error": "MemoryError in the run"}
    except BaseException as err:  # the run's fault is data, not a crash of the sweep
        report = {"status": ERROR, "error": _short_traceback(err)}
    try:
        data = pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)
    except BaseException:
        code = 3
    os._exit(code)


def _run_encoding(task: RunTask, instance: Any) -> dict[str, Any]:
    encoding = registry.get_encoding(task.puzzle, task.encoding)(task.options)
    report: dict[str, Any] = {}
    t0 = time.perf_counter()
    size = encoding.build(
        instance, Limits(task.time_limit_s, task.seed, task.threads, task.options)
    )
    t1 = time.perf_counter()
    report.update(build_s=t1 - t0, n_vars=size.n_vars, n_constraints=size.n_constraints)
    remaining = None if task.time_limit_s is None else max(0.001, task.time_limit_s - (t1 - t0))
    outcome = encoding.solve(Limits(remaining, task.seed, task.threads, task.options))
    report["solve_s"] = time.perf_counter() - t1
    report.update(
        status=outcome.status,
        solution=outcome.solution,
        counters=outcome.counters,
        error=outcome.message,
    )
    return report


def _collect(pid: int, read_fd: int, task: RunTask, started: float) -> tuple[bytes, str]:
    """Read the child's report; kill its group on overrun. Returns (bytes, '' | TIMEOUT | MEMOUT)."""
    deadline = None if task.time_limit_s is None else started + task.time_limit_s + KILL_GRACE_S
    chunks: list[bytes] = []
    stopped_as = ""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                stopped_as = TIMEOUT
                break
            wait = MEMORY_POLL_S if task.memory_limit_mb else 0.5
            if deadline is not None:
                wait = min(wait, deadline - now)
            ready, _, _ = select.select([pipe], [], [], wait)
            if ready:
                chunk = pipe.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            if task.memory_limit_mb and _group_rss_mb(pid) > task.memory_limit_mb:
                stopped_as = MEMOUT
                break
    if stopped_as:
        _kill_group(pid)
    return b"".join(chunks), stopped_as


def _interpret(payload: bytes, stopped_as: str, wait_status: int) -> Measurement:
    if stopped_as == TIMEOUT:
        return Measurement(TIMEOUT, error="killed after the time limit")
    if stopped_as == MEMOUT:
        return Measurement(MEMOUT, error="killed at the memory limit")
    if not payload:
        if os.WIFSIGNALED(wait_status):
            sig = os.WTERMSIG(wait_status)
            return Measurement(ERROR, error=f"run died from signal {signal.Signals(sig).name}")
        return Measurement(
            ERROR,
            error=f"run exited with code {os.waitstatus_to_exitcode(wait_status)} and no report",
        )
    try:
        report = pickle.loads(payload)
    except Exception as err:
        return Measurement(ERROR, error=f"unreadable report from the run: {err}")
    status = report.get("status", ERROR)
    if status not in (SOLVED, INFEASIBLE, TIMEOUT, MEMOUT, ERROR):
        report["error"] = f"encoding returned unknown status {status!r}"
        status = ERROR
    return Measurement(
        status=status,
        solution=report.get("solution"),
        build_s=report.get("build_s"),
        solve_s=report.get("solve_s"),
        n_vars=report.get("n_vars"),
        n_constraints=report.get("n_constraints"),
        counters=dict(report.get("counters") or {}),
        error=report.get("error") or "",
    )


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _group_rss_mb(pid: int) -> float:
    """Resident size of the run and its descendants (a solver's own processes count too)."""
    total_kb, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total_kb += next(
                (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")),
                0,
            )
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
            stack.extend(int(c) for c in children)
        except (OSError, ValueError):
            continue
    return total_kb / 1024.0


def _short_traceback(err: BaseException) -> str:
    lines = traceback.format_exception(type(err), err, err.__traceback__)
    text = "".join(lines[-6:]).strip()
    return f"{type(err).__name__}: {err}\n{text}"[:4000]
