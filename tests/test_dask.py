"""The Dask executor against a real LocalCluster on 127.0.0.1 (worker processes, not threads).

The cluster runs in a subprocess of its own, so the pytest process (which forks runs in
other tests) never gets Dask's threads. One cluster serves the module; it is set up with
``allowed-failures: 0``, so a killed worker's run is lost at once rather than retried (a run's
own crash, reported by its worker, is an error and does not touch that setting).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench import store
from tests.conftest import ROOT, run_cli
from tests.stubs import stub_env

pytest.importorskip("distributed")

CLUSTER = """
import sys
import dask
from distributed import LocalCluster
dask.config.set({"distributed.scheduler.allowed-failures": 0})
cluster = LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
                       dashboard_address=None)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the test closes our stdin
cluster.close()
"""


#: the workers report another version than the client: records must carry the worker's
WORKER_ENV = {"STUB_SOLVER_VERSION": "stub-on-worker"}


@pytest.fixture(scope="module")
def scheduler():
    process = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        cwd=ROOT,
        env=stub_env(**WORKER_ENV),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = process.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        yield address
    finally:
        process.stdin.close()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def test_runs_go_to_dask_workers_and_land_in_the_store(scheduler: str, tmp_path: Path) -> None:
    suite = tmp_path / "tiny.toml"
    suite.write_text(
        """
[[cases]]
name = "remote"
puzzle = "knights_tour"
instances = ["gen:knights_tour:5x5:0:open=1", "gen:knights_tour:6x6:0", "gen:knights_tour:5x5:0"]
encodings = ["stub-ok", "stub-crash"]
time_limit_s = 20
"""
    )
    path = tmp_path / "bench.sqlite"
    result = run_cli(
        "run", "--suite", str(suite), "--store", str(path),
        "--executor", "dask", "--scheduler", scheduler, env=stub_env(),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr  # stub-crash is an error, on a worker too
    frame = store.load(path)
    assert len(frame) == 6
    ok = frame[frame.encoding == "stub-ok"].set_index("instance")["status"].to_dict()
    assert ok == {
        "gen:knights_tour:5x5:0:open=1": "solved",
        "gen:knights_tour:6x6:0": "solved",
        "gen:knights_tour:5x5:0": "infeasible",
    }
    assert frame[frame.encoding == "stub-ok"]["verified"].sum() == 2
    crashed = frame[frame.encoding == "stub-crash"]
    assert (crashed["status"] == "error").all() and crashed["error"].str.contains("SIGABRT").all()
    assert frame["host"].ne("").all() and frame["wall_s"].notna().all()
    workers = store.environments(path)[frame["run_id"][0]]["workers"]
    assert len(workers) == 2 and all(w["calibration_s"] > 0 for w in workers.values())
    # versions and hashes are the worker's, not the client's (which says "stub-1")
    assert (frame["solver_version"] == "stub-on-worker").all()
    hashes = next(iter(workers.values()))["encoding_hashes"]
    assert (
        frame["encoding_hash"] == frame["encoding"].map(lambda e: hashes[f"knights_tour/{e}"])
    ).all()


def _helpers_running_a_run() -> list[tuple[int, int]]:
    """(helper pid, its parent: the Dask worker) for helpers that have a run forked."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{name}/stat").read_text()
            children = Path(f"/proc/{name}/task/{name}/children").read_text().split()
        except OSError:
            continue
        if b"bench.remote" in cmdline and len(children) >= 2:  # its guard and a run
            try:  # this module's cluster's helper, not another sweep's on the machine
                mine = b"STUB_SOLVER_VERSION=stub-on-worker" in Path(
                    f"/proc/{name}/environ"
                ).read_bytes().split(b"\0")
            except OSError:
                continue
            if mine:
                found.append((int(name), int(stat.rsplit(")", 1)[1].split()[1])))
    return found


