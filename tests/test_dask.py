"""The Dask executor against a real LocalCluster on 127.0.0.1 (worker processes, not threads).

The cluster runs in a subprocess of its own, so the pytest process (which forks runs in
other tests) never gets Dask's threads.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import store
from tests.conftest import ROOT, run_cli
from tests.stubs import stub_env

pytest.importorskip("distributed")

CLUSTER = """
import sys
from distributed import LocalCluster
cluster = LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
                       dashboard_address=None)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the test closes our stdin
cluster.close()
"""


@pytest.fixture
def scheduler():
    process = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        cwd=ROOT,
        env=stub_env(),
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
