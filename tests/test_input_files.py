"""Instance files are checked before they are read, and never quoted (issue 58, "the edges").

A 1 GB file was read whole (the sweep grew past 13 GB), a suite naming ``/proc/self/environ``
printed the environment with its values in its error line, and a FIFO or a device was "no
such file". Each is tried here for real: a sparse 1 GB file, the real ``/proc`` file with a
marker put into the environment, a real FIFO, and random files written by Hypothesis.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import store, suites
from models import registry
from models.base import Puzzle
from models.errors import InstanceError, SuiteError
from tests.conftest import ROOT, run_cli
from tests.test_cli import _assert_usage_error


def _suite(folder: Path, instances: list[str], name: str = "s.toml", puzzle: str = "numberlink"):
    path = folder / name
    path.write_text(
        f'[[cases]]\nname = "c"\npuzzle = "{puzzle}"\nencodings = ["degree-sat"]\n'
        f"instances = {json.dumps(instances)}\n"
    )
    return path


#: runs its arguments and writes their peak memory (KB) to the file named by PB_PEAK_FILE.
#: The measured command is forked from this small process, not from pytest's: Linux counts
#: the forking process's pages in a child's ``ru_maxrss`` up to its exec
_PEAK_WRAPPER = (
    "import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:]); "
    "_, s, u = os.wait4(p.pid, 0); open(os.environ['PB_PEAK_FILE'], 'w').write(str(u.ru_maxrss)); "
    "sys.exit(os.waitstatus_to_exitcode(s))"
)


def _measured(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    """``bench ARGS`` in a subprocess with the marker in its environment; also its peak
    resident memory in MB (``wait4``), which shows how much of a file it read."""
    with tempfile.NamedTemporaryFile("w+") as peak:
        env = {**os.environ, "PB_SECRET_7f3a": "hunter2-do-not-print", "PB_PEAK_FILE": peak.name}
        done = subprocess.run(
            [sys.executable, "-c", _PEAK_WRAPPER, sys.executable, "-m", "bench", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        done.args = args
        return done, int(Path(peak.name).read_text()) / 1024


def test_a_file_over_its_puzzles_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A sparse 1 GB file (no disk used) was read whole: 17.9 GB peak and 150 s before the
    parse error. Now ``os.stat`` refuses it, for `solve` and for a suite naming it."""
    big = tmp_path / "numberlink" / "big.txt"
    big.parent.mkdir()
    with big.open("wb") as file:
        file.truncate(2**30)
    result, peak_mb = _measured("solve", str(big), "--encoding", "degree-sat")
    _assert_usage_error(result, str(big), "1,073,741,824 bytes", "over the cap of 16,777,216")
    suite = _suite(tmp_path, [str(big)])
    swept, sweep_peak_mb = _measured("run", "--suite", str(suite), "--store", str(tmp_path / "b"))
    _assert_usage_error(swept, str(suite), "over the cap")
    assert not (tmp_path / "b").exists()
    # the peak of every child so far: far below the gigabyte a read would take
    assert max(peak_mb, sweep_peak_mb) < 600, (peak_mb, sweep_peak_mb)


def test_a_proc_file_of_stat_size_0_is_still_held_to_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``/proc`` files say size 0 to ``os.stat``: the read itself is bounded at the cap."""
    monkeypatch.setenv(registry.MAX_FILE_BYTES_ENV, "16")
    assert os.stat("/proc/self/environ").st_size == 0 and len(os.environ) > 1
    with pytest.raises(InstanceError, match="more than 16 bytes, over the cap"):
        registry.load_instance("/proc/self/environ", "numberlink")


def test_the_environment_is_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench solve /proc/self/environ`` and a suite naming it printed every variable with its
    value ("non-integer token 'FOO=...'"): the error now says where, never what."""
    suite = _suite(tmp_path, ["/proc/self/environ"])
    for args in (
        ("solve", "/proc/self/environ", "--puzzle", "numberlink", "--encoding", "degree-sat"),
        ("solve", "/proc/self/environ", "--puzzle", "sudoku", "--encoding", "dlx"),
        ("solve", "/proc/self/environ", "--puzzle", "knights_tour", "--encoding", "warnsdorff"),
        ("run", "--suite", str(suite), "--store", str(tmp_path / "b.sqlite")),
    ):
        result, _ = _measured(*args)
        _assert_usage_error(result, "/proc/self/environ")
        assert "hunter2" not in result.stderr + result.stdout, result.stderr
        assert "PB_SECRET" not in result.stderr + result.stdout, result.stderr


