"""A Dask cluster started the way the README says: the ``dask scheduler`` and ``dask worker``
console scripts of this environment, on 127.0.0.1 and free ports, from a folder of their own
(not the project's). Each process is a real one the tests can kill."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

DASK = Path(sys.executable).parent / "dask"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(command: list[str], folder: Path, env: dict[str, str], ready: str) -> subprocess.Popen:
    """Start ``command`` with its log in ``folder``; wait until the log says ``ready``."""
    log = folder / f"{command[1]}-{time.monotonic_ns()}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 90
    while ready not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise AssertionError(f"{' '.join(command)} did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)
    return process


def stop(process: subprocess.Popen) -> None:
    """Kill a started process and its session (a worker's nanny, its helpers and runs)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(10)


@contextlib.contextmanager
def console_cluster(
    folder: Path, env: dict[str, str] | None = None, workers: int = 1
) -> Iterator[tuple[str, subprocess.Popen, list[subprocess.Popen]]]:
    """``dask scheduler --host 127.0.0.1 --port PORT`` and ``workers`` times
    ``dask worker tcp://127.0.0.1:PORT --nthreads 1``, as typed from the README; yields the
    address, the scheduler and the workers, and kills them all afterwards."""
    if not DASK.exists():
        pytest.skip(f"no dask console script at {DASK} (pip install -e .[distributed])")
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(env or os.environ)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started: list[subprocess.Popen] = []
    try:
        scheduler = _start(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port)],
            folder, env, "Scheduler at:",
        )  # fmt: skip
        started.append(scheduler)
        worker = [str(DASK), "worker", address, "--nthreads", "1"]
        for _ in range(workers):
            started.append(_start(worker, folder, env, "Registered to:"))
        yield address, scheduler, started[1:]
    finally:
        for process in started:
            stop(process)
