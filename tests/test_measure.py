"""One isolated run: hard time and memory limits, crashes, wrong answers, no process left behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bench.measure import run_isolated, start_run, wait_any
from bench.task import RunTask
from models.base import ERROR, INFEASIBLE, MEMOUT, SOLVED, TIMEOUT, WRONG
from tests.stubs import stubs  # noqa: F401  (fixture)

OPEN_5 = "gen:knights_tour:5x5:0:open=1"
CLOSED_5 = "gen:knights_tour:5x5:0"


def _task(encoding: str, spec: str = OPEN_5, **kw) -> RunTask:
    return RunTask("knights_tour", spec, encoding, **kw)


def _gone(pid: int) -> bool:
    """True when the process no longer exists or is a zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


@pytest.mark.usefixtures("stubs")
def test_honest_run_is_verified_and_measured() -> None:
    result = run_isolated(_task("stub-ok", time_limit_s=10))
    assert result.status == SOLVED and result.verified
    assert result.counters == {"nodes": 25}
    assert result.n_vars == 25
    assert 0 <= result.build_s <= result.wall_s and 0 <= result.solve_s <= result.wall_s
    assert result.overhead_s is not None and result.overhead_s >= 0
    assert result.cpu_s >= 0 and result.peak_rss_mb >= 0 and result.raw_maxrss_mb > 0


@pytest.mark.usefixtures("stubs")
def test_infeasible_claim_has_no_solution() -> None:
    result = run_isolated(_task("stub-ok", CLOSED_5, time_limit_s=10))
    assert result.status == INFEASIBLE and result.solution is None and not result.verified


@pytest.mark.usefixtures("stubs")
def test_run_ignoring_its_limit_is_killed_with_its_children(tmp_path, monkeypatch) -> None:
    pid_file = tmp_path / "pids"
    monkeypatch.setenv("STUB_PID_FILE", str(pid_file))
    started = time.perf_counter()
    result = run_isolated(_task("stub-spin", time_limit_s=0.3))
    took = time.perf_counter() - started
    assert result.status == TIMEOUT and "time limit" in result.error
    assert took < 0.3 + 2.0, took
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) == 2  # the run itself and the child process it started
    deadline = time.monotonic() + 2.0
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(p) for p in pids), pids


@pytest.mark.usefixtures("stubs")
def test_crash_by_signal_is_an_error() -> None:
    result = run_isolated(_task("stub-crash", time_limit_s=10))
    assert result.status == ERROR and "SIGABRT" in result.error


@pytest.mark.usefixtures("stubs")
def test_exception_is_an_error_with_its_message() -> None:
    result = run_isolated(_task("stub-raise", time_limit_s=10))
    assert result.status == ERROR and "stub failure on purpose" in result.error


@pytest.mark.usefixtures("stubs")
def test_wrong_answer_is_refused_by_the_checker() -> None:
    result = run_isolated(_task("stub-wrong", time_limit_s=10))
    assert result.status == WRONG and "checker refused" in result.error
    assert not result.verified


@pytest.mark.usefixtures("stubs")
def test_memory_hog_is_stopped_at_the_memory_limit() -> None:
    # the limit counts the run's own (private) pages, not those it shares with the parent
    result = run_isolated(_task("stub-hog", time_limit_s=20, memory_limit_mb=200))
    assert result.status == MEMOUT, result.error
    assert result.peak_rss_mb < _own_rss_mb() + 400


@pytest.mark.usefixtures("stubs")
def test_memory_limit_leaves_a_modest_run_alone() -> None:
    result = run_isolated(_task("stub-ok", time_limit_s=20, memory_limit_mb=100))
    assert result.status == SOLVED, result.error


@pytest.mark.usefixtures("stubs")
def test_several_runs_at_once_from_one_parent() -> None:
    runs = [start_run(_task("stub-ok", time_limit_s=10, options={"delay": 0.3})) for _ in range(3)]
    started = time.perf_counter()
    done: set[int] = set()
    while len(done) < len(runs):
        done |= {r.pid for r in wait_any(runs)}
    results = [r.finish() for r in runs]
    assert time.perf_counter() - started < 0.3 * 3  # they overlapped
    assert all(r.status == SOLVED and r.verified for r in results)


def _own_rss_mb() -> float:
    for line in Path(f"/proc/{os.getpid()}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.usefixtures("stubs")
def test_a_run_folder_is_reused_only_when_the_run_left_it_empty() -> None:
    """Issue 57: a folder and an output file per run cost the parent milliseconds of wall
    time; an ended run hands them on only when it left nothing behind."""
    from bench import guard, measure

    first = start_run(_task("stub-ok", time_limit_s=10))
    folder = first.folder
    while not first.done:
        wait_any([first])
    assert first.finish().status == SOLVED
    assert os.path.isdir(folder) and not os.listdir(folder)  # kept, empty, for the next run
    assert folder in guard.guard().spares  # the guard deletes it if this process dies
    second = start_run(_task("stub-ok", time_limit_s=10))
    assert second.folder == folder
    (Path(folder) / "left-behind.mps").write_text("x")  # as a solver's file would be
    while not second.done:
        wait_any([second])
    assert second.finish().status == SOLVED
    assert not os.path.exists(folder)  # not empty: deleted, never handed on
    assert all(f != folder for f, _ in measure._spares)
    assert all(output.seek(0, os.SEEK_END) == 0 for _, output in measure._spares)
