"""A store replaced or removed under a running sweep: stop, and keep the runs it wrote.

SQLite keeps writing to the file it opened, so a store renamed over by another file, or
whose folder was removed, took every later run into an unlinked file that nothing can
open again: the sweep ended "400/400", exit 0, and no run was kept (SQLite's "How To
Corrupt" names it: unlinking or renaming a database file while in use). So after each
stored run, at most every CHECK_EVERY_S (``check``, called by ``store.insert_run``, and
always by ``store.finish_sweep``), the file open here is compared with the file at the
store's path (device and inode); when
they differ, the open database, every run in it, is copied with SQLite's backup API to
a new file beside the store's path (or, with its folder gone, in the nearest folder still
there), and the sweep stops with exit 3 and one line naming that file, which ``bench``
reads as a store (``results``, ``report``, ``run --resume``). Checking every second
rather than at every run loses nothing: runs stored meanwhile are in the open file, and
so in the copy; a check costs about 0.1-0.3 ms (listing the process's open files).

Linux only (the open file is found through ``/proc/self/fd``); elsewhere nothing is
checked. A file copied over the store in place (same inode) is not seen here.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from models.errors import StoreError

_PROC_FDS = Path("/proc/self/fd")
_DELETED = " (deleted)"
CHECK_EVERY_S = 1.0
_last_check = 0.0


def check(conn: sqlite3.Connection, force: bool = False) -> None:
    """Raise StoreError, the runs copied out first, when the store file open on ``conn`` is
    no longer the file at its path (looked at most every CHECK_EVERY_S unless ``force``)."""
    global _last_check
    now = time.monotonic()
    if not force and now - _last_check < CHECK_EVERY_S:
        return
    _last_check = now
    found = conn.execute("PRAGMA database_list").fetchone()
    path = found[2] if found else ""
    if not path or not _PROC_FDS.is_dir():  # in memory, or no /proc
        return
    opened = _open_files(path)
    if not opened:
        return
    try:
        at_path = os.stat(path)
        moved = any(not os.path.samestat(st, at_path) for st in opened)
    except FileNotFoundError:
        moved = True
    if not moved:
        return
    copy = _rescue(conn, Path(path))
    for side in (path + "-wal", path + "-shm"):  # ours beside the newcomer: SQLite would
        _remove_if_ours(side)  # read them as its own (a stale index, foreign WAL frames)
    raise StoreError(
        f"the store {path} was replaced or removed while this sweep wrote to it: stopped; every"
        f" run it had stored is in {copy} (read it with --store {copy})"
    )


def _open_files(path: str) -> list[os.stat_result]:
    """The files this process holds open as ``path`` (also once it was unlinked)."""
    names = {path, os.path.realpath(path)}
    names |= {name + _DELETED for name in names}
    out = []
    for fd in os.listdir(_PROC_FDS):
        try:
            target = os.readlink(_PROC_FDS / fd)
            if target in names:
                out.append(os.fstat(int(fd)))
        except OSError:  # closed meanwhile (the listing's own fd among them)
            continue
    return out


def _remove_if_ours(path: str) -> None:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return
    if any(os.path.samestat(st, now) for st in _open_files(path)):
        os.unlink(path)


def _rescue(conn: sqlite3.Connection, path: Path) -> Path:
    """Copy the open database to a new file beside ``path`` (or the nearest folder left)."""
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    for n in range(1, 1000):
        copy = folder / f"{path.stem}.rescued-{n}{path.suffix or '.sqlite'}"
        try:
            os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            break
        except FileExistsError:
            continue
    target = sqlite3.connect(copy)
    try:
        conn.backup(target)
    finally:
        target.close()
    return copy
