"""The results store's file: SQLite, its layout and version, and how it is opened.

Why SQLite: it ships with Python, a transaction per row survives ``kill -9`` of the
sweep (at most the runs in flight are lost, the file is never half-written), and WAL
mode with a busy timeout lets several writers (two sweeps, a report reading while a
sweep writes) share one file. A field added to ``RunRecord`` is added to an existing
store on open.

Tables: ``runs`` (RunRecord columns), ``environments`` (one JSON document per run id),
``sweeps`` (suite name, file text and hash, the expanded plan, planned count, started and
finished times); ``bench.skips`` keeps its own ``skipped``. What goes in and comes out of
them is ``bench.store``'s.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

from bench.record import KEY_FIELDS, RunRecord
from models.errors import StoreError, UsageError

DEFAULT_STORE = Path("results/bench.sqlite")
BUSY_TIMEOUT_MS = 60_000
CHECKPOINT_WAIT_MS = 2_000
#: ``PRAGMA user_version`` of the layout this code writes; 0 is the unversioned first layout
SCHEMA_VERSION = 1
#: ``PRAGMA application_id``: marks a file as a puzzle-bench store ("PBst")
APPLICATION_ID = 0x50427374


def _sql_type(annotation: Any) -> str:
    text = str(annotation)
    if "dict" in text:
        return "TEXT"
    if "bool" in text or text.startswith("int"):
        return "INTEGER"
    if text.startswith("float"):
        return "REAL"
    return "TEXT"


_COLUMNS = {f.name: _sql_type(f.type) for f in fields(RunRecord)}
#: every table's columns (besides its key); a migration adds what an older store lacks
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "runs": ("row_id INTEGER PRIMARY KEY", _COLUMNS),
    "environments": ("run_id TEXT PRIMARY KEY", {"environment": "TEXT"}),
    "sweeps": (
        "run_id TEXT PRIMARY KEY",
        {
            "suite": "TEXT",
            "suite_path": "TEXT",
            "suite_text": "TEXT",
            "suite_sha256": "TEXT",
            "planned": "INTEGER",
            "plan": "TEXT",
            "arguments": "TEXT",
            "instance_hashes": "TEXT",  # [[puzzle, file spec, content hash], ...] when planned
            "started_at": "TEXT",
            "finished_at": "TEXT",
        },
    ),
}


@contextmanager
def connect(
    path: str | Path = DEFAULT_STORE, readonly: bool = False
) -> Iterator[sqlite3.Connection]:
    """Open the store: for writing (created or migrated to the current layout) or read-only.

    A read-only open never writes a byte, not even a lock or a migration: an older
    layout is copied into memory and migrated there; on read-only media (where SQLite
    cannot make its WAL index) the file is read as immutable. A corrupt, foreign or
    newer store raises StoreError and is left exactly as it was.
    """
    path = Path(path)
    _check_kind(path)
    conn = _open_readonly(path) if readonly else _open_for_writing(path)
    try:
        yield conn
    except sqlite3.DatabaseError as err:
        raise _store_error(path, err) from None
    finally:
        if not readonly:
            checkpoint(conn)
        conn.close()


def _check_kind(path: Path) -> None:
    """A store is a regular file (or a link to one), or nothing yet: SQLite would write its
    ``-journal`` beside a device and fail on a folder, so anything else is refused first."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise UsageError(f"--store {path}: cannot use it ({err.strerror})") from None
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise UsageError(f"--store {path} is {what}: name a results store file (.sqlite)")


def checkpoint(conn: sqlite3.Connection, mode: str = "TRUNCATE") -> bool:
    """Move the committed transactions from the ``-wal`` file into the ``.sqlite`` file, so
    the file alone holds every stored run (a copy of it misses nothing). TRUNCATE also
    empties the ``-wal``; it waits at most CHECKPOINT_WAIT_MS for readers. False if a
    reader kept it from completing (the runs are safe in the ``-wal`` all the same)."""
    try:
        conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        busy = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()[0]
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.Error:
        return False
    return busy == 0


