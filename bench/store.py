"""The results store: SQLite, one row per finished run, committed as it finishes.

Why SQLite: it ships with Python, a transaction per row survives ``kill -9`` of the
sweep (at most the runs in flight are lost, the file is never half-written), and WAL
mode with a busy timeout lets several writers (two sweeps, a report reading while a
sweep writes) share one file. The columns of ``runs`` come from ``RunRecord``; a field
added there is added to an existing store on open.

Tables: ``runs`` (RunRecord columns), ``environments`` (one JSON document per run id),
``sweeps`` (suite name, file text and hash, the expanded plan, planned count, started and
finished times).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

import pandas as pd

from bench.cli import HarnessError
from bench.record import FIELD_NAMES, JSON_FIELDS, KEY_FIELDS, RunRecord
from models.registry import UsageError

DEFAULT_STORE = Path("results/bench.sqlite")
BUSY_TIMEOUT_MS = 60_000
#: ``PRAGMA user_version`` of the layout this code writes; 0 is the unversioned first layout
SCHEMA_VERSION = 1
#: ``PRAGMA application_id``: marks a file as a puzzle-bench store ("PBst")
APPLICATION_ID = 0x50427374


class UnknownRunError(UsageError):
    """A run id (or ``latest``) that the store does not hold: exit code 2."""


class StoreError(HarnessError):
    """The store cannot be read or written (corrupt, foreign, newer, disk full): exit code 3."""


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
    conn = _open_readonly(path) if readonly else _open_for_writing(path)
    try:
        yield conn
    except sqlite3.DatabaseError as err:
        raise _store_error(path, err) from None
    finally:
        conn.close()


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
        if version == SCHEMA_VERSION:
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


def insert_run(conn: sqlite3.Connection, record: RunRecord) -> bool:
    """Commit one finished run; False if the sweep already holds a run with the same key."""
    row = record.to_row()
    names = ", ".join(f'"{n}"' for n in row)
    marks = ", ".join("?" for _ in row)
    cursor = conn.execute(
        f"INSERT OR IGNORE INTO runs ({names}) VALUES ({marks})", list(row.values())
    )  # autocommit: one transaction per row
    return cursor.rowcount == 1


def mark_wrong(conn: sqlite3.Connection, record: RunRecord) -> None:
    """Rewrite a stored run's status and error (an infeasible claim refuted later)."""
    key = record.to_row()
    where = " AND ".join(f'"{k}" = ?' for k in ("run_id", *KEY_FIELDS))
    conn.execute(
        f"UPDATE runs SET status = ?, error = ? WHERE {where}",
        [record.status, record.error, *(key[k] for k in ("run_id", *KEY_FIELDS))],
    )


def save_environment(conn: sqlite3.Connection, run_id: str, environment: dict[str, Any]) -> None:
    """Keep the first environment of a run id (a resume does not replace it)."""
    conn.execute(
        "INSERT OR IGNORE INTO environments (run_id, environment) VALUES (?, ?)",
        (run_id, json.dumps(environment, sort_keys=True)),
    )


def merge_environment(conn: sqlite3.Connection, run_id: str, extra: dict[str, Any]) -> None:
    """Add keys to a stored environment (e.g. the Dask workers' own environments)."""
    row = conn.execute(
        "SELECT environment FROM environments WHERE run_id = ?", (run_id,)
    ).fetchone()
    env = json.loads(row[0]) if row else {}
    env.update(extra)
    conn.execute(
        "INSERT OR REPLACE INTO environments (run_id, environment) VALUES (?, ?)",
        (run_id, json.dumps(env, sort_keys=True)),
    )


def start_sweep(conn: sqlite3.Connection, run_id: str, sweep: dict[str, Any]) -> None:
    """Record a new sweep: suite, its text and hash, the expanded plan, when it started."""
    conn.execute(
        "INSERT INTO sweeps (run_id, suite, suite_path, suite_text, suite_sha256, planned, plan,"
        " arguments, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run_id,
            sweep["suite"],
            sweep.get("suite_path", ""),
            sweep.get("suite_text", ""),
            sweep.get("suite_sha256", ""),
            len(sweep["plan"]),
            json.dumps(sweep["plan"]),
            json.dumps(sweep.get("arguments", {})),
            sweep["started_at"],
        ),
    )


def finish_sweep(conn: sqlite3.Connection, run_id: str, finished_at: str) -> None:
    conn.execute("UPDATE sweeps SET finished_at = ? WHERE run_id = ?", (finished_at, run_id))


