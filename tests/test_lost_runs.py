"""A run lost to the harness's own temporary disk is never the encoding's error.

A real CBC run whose temporary folder (TMPDIR) is a full tmpfs: PuLP cannot write its
``.mps``. The run is lost, not stored; the sweep stops (every later run would fail the same
way) with one line and exit 3, unfinished; a resume with room runs exactly what is missing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench import store
from tests.conftest import run_cli
from tests.mounts import tmpfs

SUITE = """
[suite]
time_limit_s = 30
jobs = 1

[[cases]]
name = "cbc"
puzzle = "sudoku"
instances = ["instances/sudoku/small/easy9.txt"]
encodings = ["cnf-sat", "ilp-cbc", "ilp-highs"]
"""


def test_full_tmpdir_loses_the_run_stops_the_sweep_and_resume_finishes(tmp_path: Path) -> None:
    suite = tmp_path / "cbc.toml"
    suite.write_text(SUITE)
    path = tmp_path / "bench.sqlite"
    with tmpfs(tmp_path / "tmp", size_kb=16) as tmp:  # room for a folder, not for an .mps
        result = run_cli("run", "--suite", str(suite), "--store", str(path),
                         env={"TMPDIR": str(tmp)})  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: run ") and "stopped: the runs' temporary disk (TMPDIR)" in line
    assert "No space left on device" in line and "1 run lost (not stored)" in line, line
    frame = store.load(path)
    assert "error" not in set(frame["status"])  # never the encoding's failure
    assert "ilp-cbc" not in set(frame["encoding"])
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT finished_at FROM sweeps").fetchall() == [(None,)]
    run_id = frame["run_id"].iloc[0]
    resumed = run_cli("run", "--resume", run_id, "--store", str(path))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    frame = store.load(path)
    assert sorted(frame["encoding"]) == ["cnf-sat", "ilp-cbc", "ilp-highs"]  # each once
    assert set(frame["status"]) == {"solved"}


def test_full_tmpdir_under_solve_is_exit_3_not_an_error(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "tmp", size_kb=16) as tmp:
        result = run_cli("solve", "instances/sudoku/small/easy9.txt", "--encoding", "ilp-cbc",
                         env={"TMPDIR": str(tmp)})  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: ilp-cbc on instances/sudoku/small/easy9.txt not measured: the runs' temporary"
        " disk (TMPDIR) failed: No space left on device"
    ]
