"""`bench run` and `bench results` end to end, with a real SQLite store in a temporary folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from bench import cli, store
from bench.record import FIELD_NAMES
from tests.conftest import ROOT, run_cli
from tests.stubs import stub_env

OPEN_5 = "gen:knights_tour:5x5:0:open=1"

SWEEP = f"""
[suite]
description = "stand-ins: honest, crashing, lying about infeasibility"
time_limit_s = 10

[[cases]]
name = "mixed"
puzzle = "knights_tour"
instances = ["{OPEN_5}", "gen:knights_tour:6x6:0"]
encodings = ["stub-ok", "stub-crash", "stub-infeasible"]
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    folder = tmp_path_factory.mktemp("sweep")
    suite = folder / "mixed.toml"
    suite.write_text(SWEEP)
    path = folder / "bench.sqlite"
    result = run_cli(
        "run", "--suite", str(suite), "--store", str(path), "--jobs", "2", env=stub_env()
    )
    return path, result


def test_sweep_stores_every_run_and_goes_on_after_a_crash(sweep) -> None:
    path, result = sweep
    assert result.returncode == 1, result.stderr  # a crash (error) and wrong claims
    frame = store.load(path)
    assert len(frame) == 6 and list(frame.columns) == list(FIELD_NAMES)
    by_encoding = frame.groupby("encoding")["status"].agg(set).to_dict()
    assert by_encoding == {
        "stub-ok": {"solved"},
        "stub-crash": {"error"},
        "stub-infeasible": {"wrong"},
    }
    assert all("verified solution" in e for e in frame[frame.encoding == "stub-infeasible"].error)
    solved = frame[frame.status == "solved"]
    assert solved["verified"].all() and solved["overhead_s"].notna().all()
    assert (solved["overhead_s"] < 1.0).all()
    assert set(frame["suite"]) == {"mixed"} and set(frame["case"]) == {"mixed"}
    assert (
        frame["encoding_hash"].str.len().eq(16).all()
        and (frame["solver_version"] == "stub-1").all()
    )
    assert frame["host"].ne("").all() and frame["started_at"].ne("").all()
    run_id = frame["run_id"][0]
    assert f"run id: {run_id}" in result.stdout and "refuted" in result.stdout
    env = store.environments(path)[run_id]
    assert env["calibration_s"] > 0 and env["git_commit"] and "cpu_model" in env
    assert len(env["load_avg"]) == 3 and all(x >= 0 for x in env["load_avg"])
    assert env["encoding_hashes"]["knights_tour/stub-ok"] == frame["encoding_hash"][0]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "pytest-benchmark", "table"])
def test_every_export_has_every_field(sweep, tmp_path: Path, fmt: str) -> None:
    path, _ = sweep
    out = tmp_path / f"out.{fmt}"
    assert (
        cli.main(["results", "latest", "--store", str(path), "--format", fmt, "--out", str(out)])
        == 0
    )
    if fmt == "csv":
        columns = set(pd.read_csv(out).columns)
    elif fmt == "parquet":
        columns = set(pd.read_parquet(out).columns)
    elif fmt == "json":
        doc = json.loads(out.read_text())
        assert len(doc["runs"]) == 6 and doc["environments"]
        columns = set(doc["runs"][0])
    elif fmt == "table":
        text = out.read_text()
        columns = {name for name in FIELD_NAMES if name in text}
    else:
        doc = json.loads(out.read_text())
        assert {"machine_info", "commit_info", "benchmarks", "datetime", "version"} <= set(doc)
        bench = doc["benchmarks"][0]
        assert bench["stats"]["rounds"] >= 1 and {"median", "iqr", "data"} <= set(bench["stats"])
        return
    assert set(FIELD_NAMES) <= columns, set(FIELD_NAMES) - columns
    assert not [c for c in columns if c.startswith("counter_")]  # counters: one column


def test_pytest_benchmark_reads_the_export(sweep, tmp_path: Path) -> None:
    path, _ = sweep
    out = tmp_path / "bench.json"
    cli.main(["results", "--store", str(path), "--format", "pytest-benchmark", "--out", str(out)])
    shown = subprocess.run(
        [sys.executable, "-m", "pytest_benchmark", "compare", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "stub-ok" in shown.stdout


def test_unknown_run_id_is_a_usage_error(sweep, capsys) -> None:
    path, _ = sweep
    assert cli.main(["results", "no-such-run", "--store", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-run" in err[0]
    assert cli.main(["run", "--resume", "no-such-run", "--store", str(path)]) == 2


def test_resume_after_kill_runs_only_what_is_missing(tmp_path: Path) -> None:
    suite = tmp_path / "slow.toml"
    suite.write_text(
        f"""
[[cases]]
name = "slow"
puzzle = "knights_tour"
instances = ["{OPEN_5}"]
encodings = ["stub-ok"]
repeats = 6
time_limit_s = 20
[cases.options.stub-ok]
delay = 0.6
"""
    )
    path, pids = tmp_path / "bench.sqlite", tmp_path / "pids"
    env = stub_env(STUB_PID_FILE=str(pids))
    command = [sys.executable, "-m", "bench", "run", "--suite", str(suite), "--store", str(path)]
    sweep = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 90
        while _stored(path) < 2:
            assert time.monotonic() < deadline and sweep.poll() is None, "the sweep stalled"
            time.sleep(0.1)
        time.sleep(0.3)  # let the next run start, so one is in flight when the sweep dies
    finally:
        os.kill(sweep.pid, signal.SIGKILL)
        sweep.wait(10)
    in_flight = int(pids.read_text().split()[-1])
    deadline = time.monotonic() + 5  # the guard kills the run's group once the sweep is gone
    while Path(f"/proc/{in_flight}").exists() and not _zombie(in_flight):
        assert time.monotonic() < deadline, "a run outlived its sweep"
        time.sleep(0.05)
    before = store.load(path)
    assert 2 <= len(before) < 6
    run_id = before["run_id"][0]
    resumed = run_cli("run", "--resume", run_id, "--store", str(path), env=env)
    assert resumed.returncode == 0, resumed.stderr
    after = store.load(path)
    assert sorted(after["repeat"]) == list(range(6))  # every planned run exactly once
    assert set(after["run_id"]) == {run_id} and (after["status"] == "solved").all()
    assert cli.main(["run", "--resume", run_id, "--store", str(path)]) == 0  # nothing left to run
    assert len(store.load(path)) == 6


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        return len(store.load(path))
    except Exception:  # the schema may not exist yet in the first instant
        return 0


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
