"""One writer per sweep: a sweep run or resumed here holds a lock that a second one is refused.

Two ``bench run --resume RID`` of one sweep at once each ran every missing run (and each
run's times were taken on a machine twice as busy). The lock is an advisory POSIX record
lock (``fcntl.lockf``) on a file beside the store named after the run id
(``bench.sqlite.RID.lock``). Chosen over a row in the store with a pid and host because
the kernel drops it when its process ends, by ``kill -9`` too, so no liveness check (a
reused pid, a host that cannot be asked) is needed and the store's own transactions are
untouched; a record lock rather than ``flock`` because forked children do not inherit it,
so the runs in flight and the guard never keep a killed sweep's lock. On NFS it is the
server's lock, so hosts sharing a store see each other's. The file tells who holds the
lock (pid, host, since when) for the refusal's one line, and is removed when the lock is
let go (a ``kill -9`` leaves it, unlocked: the next sweep takes it).
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from models.errors import UsageError


def lock_path(store: str | Path, run_id: str) -> Path:
    """The lock file of a sweep: beside its store, named after the store and the run id."""
    store = Path(store)
    return store.with_name(f"{store.name}.{run_id}.lock")


@contextlib.contextmanager
def hold(store: str | Path, run_id: str) -> Iterator[Path]:
    """Hold the sweep's lock while the body runs; a sweep held elsewhere is a UsageError
    (exit 2) naming the holder."""
    path = lock_path(store, run_id)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno not in (errno.EAGAIN, errno.EACCES):  # held: either, by the OS
                os.close(fd)
                raise
            holder = _read(fd)
            os.close(fd)
            raise UsageError(
                f"sweep {run_id} is being run by {holder or 'another process'}: one writer per"
                f" sweep (wait for it, or stop it; lock {path})"
            ) from None
        try:  # the holder we waited on may have removed the file: lock the file at the path
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        since = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {since}\n".encode())
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # before the lock goes: a waiter then finds the path gone, retries
        os.close(fd)


def _read(fd: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(fd, 200, 0).decode(errors="replace").strip()
    return ""