def sweep(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The stored sweep of a run id (plan decoded); UnknownRunError if there is none."""
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM sweeps WHERE run_id = ?", (run_id,)).fetchone()
    finally:
        conn.row_factory = None
    if row is None:
        raise UnknownRunError(f"unknown run id {run_id!r}: no sweep of that id in the store")
    out = dict(row)
    out["plan"] = json.loads(out["plan"] or "[]")
    out["arguments"] = json.loads(out["arguments"] or "{}")
    return out


def stored_records(conn: sqlite3.Connection, run_id: str) -> list[RunRecord]:
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute(
            "SELECT * FROM runs WHERE run_id = ? ORDER BY row_id", (run_id,)
        ).fetchall()
    finally:
        conn.row_factory = None
    return [RunRecord.from_row(dict(row)) for row in rows]


def run_ids(store_path: str | Path = DEFAULT_STORE) -> list[str]:
    """Every run id in the store, oldest sweep first."""
    if not Path(store_path).is_file():
        return []
    with connect(store_path, readonly=True) as conn:
        rows = conn.execute(
            "SELECT run_id FROM runs GROUP BY run_id ORDER BY MIN(started_at), MIN(row_id)"
        ).fetchall()
        swept = conn.execute("SELECT run_id FROM sweeps ORDER BY started_at").fetchall()
    ordered = [r[0] for r in swept]
    return ordered + [r[0] for r in rows if r[0] not in set(ordered)]


def resolve_run_id(store_path: str | Path, text: str | None) -> str:
    """A run id as given, or the newest for ``latest``/None; UnknownRunError if absent."""
    known = run_ids(store_path)
    if text in (None, "latest"):
        if not known:
            raise UnknownRunError(f"{store_path}: the store holds no runs yet")
        return known[-1]
    if text not in known:
        raise UnknownRunError(f"unknown run id {text!r} in {store_path}")
    return text


def environments(store_path: str | Path, run_ids_: Iterable[str] | None = None) -> dict[str, dict]:
    """run id -> environment document (machine, versions, git, calibration)."""
    if not Path(store_path).is_file():
        return {}
    with connect(store_path, readonly=True) as conn:
        rows = conn.execute("SELECT run_id, environment FROM environments").fetchall()
    wanted = None if run_ids_ is None else set(run_ids_)
    return {r: json.loads(e) for r, e in rows if wanted is None or r in wanted}


def load(
    store_path: str | Path = DEFAULT_STORE,
    run_ids: str | Iterable[str] | None = None,
    *,
    flatten_counters: bool = False,
    with_environment: bool = False,
    json_text: bool = False,
) -> pd.DataFrame:
    """Stored runs as a DataFrame: one column per RunRecord field, in the record's order.

    ``run_ids``: one id, several, ``"latest"``, or None for every run. ``flatten_counters``
    adds ``counter_NAME`` columns; ``with_environment`` adds ``env_*`` columns (host
    details, git commit, calibration_s) joined on run_id; ``json_text`` keeps options,
    counters and solution as JSON text (hashable, for grouping and CSV) instead of dicts.
    """
    if isinstance(run_ids, str):
        run_ids = [resolve_run_id(store_path, run_ids)]
    elif run_ids is not None:
        run_ids = [resolve_run_id(store_path, r) for r in run_ids]
    if not Path(store_path).is_file():
        return pd.DataFrame(columns=list(FIELD_NAMES))
    select = ", ".join(f'"{n}"' for n in FIELD_NAMES)
    with connect(store_path, readonly=True) as conn:
        if run_ids is None:
            cursor = conn.execute(f"SELECT {select} FROM runs ORDER BY row_id")
        else:
            marks = ", ".join("?" for _ in run_ids)
            cursor = conn.execute(
                f"SELECT {select} FROM runs WHERE run_id IN ({marks}) ORDER BY row_id",
                list(run_ids),
            )
        rows = cursor.fetchall()
    frame = pd.DataFrame(rows, columns=list(FIELD_NAMES))
    frame["verified"] = frame["verified"].astype(bool)
    if not json_text:
        for name in JSON_FIELDS:
            frame[name] = [json.loads(v) if isinstance(v, str) else None for v in frame[name]]
    if flatten_counters:
        frame = flatten(frame)
    if with_environment:
        envs = environments(store_path, set(frame["run_id"]))
        flat = {r: _flat_environment(e) for r, e in envs.items()}
        keys = sorted({k for e in flat.values() for k in e})
        for key in keys:
            frame[f"env_{key}"] = [flat.get(r, {}).get(key) for r in frame["run_id"]]
    return frame


def flatten(frame: pd.DataFrame) -> pd.DataFrame:
    """Add one ``counter_NAME`` column per counter seen (counters as dicts or JSON text)."""
    counters = [json.loads(c) if isinstance(c, str) else (c or {}) for c in frame["counters"]]
    names = sorted({k for c in counters for k in c})
    frame = frame.copy()
    for name in names:
        frame[f"counter_{name}"] = [c.get(name) for c in counters]
    return frame


def _flat_environment(env: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in env.items():
        out[key] = json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
    return out
