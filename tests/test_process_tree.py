"""No process outlives its run: real signals to a real `solve` and a real sweep running CBC.

CBC is a grandchild (the run's child, started by PuLP); these tests find it in /proc,
interrupt or kill the harness, and check that 2 s later no process of the run's group is
alive and no solver file is left in the temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.guard import SETTLE_S
from tests.conftest import ROOT

HARD_BOARD = "gen:numberlink:15x15:1:pairs=4"  # keeps CBC busy for far longer than a test


def _stat(pid: int) -> tuple[str, str, int, int] | None:
    """(comm, state, ppid, pgid) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return comm, fields[0], int(fields[1]), int(fields[2])


def _live_in_group(pgid: int) -> list[int]:
    """Processes of a group that still run (zombies waiting for init count as gone)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = _stat(int(name))
            if info and info[3] == pgid and info[1] not in ("Z", "X"):
                found.append(int(name))
    return found


def _wait_for_cbc(parent: int, process: subprocess.Popen, timeout: float = 60) -> int:
    """The process group of the run (a child of ``parent``) once CBC runs inside it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        for name in os.listdir("/proc"):
            info = _stat(int(name)) if name.isdigit() else None
            if info and info[0] == "cbc":
                leader = _stat(info[3])
                if leader and leader[2] == parent:
                    return info[3]
        time.sleep(0.05)
    raise AssertionError("CBC never started")


def _assert_all_gone(pgid: int, tmp: Path) -> None:
    # the guard waits up to SETTLE_S for a killed group to be reaped before deleting its
    # folder; waiting only as long here raced it (the folder was still there once in CI)
    deadline = time.monotonic() + SETTLE_S + 3.0
    while (_live_in_group(pgid) or list(tmp.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _live_in_group(pgid), [_stat(p) for p in _live_in_group(pgid)]
    assert not list(tmp.rglob("*")), list(tmp.rglob("*"))


def _spawn(args: list[str], tmp: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_solve_kills_cbc_and_deletes_its_files(tmp_path: Path, sig: int) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    solve = _spawn(["solve", HARD_BOARD, "--encoding", "flow-mip-cbc", "--time-limit", "120"], tmp)
    try:
        pgid = _wait_for_cbc(solve.pid, solve)
        names = [p.name for p in tmp.rglob("*")]
        assert any(n.endswith("-pulp.mps") for n in names), names  # in the run's own folder
        solve.send_signal(sig)
        _, err = solve.communicate(timeout=10)
    finally:
        if solve.poll() is None:
            solve.kill()
            solve.wait()
    assert solve.returncode == (130 if sig == signal.SIGINT else 128 + sig), err
    assert "Traceback" not in err
    _assert_all_gone(pgid, tmp)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_killed_sweep_leaves_no_cbc_and_no_files(tmp_path: Path, sig: int) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    suite = tmp_path / "cbc.toml"
    suite.write_text(
        f'[[cases]]\nname = "cbc"\npuzzle = "numberlink"\ninstances = ["{HARD_BOARD}"]\n'
        'encodings = ["flow-mip-cbc"]\ntime_limit_s = 120\n'
    )
    store = tmp_path / "bench.sqlite"
    sweep = _spawn(["run", "--suite", str(suite), "--store", str(store)], tmp)
    try:
        pgid = _wait_for_cbc(sweep.pid, sweep)
        assert any(p.name.endswith("-pulp.mps") for p in tmp.rglob("*"))
    finally:
        # SIGKILL: the sweep cannot clean up, its guard does; SIGINT (Ctrl-C): the sweep does
        sweep.send_signal(sig)
        _, err = sweep.communicate(timeout=10)
    assert sweep.returncode == (-9 if sig == signal.SIGKILL else 130), err
    assert "Traceback" not in err
    _assert_all_gone(pgid, tmp)


def _guards_of(parent: int) -> list[int]:
    """Live guard processes (``python -m bench.guard``) started by ``parent``."""
    found = []
    for name in os.listdir("/proc"):
        info = _stat(int(name)) if name.isdigit() else None
        if info and info[2] == parent and info[1] not in ("Z", "X"):
            with contextlib.suppress(OSError):
                if b"bench.guard" in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
    return found


def test_a_killed_guard_is_replaced_so_a_killed_sweep_still_leaves_nothing(
    tmp_path: Path,
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    suite = tmp_path / "cbc.toml"
    suite.write_text(
        f'[[cases]]\nname = "cbc"\npuzzle = "numberlink"\ninstances = ["{HARD_BOARD}"]\n'
        'encodings = ["flow-mip-cbc"]\ntime_limit_s = 120\n'
    )
    sweep = _spawn(["run", "--suite", str(suite), "--store", str(tmp_path / "bench.sqlite")], tmp)
    try:
        pgid = _wait_for_cbc(sweep.pid, sweep)
        (first,) = _guards_of(sweep.pid)
        os.kill(first, signal.SIGKILL)  # the guard dies; the sweep must notice
        deadline = time.monotonic() + 5
        while not [g for g in _guards_of(sweep.pid) if g != first] and time.monotonic() < deadline:
            time.sleep(0.05)
        replaced = [g for g in _guards_of(sweep.pid) if g != first]
        time.sleep(0.3)  # the new guard reads what the sweep told it
    finally:
        sweep.send_signal(signal.SIGKILL)  # then the sweep dies, with CBC still solving
        sweep.communicate(timeout=10)
    assert replaced, "no new guard after the first was killed"
    _assert_all_gone(pgid, tmp)