def test_a_fifo_or_a_device_is_refused_in_one_line(tmp_path: Path) -> None:
    """A FIFO would block the read and a device never ends: both were "no such file"."""
    fifo = tmp_path / "numberlink" / "board.txt"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    for path, kind in ((str(fifo), "a FIFO"), ("/dev/zero", "a character device")):
        result = run_cli("solve", path, "--puzzle", "numberlink", "--encoding", "degree-sat")
        _assert_usage_error(result, path, f"not a regular file ({kind})")
        with pytest.raises(SuiteError, match=f"not a regular file \\({kind}\\)"):
            suites.load_suite(str(_suite(tmp_path, [path])))
    assert fifo.is_fifo()


def test_suite_paths_are_resolved_against_the_suites_folder(tmp_path: Path) -> None:
    """A suite's own boards sit beside it (once resolved against the project's root: "no such
    instance file"); names that are not there are the project's shipped instances; a run
    names a file outside the project by its absolute path, so ``--resume`` finds it."""
    folder = tmp_path / "mine"
    (folder / "boards").mkdir(parents=True)
    (folder / "boards" / "a.txt").write_text("1 0 1\n")
    (folder / "boards" / "b.txt").write_text("1 2\n1 2\n")
    shipped = "instances/numberlink/tiny/tiny_5x5.txt"
    suite = _suite(folder, ["boards/a.txt", "boards/*.txt", shipped])
    loaded = suites.load_suite(str(suite))
    specs = sorted({run.instance for run in loaded.runs})
    assert specs == sorted([shipped, str(folder / "boards/a.txt"), str(folder / "boards/b.txt")])
    # the suite's folder wins over the project's root for the same name
    (folder / "instances/numberlink/tiny").mkdir(parents=True)
    (folder / shipped).write_text("1 1\n")
    assert str(folder / shipped) in {r.instance for r in suites.load_suite(str(suite)).runs}
    (folder / shipped).unlink()
    db = tmp_path / "bench.sqlite"
    result = run_cli("run", "--suite", str(suite), "--store", str(db))
    assert result.returncode == 0, result.stderr
    frame = store.load(db)
    assert sorted(frame["instance"]) == specs
    assert set(frame["status"]) == {"solved"}


# Hypothesis: files a user might give, each holding a marked token somewhere
_MARK = "Zq9SECRETx"
_TOKENS = st.sampled_from(["0", "1", "2", "12", "-3", ".", "A", "AB", "x", "9", "open", "#", _MARK])
_LINES = st.lists(st.lists(_TOKENS, max_size=6).map(" ".join), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=_LINES, where=st.integers(0, 6), puzzle=st.sampled_from(
    ["numberlink", "sudoku", "sudoku_x", "knights_tour"]))  # fmt: skip
def test_no_error_line_quotes_the_file(lines: list[str], where: int, puzzle: str) -> None:
    """Whatever a file holds, loading it either works or fails naming the file and a place,
    never the file's text (the marker)."""
    lines.insert(min(where, len(lines)), f"1 {_MARK} 1")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.txt"
        path.write_text("\n".join(lines) + "\n")
        try:
            registry.load_instance(str(path), puzzle)
        except InstanceError as err:
            assert _MARK not in str(err) and str(path) in str(err), str(err)


@settings(max_examples=150, deadline=None)
@given(token=st.text(min_size=1, max_size=30).filter(lambda t: t.strip() == t and t.strip()))
def test_a_plugins_parser_that_quotes_a_token_is_cut(token: str) -> None:
    """A plugin's parser may write ``{token!r}`` into its message; the one loader cuts any
    quote of the file's text out of it, whatever the token holds."""

    def parse(text: str, source: str) -> None:
        raise InstanceError(source, f"bad token {text.split()[0]!r} in 'ROWS COLS'", 1)

    rules = Puzzle("plug", parse, str, lambda i, s: None, None, None, None, str)  # type: ignore[arg-type]
    with pytest.raises(InstanceError) as info:
        registry._parse_at(rules, f"{token} rest\n", "f.txt", 1)
    message = info.value.message
    assert repr(token) not in message and "not shown" in message, message
    assert "'ROWS COLS'" in message or "ROWS" in token or "COLS" in token, message
