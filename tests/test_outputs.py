"""Files are never clobbered: every output of `bench` onto a symlink, a FIFO, a device, a
folder or an existing file, and `--store` onto things that are not a store file.

All through the `bench` console script, as a user types it, on a real store made by a real
two-run sweep. The device is a null device made in the test's folder (`mknod`, as root), so
no test ever writes to the machine's own `/dev`.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench import store
from tests.conftest import main_cli

BENCH = str(Path(sys.executable).parent / "bench")
BOARD = "instances/sudoku/small/easy9.txt"


def bench(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BENCH, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def one_line_usage_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def null_device(folder: Path) -> Path:
    """A character device like /dev/null (major 1, minor 3), made here, never /dev's own."""
    path = folder / "null"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD); CI runs as root")
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one real sweep: two Sudoku encodings on one 9x9 board."""
    folder = tmp_path_factory.mktemp("store")
    suite = folder / "two.toml"
    suite.write_text(
        f'[[cases]]\nname = "two"\npuzzle = "sudoku"\ninstances = ["{BOARD}"]\n'
        'encodings = ["dlx", "alldiff-cpsat"]\ntime_limit_s = 20\n'
    )
    path = folder / "bench.sqlite"
    result = bench("run", "--suite", str(suite), "--store", str(path), "--no-report")
    assert result.returncode == 0, result.stderr
    return path


def test_exports_onto_a_symlink_write_its_target_and_keep_the_link(
    stored: Path, tmp_path: Path
) -> None:
    made = {}
    for name, argv in {
        "runs.csv": ["results", "--format", "csv"],
        "runs.parquet": ["results", "--format", "parquet"],
        "verdicts.md": ["compare", "latest", "latest", "--format", "md"],
        "fig.svg": ["plot", "cactus"],
        "trend.svg": ["history"],
    }.items():
        target = tmp_path / "real" / name
        target.parent.mkdir(exist_ok=True)
        target.write_text("old")
        link = tmp_path / f"link-{name}"
        link.symlink_to(target)
        flag = "--chart" if argv[0] == "history" else "--out"
        result = bench(*argv, flag, str(link), "--store", str(stored))
        assert result.returncode == 0, (name, result.stderr)
        assert link.is_symlink() and link.resolve() == target, name  # the link stays a link
        made[name] = target.read_bytes()
    assert made["runs.csv"].startswith(b"run_id,") and made["runs.parquet"][:4] == b"PAR1"
    assert b"same" in made["verdicts.md"] and made["fig.svg"].lstrip().startswith(b"<?xml")


def test_exports_into_a_fifo_and_a_device_write_in_place(stored: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = bench("results", "--format", "csv", "--out", str(fifo), "--store", str(stored))
    reader.join(30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO, not a CSV file in its place
    assert received and received[0].startswith(b"run_id,") and received[0].count(b"\n") == 3
    device = null_device(tmp_path)
    for argv in (["results", "--format", "json"], ["compare", "latest", "latest"]):
        result = bench(*argv, "--out", str(device), "--store", str(stored))
        assert result.returncode == 0, result.stderr
        assert stat.S_ISCHR(device.lstat().st_mode), argv  # still the device
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "pipe"]  # no stray file


def test_a_folder_or_an_existing_report_file_is_exit_2_one_line(
    stored: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    where = ["--store", str(stored)]
    for argv in (
        ["results", "--format", "csv", "--out", str(folder)],
        ["compare", "latest", "latest", "--out", str(folder)],
        ["history", "--chart", str(folder)],
        ["solve", BOARD, "--encoding", "dlx", "--draw", str(folder)],
        ["backup", str(folder)],
    ):  # refused before anything is done: asked in this process, to keep the test quick
        result = main_cli(*argv, *([] if argv[0] == "solve" else where))
        one_line_usage_error(result, str(folder))
    existing = tmp_path / "report-here"
    existing.write_text("keep me")
    one_line_usage_error(bench("report", "--out", str(existing), *where), "not a folder")
    assert existing.read_text() == "keep me"
    link = tmp_path / "report-link"
    link.symlink_to(folder)  # a link to a folder is followed
    assert main_cli("report", "--out", str(link), *where).returncode == 0
    assert {"report.md", "report.html"} <= {p.name for p in folder.iterdir()}
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_store_that_is_not_a_file_is_exit_2_and_nothing_is_left_beside_it(
    tmp_path: Path, kind: str
) -> None:
    place = tmp_path / "place"
    place.mkdir()
    if kind == "folder":
        target = place / "bench.sqlite"
        target.mkdir()
    elif kind == "fifo":
        target = place / "bench.sqlite"
        os.mkfifo(target)
    else:
        target = null_device(place)
    before = sorted(p.name for p in place.iterdir())
    suite = tmp_path / "one.toml"
    suite.write_text(
        f'[[cases]]\nname = "one"\npuzzle = "sudoku"\ninstances = ["{BOARD}"]\n'
        'encodings = ["dlx"]\n'
    )
    result = bench("run", "--suite", str(suite), "--store", str(target), timeout=60)
    one_line_usage_error(result, str(target), "--store")
    for argv in (["results"], ["report"], ["backup", str(tmp_path / "copy.sqlite")]):
        assert main_cli(*argv, "--store", str(target)).returncode == 2, argv
    assert sorted(p.name for p in place.iterdir()) == before  # no -journal, no -wal
    if kind == "device":
        assert stat.S_ISCHR(target.lstat().st_mode)


def test_finished_sweep_leaves_every_run_in_the_sqlite_file_alone(tmp_path: Path) -> None:
    """A reader holding the store open (a notebook, a second `bench`) used to keep every run
    of a finished sweep in the -wal file: a copy of bench.sqlite alone held none of them."""
    import sqlite3

    path = tmp_path / "bench.sqlite"
    suite = tmp_path / "one.toml"
    suite.write_text(
        f'[[cases]]\nname = "one"\npuzzle = "sudoku"\ninstances = ["{BOARD}"]\n'
        'encodings = ["dlx", "alldiff-cpsat"]\nrepeats = 2\n'
    )
    assert bench("run", "--suite", str(suite), "--store", str(path), "--no-report").returncode == 0
    reader = sqlite3.connect(path)  # open from here on, reading now and then
    try:
        assert reader.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 4
        result = bench("run", "--suite", str(suite), "--store", str(path), "--no-report")
        assert result.returncode == 0, result.stderr
        copy = tmp_path / "copy.sqlite"
        copy.write_bytes(path.read_bytes())  # the .sqlite file alone, without its -wal
        assert len(store.load(copy)) == 8
        assert Path(f"{path}-wal").stat().st_size == 0  # TRUNCATE: the -wal is emptied
    finally:
        reader.close()


def test_export_to_standard_output_by_its_proc_link_reaches_the_pipe_or_the_log(
    stored: Path, tmp_path: Path
) -> None:
    """`--out /dev/stdout` is a link to /proc/self/fd/1, whose name resolves to `pipe:[N]` or
    to the file the shell opened: it is opened as given, never resolved and renamed over. The
    test makes its own link (the machine's /dev/stdout is never at stake)."""
    stdout = tmp_path / "stdout"
    stdout.symlink_to("/proc/self/fd/1")
    argv = [BENCH, "results", "--format", "csv", "--out", str(stdout), "--store", str(stored)]
    piped = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith(b"run_id,") and piped.stdout.count(b"\n") == 3
    log = tmp_path / "log.txt"
    log.write_text("kept\n")
    with log.open("ab") as appended:  # `... --out /dev/stdout >> log.txt`
        result = subprocess.run(argv, stdout=appended, stderr=subprocess.PIPE, check=False)
    assert result.returncode == 0, result.stderr
    assert log.read_text().startswith("kept\nrun_id,")
    assert stdout.is_symlink() and os.readlink(stdout) == "/proc/self/fd/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt", "stdout"]
