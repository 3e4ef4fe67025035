"""The README's SLURM recipe on a real single-node SLURM cluster (opt-in: PUZZLE_BENCH_SLURM=1).

Needs root, Debian's ``slurm-wlm`` and ``munge`` (``apt-get install -y slurm-wlm munge``) and
dask-jobqueue (the ``slurm`` extra, pinned in requirements/ci.lock). It starts SLURM on this
host with ``scripts/slurm-single-node.sh``, submits one batch job of single-threaded Dask
workers with ``scripts/slurm_workers.py`` (the README's recipe, dask-jobqueue's SLURMCluster),
sweeps the ``quick`` suite through them and locally, and ``bench compare`` must call every case
the same (statuses and repeatable counters). About 2.5 minutes on 2 busy cores:

    PUZZLE_BENCH_SLURM=1 pytest -q -s tests/test_slurm.py

Two quick checks run always: the recipe as the README writes it installs the ``slurm`` extra
before it starts the workers, and without it ``slurm_workers.py`` says what to install in one
line (exit 2). The opt-in test also checks that ``slurm-single-node.sh stop`` ends what
``start`` started, ``munged`` included.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.store import load as load_runs
from tests.conftest import ROOT

opt_in = pytest.mark.skipif(
    os.environ.get("PUZZLE_BENCH_SLURM") != "1",
    reason="opt-in (about 2.5 min, needs root and slurm-wlm): PUZZLE_BENCH_SLURM=1",
)

SCRIPT = ROOT / "scripts" / "slurm-single-node.sh"
SLURM_HOME = os.environ.get("SLURM_HOME", "/tmp/puzzle-bench-slurm")


def _bench(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    command = shutil.which("bench") or str(Path(sys.executable).parent / "bench")
    return subprocess.run(
        [command, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )


def _run_id(output: str) -> str:
    return output.strip().splitlines()[-1].split()[-1]


@pytest.fixture(scope="module")
def slurm() -> Iterator[dict[str, str]]:
    """A running single-node SLURM; stopped afterwards if this test started it."""
    if not shutil.which("slurmctld") or not shutil.which("munged"):
        pytest.fail("PUZZLE_BENCH_SLURM=1 but SLURM is missing: apt-get install -y slurm-wlm munge")
    pytest.importorskip("dask_jobqueue")
    env = {**os.environ, "SLURM_HOME": SLURM_HOME, "SLURM_CONF": f"{SLURM_HOME}/slurm.conf"}
    was_up = subprocess.run(["pgrep", "-f", "slurmctld -f"], capture_output=True).returncode == 0
    munged_was_up = _running("munged")
    started = subprocess.run(["sh", str(SCRIPT), "start"], env=env, capture_output=True, text=True)
    assert started.returncode == 0, started.stdout + started.stderr
    yield env
    if not was_up:
        subprocess.run(["sh", str(SCRIPT), "stop"], env=env, capture_output=True)
        # stop ends what start started, munged included (it used to be left running)
        assert _running("munged") == munged_was_up
        assert not _running("slurmctld") and not _running("slurmd")


def _running(name: str) -> bool:
    """Whether a process of that exact name is alive (zombies left aside)."""
    found = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True).stdout.split()
    return any(
        Path(f"/proc/{pid}/stat").exists()
        and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
        for pid in found
    )


def test_without_the_slurm_extra_the_recipe_says_what_to_install() -> None:
    """slurm_workers.py where dask-jobqueue is not importable (``-S``: no site-packages):
    one line naming the extra, exit 2, no traceback (it was ModuleNotFoundError's)."""
    done = subprocess.run(
        [sys.executable, "-S", str(ROOT / "scripts" / "slurm_workers.py"), "--queue", "debug",
         "--cores", "2", "--memory", "4GB"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "error: dask_jobqueue is not installed: pip install -e '.[slurm]' "
        "(dask-jobqueue and dask[distributed], the slurm extra)"
    ]


def test_the_single_node_recipe_installs_the_slurm_extra() -> None:
    """The README's single-node recipe, as written, installs what slurm_workers.py imports
    before it runs it, and stops what it started."""
    readme = (ROOT / "README.md").read_text()
    recipe = readme.split("The same on one machine, with a real single-node SLURM", 1)[1]
    block = recipe.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    install = next(i for i, line in enumerate(block) if "pip install -e '.[slurm]'" in line)
    workers = next(i for i, line in enumerate(block) if "scripts/slurm_workers.py" in line)
    assert install < workers, block
    assert block[-1].startswith("scripts/slurm-single-node.sh stop"), block


@opt_in
def test_a_sweep_through_slurm_workers_equals_a_local_sweep(
    slurm: dict[str, str], tmp_path: Path
) -> None:
    workers = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "slurm_workers.py"), "--queue", "debug",
         "--jobs", "1", "--cores", "2", "--memory", "4GB", "--walltime", "00:30:00",
         "--host", "127.0.0.1", "--log-directory", str(tmp_path / "jobs"),
         "--prologue", f"cd {ROOT}", "--prologue", f"source {sys.prefix}/bin/activate"],
        cwd=ROOT, env=slurm, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    store = str(tmp_path / "bench.sqlite")
    try:
        address = workers.stdout.readline().strip()  # printed once both workers joined
        assert address.startswith("tcp://127.0.0.1:"), (address, workers.poll())
        begun = time.monotonic()
        remote = _bench("run", "--suite", "quick", "--store", store, "--no-report",
                        "--executor", "dask", "--scheduler", address, env=slurm)  # fmt: skip
        seconds = time.monotonic() - begun
        assert remote.returncode == 0, remote.stdout + remote.stderr
    finally:
        workers.stdin.close()  # the workers' jobs end with the cluster
        try:
            workers.wait(60)
        except subprocess.TimeoutExpired:
            workers.kill()
            workers.wait()
    local = _bench("run", "--suite", "quick", "--store", store, "--no-report", env=slurm)
    assert local.returncode == 0, local.stdout + local.stderr
    slurm_id, local_id = _run_id(remote.stdout), _run_id(local.stdout)
    compared = _bench("compare", local_id, slurm_id, "--store", store, "--format", "json",
                      env=slurm)  # fmt: skip
    assert compared.returncode == 0, compared.stdout + compared.stderr
    counts = json.loads(compared.stdout)["counts"]
    assert set(counts) == {"same"} and counts["same"] > 0, counts
    frame = load_runs(store)
    keys = ["case", "instance", "encoding", "repeat"]
    statuses = {
        run_id: part.set_index(keys)["status"].sort_index().to_dict()
        for run_id, part in frame.groupby("run_id")
    }
    assert statuses[slurm_id] == statuses[local_id] and len(statuses[slurm_id]) > 50
    tally = frame[frame.run_id == slurm_id]["status"].value_counts().to_dict()
    print(
        f"\nSLURM sweep {slurm_id}: {seconds:.1f} s wall, {tally}; local sweep {local_id};"
        f" bench compare {local_id} {slurm_id}: {counts['same']} same"
    )
