"""The README's Dask set-up as a user types it, and the cluster's faults.

``dask scheduler`` and ``dask worker`` are the console scripts of this environment (their
``bin/`` folder, which holds python-sat's ``models.py``, comes first on their path), started
from a folder of their own on 127.0.0.1; ``bench`` is the console script too. A run the
cluster loses is never stored, never an ``error``, and ``--resume`` runs it again.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench import store
from models.solvers import repeatable_counters
from tests.conftest import ROOT, run_cli
from tests.dask_cli import console_cluster, free_port
from tests.stubs import stub_env

pytest.importorskip("distributed")

#: real encodings on tiny boards, each with counters that repeat at one thread and seed 0
REAL_SUITE = """
[suite]
time_limit_s = 30
threads = [1]
seeds = [0]

[[cases]]
name = "sudoku"
puzzle = "sudoku"
instances = ["instances/sudoku/small/easy9.txt", "instances/sudoku/infeasible/row-clash.txt"]
encodings = ["cnf-sat", "ilp-highs", "alldiff-cpsat", "ilp-cbc"]

[[cases]]
name = "numberlink"
puzzle = "numberlink"
instances = ["instances/numberlink/tiny/tiny_5x5.txt"]
encodings = ["degree-sat"]
"""

#: Dask gives up on an unreachable scheduler after this (its own setting), not 30 s
FAST_CONNECT = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"}


def bench(*args: str, env: dict[str, str] | None = None, timeout: float = 240):
    """The ``bench`` console script, run from the project's root as the README does."""
    command = shutil.which("bench") or str(Path(sys.executable).parent / "bench")
    return subprocess.run(
        [command, *args], cwd=ROOT, env=env or dict(os.environ), capture_output=True,
        text=True, timeout=timeout,
    )  # fmt: skip


def _outcomes(path: Path, run_id: str) -> dict[tuple, tuple]:
    """(case, instance, encoding) -> (status, verified, the repeatable counters)."""
    frame = store.load(path, [run_id])
    out = {}
    for row in frame.itertuples(index=False):
        names = repeatable_counters(row.solver, int(row.threads), row.options)
        counters = {n: row.counters[n] for n in names if n in row.counters}
        out[(row.case, row.instance, row.encoding)] = (row.status, bool(row.verified), counters)
    return out


def _run_id(output: str) -> str:
    return output.strip().splitlines()[-1].split()[-1]


def test_readme_dask_worker_sweep_equals_a_local_sweep(tmp_path: Path) -> None:
    suite = tmp_path / "real.toml"
    suite.write_text(REAL_SUITE)
    path = tmp_path / "bench.sqlite"
    local = bench("run", "--suite", str(suite), "--store", str(path))
    assert local.returncode == 0, local.stdout + local.stderr
    with console_cluster(tmp_path / "cluster") as (address, _, _):
        remote = bench("run", "--suite", str(suite), "--store", str(path),
                       "--executor", "dask", "--scheduler", address)  # fmt: skip
    assert remote.returncode == 0, remote.stdout + remote.stderr
    mine, theirs = _outcomes(path, _run_id(local.stdout)), _outcomes(path, _run_id(remote.stdout))
    assert len(mine) == 9 and mine == theirs
    assert {status for status, _, _ in mine.values()} == {"solved", "infeasible"}
    assert sum(bool(counters) for _, _, counters in mine.values()) >= 7  # counters compared
    hosts = store.load(path, [_run_id(remote.stdout)])["host"]
    assert hosts.ne("").all()


def test_unreachable_scheduler_is_one_line_exit_3_and_leaves_no_sweep(tmp_path: Path) -> None:
    suite = tmp_path / "real.toml"
    suite.write_text(REAL_SUITE)
    path = tmp_path / "bench.sqlite"
    ok = bench("run", "--suite", str(suite), "--store", str(path), "--puzzle", "numberlink")
    assert ok.returncode == 0, ok.stderr
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    started = time.monotonic()
    result = bench("run", "--suite", str(suite), "--store", str(path), "--scheduler", address,
                   env={**os.environ, **FAST_CONNECT})  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr.strip() == f"error: cannot reach the scheduler at {address}"
    assert time.monotonic() - started < 60
    with sqlite3.connect(path) as conn:  # no new sweep: `latest` is still the local one
        assert conn.execute("SELECT run_id FROM sweeps").fetchall() == [(_run_id(ok.stdout),)]


SLOW_SUITE = """
[[cases]]
name = "slow"
puzzle = "knights_tour"
instances = ["gen:knights_tour:5x5:0:open=1", "gen:knights_tour:6x6:0"]
encodings = ["stub-ok"]
repeats = 4
time_limit_s = 20
[cases.options.stub-ok]
delay = 0.6
"""


def test_scheduler_killed_mid_sweep_then_resume_stores_every_run_once(tmp_path: Path) -> None:
    suite = tmp_path / "slow.toml"
    suite.write_text(SLOW_SUITE)
    path = tmp_path / "bench.sqlite"
    env = stub_env(**FAST_CONNECT)
    with console_cluster(tmp_path / "first", env) as (address, scheduler, _):
        sweep = subprocess.Popen(  # python -m: the stub encodings are found from the project's root
            [sys.executable, "-m", "bench", "run", "--suite", str(suite), "--store", str(path),
             "--executor", "dask", "--scheduler", address],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while _stored(path) < 2:  # some runs done, others in flight
                assert time.monotonic() < deadline and sweep.poll() is None, sweep.communicate()
                time.sleep(0.05)
            os.kill(scheduler.pid, signal.SIGKILL)
            out, err = sweep.communicate(timeout=120)
        finally:
            if sweep.poll() is None:
                sweep.kill()
                sweep.wait()
    assert sweep.returncode == 3, out + err
    line = err.strip().splitlines()[-1]
    assert "lost the connection to the scheduler" in line and "--resume" in line, err
    assert "Traceback" not in err
    frame = store.load(path)
    run_id = frame["run_id"].iloc[0]
    assert 2 <= len(frame) < 8 and (frame["status"] == "solved").all()
    with sqlite3.connect(path) as conn:  # left unfinished
        assert conn.execute("SELECT finished_at FROM sweeps").fetchall() == [(None,)]
    with console_cluster(tmp_path / "second", env) as (address, _, _):
        resumed = run_cli("run", "--resume", run_id, "--store", str(path),
                          "--executor", "dask", "--scheduler", address, env=env)  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    frame = store.load(path)
    keys = list(zip(frame["instance"], frame["repeat"], strict=True))
    assert len(keys) == 8 and len(set(keys)) == 8  # every planned run exactly once
    assert (frame["status"] == "solved").all()


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:  # not yet made
        return 0