def test_a_worker_killed_mid_run_is_lost_not_an_error_and_resume_finishes(
    scheduler: str, tmp_path: Path
) -> None:
    suite = tmp_path / "slow.toml"
    suite.write_text(
        """
[[cases]]
name = "slow"
puzzle = "knights_tour"
instances = ["gen:knights_tour:5x5:0:open=1", "gen:knights_tour:6x6:0"]
encodings = ["stub-ok"]
repeats = 2
time_limit_s = 20
[cases.options.stub-ok]
delay = 0.6  # the kill lands while the run is in flight, even on a loaded machine
"""
    )
    path = tmp_path / "bench.sqlite"
    command = [sys.executable, "-m", "bench", "run", "--suite", str(suite), "--store", str(path),
               "--executor", "dask", "--scheduler", scheduler]  # fmt: skip
    sweep = subprocess.Popen(
        command, cwd=ROOT, env=stub_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while not (busy := _helpers_running_a_run()):
            assert time.monotonic() < deadline and sweep.poll() is None, sweep.communicate()
            time.sleep(0.02)
        os.kill(busy[0][1], signal.SIGKILL)  # the worker itself, with a run in flight
        out, err = sweep.communicate(timeout=120)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    assert sweep.returncode == 3, out + err  # the cluster's fault, not the encoding's
    line = err.strip().splitlines()[-1]
    # the killed worker held its running run and maybe one queued for it (Dask sends a
    # single-threaded worker up to two): each is lost, none is stored
    lost = int(line.removeprefix("error: ").split()[0])
    assert lost in (1, 2) and "lost to the harness or the cluster" in line, err
    assert "KilledWorker" in line and "--resume" in line and "Traceback" not in err
    frame = store.load(path)
    assert len(frame) == 4 - lost and (frame["status"] == "solved").all()
    run_id = frame["run_id"].iloc[0]
    resumed = run_cli("run", "--resume", run_id, "--store", str(path), "--executor", "dask",
                      "--scheduler", scheduler, env=stub_env())  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{lost} to run" in resumed.stdout
    frame = store.load(path)
    assert sorted(zip(frame["instance"], frame["repeat"], strict=True)) == sorted(
        (i, r) for i in ("gen:knights_tour:5x5:0:open=1", "gen:knights_tour:6x6:0") for r in (0, 1)
    )  # every planned run exactly once
    assert (frame["status"] == "solved").all()


def test_plain_tcp_to_another_host_is_warned_about(tmp_path: Path) -> None:
    suite = tmp_path / "none.toml"
    suite.write_text('[[cases]]\nname = "x"\npuzzle = "knights_tour"\ninstances = ["nope.txt"]\n')
    result = run_cli(
        "run", "--suite", str(suite), "--executor", "dask", "--scheduler", "tcp://10.1.2.3:8786"
    )
    assert result.returncode == 2  # the suite is refused; the warning came first
    assert "tls://" in result.stderr and "SSH tunnel" in result.stderr


def test_short_runs_go_in_batches_sized_by_their_measured_time() -> None:
    from bench.execute import BATCH_TARGET_S, MAX_BATCH, _BatchSizer

    sizer = _BatchSizer()
    assert sizer.size(remaining=1000, slots=4) == 1  # nothing measured yet: one run a task
    sizer.measured(runs=10, seconds=0.05)  # 5 ms a run
    assert sizer.size(remaining=100_000, slots=4) == min(MAX_BATCH, int(BATCH_TARGET_S / 0.005))
    assert sizer.size(remaining=40, slots=4) == 10  # the end: an even share per batch slot
    slow = _BatchSizer()
    slow.measured(runs=2, seconds=4.0)  # 2 s a run: every run a task of its own
    assert slow.size(remaining=1000, slots=4) == 1


def test_no_worker_left_is_said_with_the_runs_that_remain(tmp_path: Path) -> None:
    """Issue 58: a sweep whose cluster has no worker used to sit silent for minutes."""
    cluster = subprocess.Popen(
        [sys.executable, "-c", CLUSTER.replace("n_workers=2", "n_workers=0")],
        cwd=ROOT, env=stub_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    sweep = None
    try:
        address = cluster.stdout.readline().strip()
        suite = tmp_path / "three.toml"
        suite.write_text(
            '[[cases]]\nname = "three"\npuzzle = "knights_tour"\nencodings = ["stub-ok"]\n'
            'instances = ["gen:knights_tour:5x5:0:open=1"]\nrepeats = 3\n'
        )
        command = [sys.executable, "-m", "bench", "run", "--suite", str(suite), "--store",
                   str(tmp_path / "bench.sqlite"), "--executor", "dask", "--scheduler", address]  # fmt: skip
        sweep = subprocess.Popen(
            command, cwd=ROOT, env=stub_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        timer = threading.Timer(90, sweep.kill)  # never hang the suite: EOF ends the loop
        timer.daemon = True
        timer.start()
        line = sweep.stderr.readline()  # blocks until the sweep says something on stderr
        while line and "waiting for Dask workers" not in line:
            line = sweep.stderr.readline()
        assert f"none is connected to {address}; 3 runs remain" in line, line
    finally:
        if sweep is not None:
            sweep.kill()
            sweep.communicate()
        cluster.stdin.close()
        try:
            cluster.wait(20)
        except subprocess.TimeoutExpired:
            cluster.kill()
            cluster.wait(5)
