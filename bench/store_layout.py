"""The results store's file: SQLite, its layout and version, and how it is opened.

Why SQLite: it ships with Python, a transaction per row survives ``kill -9`` of the
sweep (at most the runs in flight are lost, the file is never half-written), and WAL
mode with a busy timeout lets several writers (two sweeps, a report reading while a
sweep writes) share one file. A field added to ``RunRecord`` is added to an existing
store on open.

Layout 2 keeps a run small, so a million-run study stays a few hundred MB and a scan of
its numbers takes seconds (issue 57). A run's texts that repeat from run to run are kept
once, in dimension tables, and referenced by number:

- ``run_keys``: what identifies a planned run within a sweep but its seed, threads and
  repeat (run id, case, puzzle, instance, encoding, options);
- ``run_details``: the texts that come with it (suite, instance hash, size, cells,
  solver and its version, encoding hash, host);
- ``counter_names``: a solver's counter names, once per set of names; a run keeps only
  the values (a JSON array, ints and floats as the solver gave them);
- ``solutions``: each distinct solution once (repeats of a unique board give one);
- ``run_rows``: one row per run: those references and every number of the run.

The view ``runs`` puts them together: one column per RunRecord field, as layout 1's table
was, for SQL of one's own (``sqlite3 results/bench.sqlite "SELECT ... FROM runs"``). What
goes in and comes out is ``bench.store``'s. Other tables: ``environments`` (one JSON
document per run id), ``sweeps`` (suite name, file text and hash, the plan compressed,
planned count, started and finished times); ``bench.skips`` keeps its own ``skipped``.
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

from bench.record import RunRecord
from bench.store_rows import (
    DETAIL_DIMENSION,
    KEY_DIMENSION,
    ROW_FIELDS,
    copy_layout_1,
)
from models.errors import StoreError, UsageError

DEFAULT_STORE = Path("results/bench.sqlite")
BUSY_TIMEOUT_MS = 60_000
CHECKPOINT_WAIT_MS = 2_000
#: ``PRAGMA user_version`` of the layout this code writes; 0 is the unversioned first layout,
#: 1 the one table ``runs`` of every field, 2 the layout of this module's docstring
SCHEMA_VERSION = 2
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
_REFERENCES = {
    "key_id": "INTEGER",
    "detail_id": "INTEGER",
    "names_id": "INTEGER",
    "counter_values": "TEXT",
    "solution_id": "INTEGER",
}
#: every table's columns (besides its key); a migration adds what an older store lacks
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "run_keys": ("key_id INTEGER PRIMARY KEY", {n: _COLUMNS[n] for n in KEY_DIMENSION}),
    "run_details": ("detail_id INTEGER PRIMARY KEY", {n: _COLUMNS[n] for n in DETAIL_DIMENSION}),
    "counter_names": ("names_id INTEGER PRIMARY KEY", {"names": "TEXT"}),
    "solutions": ("solution_id INTEGER PRIMARY KEY", {"sha256": "TEXT", "solution": "TEXT"}),
    "run_rows": (
        "row_id INTEGER PRIMARY KEY",
        {**{n: _COLUMNS[n] for n in ROW_FIELDS}, **_REFERENCES},
    ),
    "environments": ("run_id TEXT PRIMARY KEY", {"environment": "TEXT"}),
    "sweeps": (
        "run_id TEXT PRIMARY KEY",
        {
            "suite": "TEXT",
            "suite_path": "TEXT",
            "suite_text": "TEXT",
            "suite_sha256": "TEXT",
            "planned": "INTEGER",
            "plan": "TEXT",  # zlib-compressed columns (bench.plan.pack); layout 1: JSON text
            "arguments": "TEXT",
            "instance_hashes": "TEXT",  # [[puzzle, file spec, content hash], ...] when planned
            "started_at": "TEXT",
            "finished_at": "TEXT",
        },
    ),
}
_INDEXES = (
    # the resume key: a sweep holds each planned run once
    "CREATE UNIQUE INDEX IF NOT EXISTS run_rows_key ON run_rows (key_id, seed, threads, repeat)",
    "CREATE INDEX IF NOT EXISTS run_keys_run ON run_keys (run_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS counter_names_names ON counter_names (names)",
    "CREATE UNIQUE INDEX IF NOT EXISTS solutions_sha256 ON solutions (sha256)",
)


def _view_sql() -> str:
    """``runs``: every RunRecord field by name, as layout 1's table (for SQL of one's own)."""
    counters = (
        "CASE WHEN r.counter_values IS NULL THEN NULL ELSE (SELECT json_group_object(n.value,"
        " v.value) FROM json_each(c.names) n JOIN json_each(r.counter_values) v"
        " ON v.key = n.key) END"
    )
    source = {
        **{n: f'k."{n}"' for n in KEY_DIMENSION},
        **{n: f'd."{n}"' for n in DETAIL_DIMENSION},
        **{n: f'r."{n}"' for n in ROW_FIELDS},
        "counters": counters,
        "solution": "s.solution",
    }
    columns = ", ".join(f'{source[n]} AS "{n}"' for n in _COLUMNS)
    return (
        f"CREATE VIEW runs AS SELECT r.row_id AS row_id, {columns} FROM run_rows r"
        " JOIN run_keys k ON k.key_id = r.key_id JOIN run_details d ON d.detail_id = r.detail_id"
        " LEFT JOIN counter_names c ON c.names_id = r.names_id"
        " LEFT JOIN solutions s ON s.solution_id = r.solution_id"
    )


class StoreConnection(sqlite3.Connection):
    """A connection that remembers the dimension rows it has seen (text -> id), so storing
    a run looks each text up once per sweep rather than once per run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dimension_ids: dict[tuple, int] = {}


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
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, factory=StoreConnection
        )
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
        memory = sqlite3.connect(":memory:", isolation_level=None, factory=StoreConnection)
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
    ours = "run_rows" in tables if version >= 2 else "runs" in tables
    if app not in (0, APPLICATION_ID) or (tables and not ours):
        raise StoreError(
            f"{path}: not a puzzle-bench results store (tables: {', '.join(sorted(tables))})"
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: results store of a newer layout (version {version}; this puzzle-bench"
            f" reads up to {SCHEMA_VERSION}): upgrade puzzle-bench"
        )
    expected = dict(TABLES) if version >= 2 else {"runs": ("row_id", {}), **_SHARED}
    for table, (key, _) in expected.items():
        if table in tables:
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if key.split()[0] not in present:
                raise StoreError(f"{path}: table {table} has no {key.split()[0]}: not our layout")
    return version


_SHARED = {name: TABLES[name] for name in ("environments", "sweeps")}


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
    ``sweeps`` without ``started_at``); layout 1's one ``runs`` table is moved into layout
    2's tables run by run (``bench.store.copy_layout_1``); every later step adds what
    RunRecord gained, and the view ``runs`` is made again from the fields.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        old_runs = (
            version < 2
            and conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'"
            ).fetchone()
        )
        if old_runs:
            conn.execute("DROP INDEX IF EXISTS runs_key")
            conn.execute("ALTER TABLE runs RENAME TO runs_layout_1")
        for table, (key, columns) in TABLES.items():
            body = ", ".join([key, *(f'"{n}" {t}' for n, t in columns.items())])
            conn.execute(f"CREATE TABLE IF NOT EXISTS {table} ({body})")
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns.items():
                if name not in present:
                    conn.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')
        for index in _INDEXES:
            conn.execute(index)
        view = _view_sql()
        stored = conn.execute("SELECT sql FROM sqlite_master WHERE type='view' AND name='runs'")
        if (stored.fetchone() or [None])[0] != view:
            conn.execute("DROP VIEW IF EXISTS runs")
            conn.execute(view)
            conn.execute(  # `DELETE FROM runs WHERE ...` takes runs out, as in layout 1
                "CREATE TRIGGER runs_delete INSTEAD OF DELETE ON runs"
                " BEGIN DELETE FROM run_rows WHERE row_id = OLD.row_id; END"
            )
        if old_runs:
            copy_layout_1(conn, "runs_layout_1")
            conn.execute("DROP TABLE runs_layout_1")
        if version != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite ends it itself on some errors (a full disk)
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
