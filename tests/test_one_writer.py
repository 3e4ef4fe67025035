"""One writer per sweep, one store per sweep (issue 58): real sweeps of a few dozen tiny runs.

A second `run --resume` of a sweep that is running is refused (it used to run every
missing run a second time); a `kill -9` frees the sweep at once. A store renamed over by
another SQLite file, or whose folder is removed, while a sweep writes to it stops the
sweep with exit 3 and one line naming the file that keeps its runs (it used to end
"N/N", exit 0, every run written to the unlinked file).
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

from tests.conftest import ROOT, run_cli

RUNS = 80
HELD_RUNS = 400  # long enough for a second command to start and be refused meanwhile


def _suite(folder: Path, runs: int = RUNS) -> Path:
    path = folder / "tiny.toml"
    path.write_text(
        f'[suite]\nrepeats = {runs}\ntime_limit_s = 20\n[[cases]]\nname = "tiny"\n'
        'puzzle = "knights_tour"\nencodings = ["warnsdorff"]\n'
        f'instances = ["{ROOT / "instances/knights_tour/3x10.txt"}"]\n'
    )
    return path


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", *args, "--jobs", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stored(store: Path) -> tuple[str, int]:
    """(run id, runs stored) as a reader sees them now; ("", 0) before the sweep is there."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
            sweep = conn.execute("SELECT run_id FROM sweeps").fetchone()
            count = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return "", 0
    return (sweep[0] if sweep else ""), count


def _wait_for_runs(store: Path, at_least: int, proc: subprocess.Popen) -> tuple[str, int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run_id, count = _stored(store)
        if count >= at_least:
            return run_id, count
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("the sweep stored no runs in 60 s")


def _runs_once(store: Path, run_id: str) -> list[int]:
    """How many times each planned run is stored (by repeat), sorted."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT repeat, COUNT(*) FROM runs WHERE run_id = ? GROUP BY repeat", (run_id,)
        ).fetchall()
    return sorted(n for _, n in rows)


def test_a_sweep_run_elsewhere_is_refused_and_kill_9_frees_it(tmp_path: Path) -> None:
    """While a sweep runs, `--resume` of it is one line naming the holder, exit 2, nothing
    run; after its `kill -9` a resume takes the sweep at once and stores each run once."""
    store = tmp_path / "b.sqlite"
    first = _start("run", "--suite", str(_suite(tmp_path, HELD_RUNS)), "--store", str(store))
    try:
        run_id, _ = _wait_for_runs(store, 3, first)
        refused = run_cli("run", "--resume", run_id, "--store", str(store))
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert f"sweep {run_id} is being run by pid {first.pid} on " in line
        assert "to run" not in refused.stdout  # refused before it planned anything
        first.send_signal(signal.SIGKILL)
        first.communicate()
    finally:
        if first.poll() is None:
            first.kill()
    _, stored = _stored(store)
    assert stored < HELD_RUNS, "the sweep finished before it was killed: no test"
    resumed = run_cli("run", "--resume", run_id, "--store", str(store), "--jobs", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert _runs_once(store, run_id) == [1] * HELD_RUNS
    assert not list(tmp_path.glob("*.lock"))  # let go, and removed, when the resume ended


@pytest.mark.parametrize("how", ["replaced", "folder-removed"])
def test_a_store_replaced_or_removed_mid_sweep_stops_it_and_keeps_its_runs(
    tmp_path: Path, how: str
) -> None:
    """The sweep stops with exit 3 and one line naming the copy of the store it had open;
    that copy holds every run stored before and after the change, `bench` reads it and a
    resume there finishes the sweep; the file put in the store's place is left as it was."""
    folder = tmp_path / "results"
    folder.mkdir()
    store = folder / "bench.sqlite"
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE notes (text)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()  # its WAL moved in: one file
    sweep = _start("run", "--suite", str(_suite(tmp_path)), "--store", str(store))
    try:
        run_id, before = _wait_for_runs(store, 3, sweep)
        if how == "replaced":
            os.replace(other, store)
        else:
            shutil.rmtree(folder)
        _, err = sweep.communicate(timeout=120)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    assert before < RUNS, "the sweep finished before its store was changed: no test"
    assert sweep.returncode == 3, err
    errors = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "replaced or removed while this sweep wrote to it" in errors[0]
    rescued = Path(errors[0].rsplit("--store ", 1)[1].rstrip(")"))
    assert rescued.parent == (folder if how == "replaced" else tmp_path)
    assert rescued.is_file() and (how == "replaced" or not folder.exists())
    if how == "replaced":  # the newcomer is untouched: its row, no runs table
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
            assert conn.execute("SELECT text FROM notes").fetchall() == [("mine",)]
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            assert tables == {"notes"}
    shown = run_cli("results", run_id, "--store", str(rescued), "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    kept = len(shown.stdout.strip().splitlines()) - 1
    assert before <= kept <= RUNS  # a run stored after the change is kept too
    resumed = run_cli("run", "--resume", run_id, "--store", str(rescued), "--jobs", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{RUNS} planned, {RUNS - kept} to run" in resumed.stdout
    assert _runs_once(rescued, run_id) == [1] * RUNS
