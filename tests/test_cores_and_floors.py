"""Limits that cannot be honoured are refused (issue 58, "the edges").

``run --jobs 1000`` on 2 cores divided the memory limit by 1000 (CBC stored as ``memout``
after 0.13 s, the sweep exit 0); ``solve --threads -1`` and ``--threads 10000`` ran (the
second took 420 MB and 19 s for a 10x10 board); a memory limit of a few MB made every run a
``memout`` that says nothing of its encoding. Tried here with real solvers and real sweeps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import limits, suites
from bench.commands import run as run_command
from models.errors import SuiteError
from tests.conftest import ROOT, main_cli, run_cli
from tests.test_cli import _assert_usage_error

CORES = limits.usable_cores()


def _suite(folder: Path, extra: str = "", top: str = "", name: str = "s.toml") -> str:
    path = folder / name
    path.write_text(
        f'{top}[[cases]]\nname = "c"\npuzzle = "sudoku"\nencodings = ["dlx"]\n'
        f'instances = ["instances/sudoku/small/easy9.txt"]\n{extra}'
    )
    return str(path)


def test_jobs_beyond_the_usable_cores_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    suite = _suite(tmp_path)
    for jobs in ("1000", str(CORES + 1), "0", "-3"):
        result = main_cli("run", "--suite", suite, "--jobs", jobs, "--store", str(db))
        _assert_usage_error(result, "--jobs", f"{CORES} core(s)", f"got {jobs}")
    suite_jobs = _suite(tmp_path, top="[suite]\njobs = 1000\n", name="j.toml")
    _assert_usage_error(
        main_cli("run", "--suite", suite_jobs, "--store", str(db)), "[suite] jobs", "got 1000"
    )
    assert not db.exists()  # refused before the sweep was stored
    done = run_cli("run", "--suite", suite, "--jobs", str(CORES), "--store", str(db))
    assert done.returncode == 0, done.stderr


def test_the_cores_counted_are_this_processs_affinity(tmp_path: Path) -> None:
    """Narrowed to one core (as ``taskset`` or a container does), two jobs are refused."""
    first = min(os.sched_getaffinity(0))
    result = subprocess.run(
        [sys.executable, "-m", "bench", "run", "--suite", _suite(tmp_path), "--jobs", "2",
         "--store", str(tmp_path / "b.sqlite")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: os.sched_setaffinity(0, {first}),
    )  # fmt: skip
    _assert_usage_error(result, "--jobs", "the 1 core(s)")


def test_threads_have_one_check_for_solve_and_suites(tmp_path: Path) -> None:
    board = "instances/numberlink/tiny/tiny_5x5.txt"
    for threads in ("-1", "0", str(CORES + 1), "10000"):
        result = main_cli("solve", board, "--encoding", "circuit-cpsat", "--threads", threads)
        _assert_usage_error(result, "--threads", f"{CORES} core(s)", f"got {threads}")
    for threads in (0, CORES + 1):
        with pytest.raises(SuiteError, match=f"threads must be from 1 to the {CORES} core"):
            suites.load_suite(_suite(tmp_path, f"threads = [1, {threads}]\n", name="t.toml"))
    solved = run_cli(
        "solve", board, "--encoding", "circuit-cpsat", "--threads", str(CORES), "--json"
    )
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["status"] == "solved"


def test_memory_below_a_solvers_start_is_refused_naming_the_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = "instances/sudoku/small/easy9.txt"
    floor = f"{limits.MIN_MEMORY_LIMIT_MB:g} MB"
    _assert_usage_error(
        main_cli("solve", board, "--encoding", "ilp-cbc", "--memory-limit", "8"), floor
    )
    db = tmp_path / "b.sqlite"
    suite = _suite(tmp_path)
    _assert_usage_error(
        main_cli("run", "--suite", suite, "--memory-limit", "4", "--store", str(db)), floor
    )
    with pytest.raises(SuiteError, match=floor):
        suites.load_suite(_suite(tmp_path, "memory_limit_mb = 4\n", name="m.toml"))
    # the per-run share of a small machine's memory: 60 MB over 2 runs is under the floor
    monkeypatch.setattr(run_command, "default_memory_limit_mb", lambda: 60.0)
    monkeypatch.setattr(limits, "usable_cores", lambda: 2)
    _assert_usage_error(
        main_cli("run", "--suite", suite, "--jobs", "2", "--store", str(db)), "30 MB", floor
    )
    assert not db.exists()


@pytest.mark.parametrize(
    ("board", "encoding"),
    [
        ("instances/sudoku/small/easy9.txt", "ilp-cbc"),  # CBC's own process: about 10 MB
        ("instances/sudoku/small/easy9.txt", "distinct-z3"),  # Z3: 19 MB at its peak
        ("instances/numberlink/tiny/tiny_5x5.txt", "circuit-cpsat"),
        ("instances/sudoku/small/easy9.txt", "ilp-highs"),
    ],
)
def test_every_solver_starts_and_solves_at_the_floor(board: str, encoding: str) -> None:
    """The floor is no guess: a real CBC, Z3, CP-SAT and HiGHS solve a tiny board under it."""
    result = run_cli(
        "solve", board, "--encoding", encoding, "--json",
        "--memory-limit", f"{limits.MIN_MEMORY_LIMIT_MB:g}",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["status"] == "solved" and doc["memory_limit_mb"] == limits.MIN_MEMORY_LIMIT_MB
