"""The store defended: corrupt, foreign, newer, older, read-only and full stores, for real.

Each case uses a real SQLite file (or a real non-database file) and the real command line;
read-only media and full disks are real tmpfs mounts (skipped where mounting is impossible).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bench import cli, store, store_layout
from tests.conftest import run_cli
from tests.mounts import remount_readonly, tmpfs
from tests.stubs import stub_env
from tests.test_store import _record

OPEN_5 = "gen:knights_tour:5x5:0:open=1"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_harness_fault(code: int, err: str, *fragments: str) -> None:
    assert code == 3, (code, err)
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: "), err
    for fragment in fragments:
        assert fragment in last, last


def _filled_store(path: Path, run_id: str = "r1") -> None:
    with store.connect(path) as conn:
        store.start_sweep(conn, run_id, {"suite": "s", "plan": [], "started_at": "2026-01-01"})
        store.save_environment(conn, run_id, {"host": "h", "calibration_s": 0.1})
        store.insert_run(conn, _record(run_id))
        store.finish_sweep(conn, run_id, "2026-01-01T00:01")  # a sweep that ended: `latest`


def _read_commands(path: Path) -> list[list[str]]:
    where = ["--store", str(path)]
    return [
        ["results", "latest", *where],
        ["results", "latest", "--format", "json", *where],
        ["report", "latest", "--out", str(path.parent / "report"), *where],
        ["baseline", "save", "latest", "--name", "never-written", *where],
        ["compare", "latest", "latest", *where],
        ["run", "--resume", "r1", *where],
    ]


@pytest.mark.parametrize("kind", ["corrupt", "foreign", "newer"])
def test_unusable_store_is_exit_3_one_line_and_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture, kind: str
) -> None:
    path = tmp_path / "bench.sqlite"
    if kind == "corrupt":
        path.write_bytes(b"this is not a database\n" * 200)
        fragment = "not a readable results store"
    elif kind == "foreign":
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        fragment = "not a puzzle-bench results store"
    else:
        _filled_store(path)
        with closing(sqlite3.connect(path)) as conn:
            conn.execute(f"PRAGMA user_version = {store_layout.SCHEMA_VERSION + 1}")
        fragment = "newer layout"
    before = _digest(path)
    for argv in _read_commands(path):
        code = cli.main(argv)
        _assert_harness_fault(code, capsys.readouterr().err, fragment)
    result = run_cli("compare", "latest", "latest", "--store", str(path))  # never "regression"
    _assert_harness_fault(result.returncode, result.stderr, fragment)
    assert _digest(path) == before
    # no report, no baseline; a WAL store read read-only may keep its (empty) -wal and -shm
    left = {p.name: p.stat().st_size for p in tmp_path.iterdir()}
    assert set(left) <= {"bench.sqlite", "bench.sqlite-wal", "bench.sqlite-shm"}, left
    assert left.get("bench.sqlite-wal", 0) == 0
    assert not Path("results/baseline/never-written.json").exists()


OLD_LAYOUT = """
CREATE TABLE runs (row_id INTEGER PRIMARY KEY, run_id TEXT, started_at TEXT, suite TEXT,
  puzzle TEXT, instance TEXT, size TEXT, encoding TEXT, solver TEXT, solver_version TEXT,
  encoding_hash TEXT, repeat INTEGER, seed INTEGER, threads INTEGER, time_limit_s REAL,
  status TEXT, verified INTEGER, build_s REAL, solve_s REAL, wall_s REAL, cpu_s REAL,
  peak_rss_mb REAL, n_vars INTEGER, n_constraints INTEGER, counters TEXT, error TEXT, host TEXT);
CREATE TABLE environments (run_id TEXT PRIMARY KEY, environment TEXT);
CREATE TABLE sweeps (run_id TEXT PRIMARY KEY, suite TEXT, planned INTEGER, plan TEXT);
INSERT INTO runs (run_id, started_at, suite, puzzle, instance, size, encoding, solver, repeat,
  seed, threads, status, verified, wall_s, counters)
  VALUES ('old1', '2025-01-01T00:00:00', 's', 'knights_tour', 'x', '5x5', 'stub-ok', 'stub', 0,
  0, 1, 'solved', 1, 0.5, '{"nodes": 3}');
