"""`run --resume` keeps the sweep's meaning: the same boards, the suite it names, the report
it asked for; and `bench backup` copies a store whose runs are still in its `-wal` file.

Real sweeps through the `bench` console script on real Sudoku boards (a few ms each) and
the knight's-tour stand-ins (`tests/stubs`), with a real SQLite store.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from bench import store
from tests.conftest import ROOT, main_cli
from tests.stubs import stub_env
from tests.test_outputs import BENCH, bench, one_line_usage_error

BOARD = (ROOT / "instances/sudoku/small/easy9.txt").read_text()


def _suite(folder: Path, board: Path, report: bool = False) -> Path:
    suite = folder / "edit.toml"
    suite.write_text(
        f"[suite]\nreport = {'true' if report else 'false'}\n"
        f'[[cases]]\nname = "edit"\npuzzle = "sudoku"\ninstances = ["{board}"]\n'
        'encodings = ["dlx", "alldiff-cpsat"]\ntime_limit_s = 20\n'
    )
    return suite


def _sweep(folder: Path, suite: Path, *extra: str) -> tuple[Path, str]:
    path = folder / "bench.sqlite"
    result = bench("run", "--suite", str(suite), "--store", str(path), *extra, cwd=folder)
    assert result.returncode == 0, result.stderr
    return path, store.resolve_run_id(path, "latest")


def _forget(path: Path, encoding: str) -> None:
    """Take one run out of the store, as if the sweep had been killed before it ran."""
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DELETE FROM runs WHERE encoding = ?", (encoding,))


def test_resume_refuses_an_edited_instance_file_naming_it(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text(BOARD)
    path, run_id = _sweep(tmp_path, _suite(tmp_path, board), "--no-report")
    _forget(path, "alldiff-cpsat")
    board.write_text(_one_clue_fewer(BOARD))
    result = main_cli("run", "--resume", run_id, "--store", str(path))
    one_line_usage_error(result, str(board), "changed since sweep", run_id)
    assert list(store.load(path)["encoding"]) == ["dlx"]  # nothing ran on the new board
    board.write_text(BOARD + "\n\n")  # the same board, written again: resumes
    resumed = bench("run", "--resume", run_id, "--store", str(path), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    # issue 58: the summary counts the runs this resume ran, and says what was stored before
    assert f"run {run_id}: 1 run in " in resumed.stdout, resumed.stdout
    assert "(and 1 stored before)" in resumed.stdout, resumed.stdout
    runs = store.load(path)
    assert sorted(runs["encoding"]) == ["alldiff-cpsat", "dlx"]
    assert runs["instance_hash"].nunique() == 1


def _one_clue_fewer(text: str) -> str:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = line.split()
        if line.startswith("#") or not any(c != "0" for c in cells):
            continue
        first = next(j for j, c in enumerate(cells) if c != "0")
        lines[i] = " ".join([*cells[:first], "0", *cells[first + 1 :]])
        return "\n".join(lines) + "\n"
    raise AssertionError("no clue on the board")


def test_resume_writes_the_report_its_suite_asked_for_when_it_is_missing(tmp_path: Path) -> None:
    """SIGTERM while the report was written left the charts without report.md/html."""
    board = tmp_path / "board.txt"
    board.write_text(BOARD)
    path, run_id = _sweep(tmp_path, _suite(tmp_path, board, report=True))
    folder = tmp_path / "reports" / run_id
    page = folder / "report.html"
    assert page.is_file() and (folder / "report.md").is_file()
    page.unlink()
    (folder / "report.md").unlink()
    resumed = bench("run", "--resume", run_id, "--store", str(path), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 to run" in resumed.stdout
    assert page.is_file() and (folder / "report.md").is_file()
    assert "<html" in page.read_text()


def test_suite_and_resume_must_agree(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text(BOARD)
    suite = _suite(tmp_path, board)
    path, run_id = _sweep(tmp_path, suite)
    _forget(path, "dlx")
    other = tmp_path / "other.toml"
    other.write_text(suite.read_text())
    for given, fragment in (("quick", "not the suite of sweep"), (str(other), "(edit)")):
        one_line_usage_error(
            main_cli("run", "--suite", given, "--resume", run_id, "--store", str(path)), fragment
        )
    suite.write_text(suite.read_text().replace("time_limit_s = 20", "time_limit_s = 5"))
    one_line_usage_error(
        main_cli("run", "--suite", str(suite), "--resume", run_id, "--store", str(path)),
        "changed since sweep",
    )
    assert list(store.load(path)["encoding"]) == ["alldiff-cpsat"]  # nothing ran
    suite.write_text(suite.read_text().replace("time_limit_s = 5", "time_limit_s = 20"))
    agreed = bench("run", "--suite", str(suite), "--resume", run_id, "--store", str(path))
    assert agreed.returncode == 0, agreed.stderr
    assert sorted(store.load(path)["encoding"]) == ["alldiff-cpsat", "dlx"]


def test_backup_after_kill_9_holds_every_stored_run(tmp_path: Path) -> None:
    """After `kill -9` of a sweep its runs may be in bench.sqlite-wal only; `bench backup`
    copies them all into one file that needs no -wal."""
    suite = tmp_path / "slow.toml"
    suite.write_text(
        '[[cases]]\nname = "slow"\npuzzle = "knights_tour"\n'
        'instances = ["gen:knights_tour:5x5:0:open=1"]\nencodings = ["stub-ok"]\nrepeats = 20\n'
        "time_limit_s = 20\n[cases.options.stub-ok]\ndelay = 0.3\n"
    )
    path = tmp_path / "bench.sqlite"
    sweep = subprocess.Popen(
        ["bench", "run", "--suite", str(suite), "--store", str(path), "--jobs", "1"],
        env=stub_env(
            PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", PYTHONPATH=str(ROOT)
        ),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        while _count(path) < 3:
            assert time.monotonic() < deadline and sweep.poll() is None, "the sweep stalled"
            time.sleep(0.05)
    finally:
        if sweep.poll() is None:
            os.kill(sweep.pid, signal.SIGKILL)
        sweep.wait(10)
    stored = _count(path)
    assert 3 <= stored < 20
    assert Path(f"{path}-wal").stat().st_size > 0  # runs the .sqlite file alone may lack
    copy = tmp_path / "copy.sqlite"
    result = bench("backup", str(copy), "--store", str(path))
    assert result.returncode == 0, result.stderr
    assert f"backed up {stored} runs" in result.stdout
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "bench.sqlite").write_bytes(copy.read_bytes())  # the one file, nothing beside it
    assert not Path(f"{copy}-wal").exists()
    assert len(store.load(moved / "bench.sqlite")) == stored
    one_line_usage_error(main_cli("backup", str(copy), "--store", str(path)), "exists")


def _count(path: Path) -> int:
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_sigterm_while_the_report_is_written_leaves_no_half_file_and_resume_writes_it(
    tmp_path: Path,
) -> None:
    """A real SIGTERM once the first chart is there: the sweep stops (143) with every run
    stored, no partial file in the report's folder, and the resume writes the report."""
    board = tmp_path / "board.txt"
    board.write_text(BOARD)
    suite = _suite(tmp_path, board, report=True)
    path = tmp_path / "bench.sqlite"
    sweep = subprocess.Popen(
        [BENCH, "run", "--suite", str(suite), "--store", str(path)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "reports").glob("*/*.png")):
            assert time.monotonic() < deadline and sweep.poll() is None, "no chart came"
            time.sleep(0.01)
        os.kill(sweep.pid, signal.SIGTERM)
        assert sweep.wait(60) == 143
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    run_id = store.resolve_run_id(path, "latest")
    folder = tmp_path / "reports" / run_id
    assert not [p.name for p in folder.iterdir() if ".partial" in p.name]
    assert len(store.load(path)) == 2  # the runs were stored before the report began
    if not (folder / "report.html").is_file():  # the usual case: stopped among the charts
        resumed = bench("run", "--resume", run_id, "--store", str(path), cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
    assert (folder / "report.html").is_file() and (folder / "report.md").is_file()