def backup(source: str | Path, dest: Path) -> int:
    """Copy a store into ``dest`` with SQLite's online backup API: a consistent copy of
    every committed run (those still in the ``-wal`` file too), even while a sweep writes.
    The copy is a single file (rollback journal, no ``-wal``). Returns its run count."""
    with connect(source, readonly=True) as conn:
        copy = sqlite3.connect(dest, isolation_level=None)
        try:
            conn.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
            return copy.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            copy.close()


def _open_for_writing(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise _store_error(path, err) from None
    try:
        version = _check(conn, path)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: safe against process kills
        _migrate(conn, version)
    except BaseException as err:
        conn.close()
        if isinstance(err, sqlite3.Error):
            raise _store_error(path, err) from None
        raise
    return conn


def _open_readonly(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for query in ("mode=ro", "mode=ro&immutable=1"):  # immutable: read-only media
        conn = None
        try:
            conn = sqlite3.connect(
                f"{uri}?{query}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = _check(conn, path)
        except sqlite3.OperationalError as err:  # cannot open (no WAL index on read-only media)
            if conn is not None:
                conn.close()
            last = err
            continue
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        if version == SCHEMA_VERSION and not _lacks_columns(conn):
            return conn
        memory = sqlite3.connect(":memory:", isolation_level=None)
        try:  # an older layout: migrate a copy in memory, never the file
            conn.backup(memory)
            _migrate(memory, version)
        finally:
            conn.close()
        return memory
    raise _store_error(path, last or sqlite3.OperationalError("cannot open"))


def _check(conn: sqlite3.Connection, path: Path) -> int:
    """The store's layout version; StoreError for a corrupt, foreign or newer file."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as err:  # "file is not a database", malformed pages
        raise StoreError(f"{path}: not a readable results store ({err})") from None
    if app not in (0, APPLICATION_ID) or (tables and "runs" not in tables):
        raise StoreError(
            f"{path}: not a puzzle-bench results store (tables: {', '.join(sorted(tables))})"
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: results store of a newer layout (version {version}; this puzzle-bench"
            f" reads up to {SCHEMA_VERSION}): upgrade puzzle-bench"
        )
    for table, (key, _) in TABLES.items():
        if table in tables:
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if key.split()[0] not in present:
                raise StoreError(f"{path}: table {table} has no {key.split()[0]}: not our layout")
    return version


def _lacks_columns(conn: sqlite3.Connection) -> bool:
    """A store of this layout written before RunRecord gained a field (read in memory then)."""
    for table, (_, columns) in TABLES.items():
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if present and set(columns) - present:
            return True
    return False


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring every table to the current layout in one transaction, then stamp the version.

    Version 0 (the unversioned first layout) may lack any table or column (an old
    ``sweeps`` without ``started_at``); every later step adds what RunRecord gained.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table, (key, columns) in TABLES.items():
            body = ", ".join([key, *(f'"{n}" {t}' for n, t in columns.items())])
            conn.execute(f"CREATE TABLE IF NOT EXISTS {table} ({body})")
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns.items():
                if name not in present:
                    conn.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')
        key = ", ".join(f'"{k}"' for k in ("run_id", *KEY_FIELDS))
        conn.execute(f"CREATE UNIQUE INDEX IF NOT EXISTS runs_key ON runs ({key})")
        if version != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _writable(folder: Path) -> bool:
    """False on read-only media (for root too, unlike file permissions)."""
    try:
        return not os.statvfs(folder).f_flag & os.ST_RDONLY and os.access(folder, os.W_OK)
    except OSError:
        return True


def _store_error(path: Path, err: BaseException) -> StoreError:
    if isinstance(err, StoreError):
        return err
    text = str(err) or type(err).__name__
    if isinstance(err, OSError):
        text = err.strerror or text
    if "full" in text:
        return StoreError(f"{path}: disk full while writing the results store ({text})")
    if "readonly" in text or "read-only" in text.lower() or not _writable(path.parent):
        return StoreError(f"{path}: results store cannot be written ({text})")
    return StoreError(f"{path}: results store failed: {text}")


def rows(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
    """A query's rows as dicts, column name -> value."""
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