INSERT INTO sweeps (run_id, suite, planned, plan) VALUES ('old1', 's', 1, '[]');
"""


def test_old_layout_is_read_without_a_write_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "bench.sqlite"
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(OLD_LAYOUT)
    before = _digest(path)
    shown = run_cli("results", "latest", "--format", "json", "--store", str(path))
    assert shown.returncode == 0, shown.stderr
    runs = json.loads(shown.stdout)["runs"]
    assert [r["run_id"] for r in runs] == ["old1"] and runs[0]["counters"] == {"nodes": 3}
    assert runs[0]["options"] is None and runs[0]["overhead_s"] is None  # columns it never had
    assert _digest(path) == before  # reading did not migrate (or lock) the file
    with store.connect(path) as conn:  # a writer migrates every table
        assert conn.execute("PRAGMA user_version").fetchone()[0] == store_layout.SCHEMA_VERSION
        sweeps = {r[1] for r in conn.execute("PRAGMA table_info(sweeps)")}
        assert {"started_at", "finished_at", "suite_text", "arguments"} <= sweeps
        assert store.sweep(conn, "old1")["started_at"] is None
        assert store.insert_run(conn, _record("new1"))
    assert set(store.load(path)["run_id"]) == {"old1", "new1"}


def test_read_only_media_can_be_read_not_written(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", 2048) as folder:
        path = folder / "bench.sqlite"
        _filled_store(path)
        assert sorted(p.name for p in folder.iterdir()) == ["bench.sqlite"]  # WAL checkpointed
        remount_readonly(folder)
        shown = run_cli("results", "latest", "--format", "json", "--store", str(path))
        assert shown.returncode == 0, shown.stderr
        assert [r["run_id"] for r in json.loads(shown.stdout)["runs"]] == ["r1"]
        compared = run_cli("compare", "r1", "r1", "--store", str(path))
        assert compared.returncode == 0, compared.stdout + compared.stderr
        resumed = run_cli("run", "--resume", "r1", "--store", str(path))
        _assert_harness_fault(resumed.returncode, resumed.stderr, "cannot be written")


def test_full_disk_stops_the_sweep_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    suite = tmp_path / "many.toml"
    suite.write_text(
        f'[[cases]]\nname = "many"\npuzzle = "knights_tour"\ninstances = ["{OPEN_5}"]\n'
        'encodings = ["stub-ok"]\nrepeats = 40\ntime_limit_s = 10\n'
    )
    with tmpfs(tmp_path / "small", 1024) as folder:
        path, filler = folder / "bench.sqlite", folder / "filler"
        filler.write_bytes(b"x" * 800 * 1024)  # leaves about 220 KB: a few runs fit
        full = run_cli("run", "--suite", str(suite), "--store", str(path), env=stub_env())
        _assert_harness_fault(full.returncode, full.stderr, "disk full")
        kept = store.load(path)
        assert 1 <= len(kept) < 40 and (kept["status"] == "solved").all()
        export = folder / "runs.json"
        run_id = kept["run_id"][0]  # the stopped sweep is no `latest`: named by its id
        shown = run_cli("results", run_id, "--format", "json", "--out", str(export),
                        "--store", str(path))  # fmt: skip
        _assert_harness_fault(shown.returncode, shown.stderr, "runs.json")
        assert not export.exists() and not list(folder.glob(".*partial"))
        filler.unlink()  # room again
        resumed = run_cli("run", "--resume", run_id, "--store", str(path), env=stub_env())
        assert resumed.returncode == 0, resumed.stderr
        after = store.load(path)
        assert sorted(after["repeat"]) == list(range(40))  # each planned run exactly once
        assert set(after["run_id"]) == {run_id}
