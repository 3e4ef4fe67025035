"""The results store's rows: runs in as they finish, sweeps and environments, and back out
as records or a DataFrame (``load``).

The columns of ``runs`` come from ``RunRecord``; the file itself (layout, versions,
migration, opening it for writing or read-only) is ``bench.store_layout``'s.
"""

from __future__ import annotations

import json
import sqlite3
import time
import zlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bench import store_moved
from bench.record import FIELD_NAMES, JSON_FIELDS, KEY_FIELDS, RunRecord
from bench.store_layout import DEFAULT_STORE, checkpoint, connect, rows
from bench.store_rows import DETAIL_DIMENSION, KEY_DIMENSION, ROW_FIELDS, insert_record
from models.errors import UnknownRunError
from models.registry import cells_of

#: the longest a sweep's runs stay only in the ``-wal`` file (see _checkpoint_now_and_then)
CHECKPOINT_EVERY_S = 5.0


def insert_run(conn: sqlite3.Connection, record: RunRecord) -> bool:
    """Commit one finished run; False if the sweep already holds a run with the same key."""
    conn.execute("BEGIN IMMEDIATE")  # one transaction per run: a kill loses only runs in flight
    try:
        added = insert_record(conn, record)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite ends it itself on some errors (a full disk)
            conn.execute("ROLLBACK")
        raise
    store_moved.check(conn)  # the file at the store's path is still the one written
    _checkpoint_now_and_then(conn)
    return added


def insert_runs(conn: sqlite3.Connection, records: Iterable[RunRecord]) -> int:
    """Commit many runs in one transaction (imports, copies, the scale benchmark's store);
    returns how many were new."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        added = sum(insert_record(conn, record) for record in records)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite ends it itself on some errors (a full disk)
            conn.execute("ROLLBACK")
        raise
    return added


_last_checkpoint = 0.0


def _checkpoint_now_and_then(conn: sqlite3.Connection) -> None:
    """A passive checkpoint at most every CHECKPOINT_EVERY_S while a sweep stores runs: the
    ``.sqlite`` file alone then lags its ``-wal`` by seconds, even after a ``kill -9``
    (``bench backup`` copies both; a passive checkpoint never waits for a reader)."""
    global _last_checkpoint
    now = time.monotonic()
    if now - _last_checkpoint >= CHECKPOINT_EVERY_S:
        _last_checkpoint = now
        checkpoint(conn, "PASSIVE")


def mark_wrong(conn: sqlite3.Connection, record: RunRecord) -> None:
    """Rewrite a stored run's status and error (an infeasible claim refuted later)."""
    row = record.to_row()
    where = " AND ".join(f'k."{n}" IS ?' for n in KEY_DIMENSION)
    conn.execute(
        "UPDATE run_rows SET status = ?, error = ? WHERE row_id IN (SELECT r.row_id FROM run_rows"
        f" r JOIN run_keys k ON k.key_id = r.key_id WHERE {where} AND r.seed = ?"
        " AND r.threads = ? AND r.repeat = ?)",
        [
            record.status,
            record.error,
            *(row[n] for n in KEY_DIMENSION),
            row["seed"],
            row["threads"],
            row["repeat"],
        ],
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
    """Record a new sweep: suite, its text and hash, the expanded plan, the content hash of
    every instance file it plans (a resume checks them), when it started."""
    conn.execute(
        "INSERT INTO sweeps (run_id, suite, suite_path, suite_text, suite_sha256, planned, plan,"
        " arguments, instance_hashes, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run_id,
            sweep["suite"],
            sweep.get("suite_path", ""),
            sweep.get("suite_text", ""),
            sweep.get("suite_sha256", ""),
            len(sweep["plan"]),
            zlib.compress(json.dumps(sweep["plan"]).encode(), 6),  # repeats: ~30x smaller
            json.dumps(sweep.get("arguments", {})),
            json.dumps(sweep.get("instance_hashes", [])),
            sweep["started_at"],
        ),
    )


def finish_sweep(conn: sqlite3.Connection, run_id: str, finished_at: str) -> None:
    conn.execute("UPDATE sweeps SET finished_at = ? WHERE run_id = ?", (finished_at, run_id))
    store_moved.check(conn, force=True)  # a finished sweep is in the file at its path


def sweep(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The stored sweep of a run id (plan decoded); UnknownRunError if there is none."""
    found = rows(conn, "SELECT * FROM sweeps WHERE run_id = ?", (run_id,))
    if not found:
        raise UnknownRunError(f"unknown run id {run_id!r}: no sweep of that id in the store")
    out = found[0]
    plan = out["plan"] or "[]"  # layout 1 kept the JSON text as it was
    out["plan"] = json.loads(zlib.decompress(plan) if isinstance(plan, bytes) else plan)
    out["arguments"] = json.loads(out["arguments"] or "{}")
    out["instance_hashes"] = json.loads(out.get("instance_hashes") or "[]")
    return out


def stored_records(conn: sqlite3.Connection, run_id: str) -> list[RunRecord]:
    found = rows(conn, "SELECT * FROM runs WHERE run_id = ? ORDER BY row_id", (run_id,))
    return [RunRecord.from_row(row) for row in found]


def run_ids(store_path: str | Path = DEFAULT_STORE) -> list[str]:
    """Every run id in the store, oldest sweep first."""
    return list(_run_counts(store_path))


def _run_counts(store_path: str | Path) -> dict[str, int]:
    """run id -> stored runs, oldest sweep first (the sweeps' start; a run id without a sweep,
    from before sweeps were kept, by its first run). Counted on the key index, not the rows."""
    if not Path(store_path).is_file():
        return {}
    with connect(store_path, readonly=True) as conn:
        counts = conn.execute(
            "SELECT k.run_id, SUM(c.n), MIN(c.first) FROM (SELECT key_id, COUNT(*) AS n,"
            " MIN(row_id) AS first FROM run_rows GROUP BY key_id) c JOIN run_keys k"
            " ON k.key_id = c.key_id GROUP BY k.run_id"
        ).fetchall()
        swept = [r[0] for r in conn.execute("SELECT run_id FROM sweeps ORDER BY started_at")]
        first_rows = {run_id: first for run_id, _, first in counts}
        unswept = sorted(set(first_rows) - set(swept), key=first_rows.__getitem__)
        if unswept:  # ordered as layout 1 did: by the first run's start
            marks = ", ".join("?" for _ in unswept)
            started = dict(
                conn.execute(
                    "SELECT k.run_id, MIN(r.started_at) FROM run_rows r JOIN run_keys k"
                    f" ON k.key_id = r.key_id WHERE k.run_id IN ({marks}) GROUP BY k.run_id",
                    unswept,
                ).fetchall()
            )
            unswept.sort(key=lambda r: (started[r] or "", first_rows[r]))
    stored = {run_id: n for run_id, n, _ in counts}
    return {run_id: stored.get(run_id, 0) for run_id in [*swept, *unswept]}


@dataclass(frozen=True)
class SweepState:
    """How a sweep ended: ``finished`` (it reached its end; runs stored before the layout
    kept sweeps count as finished), how many runs it planned and stored."""

    run_id: str
    finished: bool
    planned: int | None
    stored: int

    @property
    def usable(self) -> bool:
        """A sweep that finished with at least one run: the only kind ``latest`` names."""
        return self.finished and self.stored > 0

    def problem(self) -> str:
        """One line saying why the sweep is not usable ('' when it is)."""
        if self.stored == 0:
            ended = "finished" if self.finished else "did not finish"
            return f"run {self.run_id} holds no runs (its sweep {ended} with none stored)"
        if not self.finished:
            planned = "?" if self.planned is None else self.planned
            return (
                f"run {self.run_id} did not finish (failed, killed or still running):"
                f" {self.stored} of {planned} planned runs stored"
            )
        return ""


def sweep_states(store_path: str | Path) -> dict[str, SweepState]:
    """Every run id's SweepState, oldest first (as ``run_ids``)."""
    counts = _run_counts(store_path)
    if not counts:
        return {}
    with connect(store_path, readonly=True) as conn:
        sweeps = {  # a sweep stored before sweeps kept their start and end: finished
            r[0]: (r[1] or not r[2], r[3])
            for r in conn.execute(
                "SELECT run_id, finished_at, started_at, planned FROM sweeps"
            ).fetchall()
        }
    states = {}
    for run_id, stored in counts.items():
        finished, planned = sweeps.get(run_id, (True, None))
        states[run_id] = SweepState(run_id, bool(finished), planned, stored)
    return states


def resolve_run_id(store_path: str | Path, text: str | None) -> str:
    """A run id as given, or for ``latest``/None the newest sweep that finished with runs
    (a failed, killed or empty sweep is never ``latest``); UnknownRunError if absent."""
    states = sweep_states(store_path)
    if text in (None, "latest"):
        usable = [s.run_id for s in states.values() if s.usable]
        if not usable:
            left = f" ({len(states)} sweep(s), none finished with runs)" if states else ""
            raise UnknownRunError(f"{store_path}: the store holds no finished sweep yet{left}")
        return usable[-1]
    if text not in states:
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
    columns: Iterable[str] | None = None,
    flatten_counters: bool = False,
    with_environment: bool = False,
    json_text: bool = False,
) -> pd.DataFrame:
    """Stored runs as a DataFrame: one column per RunRecord field, in the record's order.

    ``run_ids``: one id, several, ``"latest"``, or None for every run. ``columns``: only
    these fields (the others are not read at all: a report of a million runs reads a dozen
    names and numbers, not their solutions); None for every field. ``flatten_counters``
    adds ``counter_NAME`` columns; ``with_environment`` adds ``env_*`` columns (host
    details, git commit, calibration_s) joined on run_id; ``json_text`` keeps options,
    counters and solution as JSON text (hashable, for grouping and CSV) instead of dicts.
    """
    if isinstance(run_ids, str):
        run_ids = [resolve_run_id(store_path, run_ids)]
    elif run_ids is not None:
        run_ids = [resolve_run_id(store_path, r) for r in run_ids]
    wanted = FIELD_NAMES if columns is None else _fields_of(columns, flatten_counters)
    if not Path(store_path).is_file():
        return tidy(pd.DataFrame(columns=list(wanted)), wanted)
    frame = tidy(read_columns(store_path, wanted, run_ids), wanted)
    if json_text:
        frame = as_json_text(frame)
    if flatten_counters:
        frame = flatten(frame)
    if with_environment:
        envs = environments(store_path, set(frame["run_id"]))
        flat = {r: _flat_environment(e) for r, e in envs.items()}
        keys = sorted({k for e in flat.values() for k in e})
        for key in keys:
            frame[f"env_{key}"] = frame["run_id"].map(lambda r, k=key: flat.get(r, {}).get(k))
    return frame


def _fields_of(columns: Iterable[str], flatten_counters: bool) -> tuple[str, ...]:
    asked = set(columns) | {"run_id"} | ({"counters"} if flatten_counters else set())
    unknown = asked - set(FIELD_NAMES)
    if unknown:
        raise ValueError(f"not a run field: {', '.join(sorted(unknown))}")
    return tuple(n for n in FIELD_NAMES if n in asked)


def read_columns(
    store_path: str | Path, fields_: Iterable[str], run_ids: list[str] | None
) -> pd.DataFrame:
    """These fields of the stored runs, raw (options and solution as JSON text, counters as
    dicts), in the order stored.

    The hot columns are read straight into Arrow by the ADBC SQLite driver (C, no Python
    object per value: a million runs' dozen columns in about a second); a store of an older
    layout, migrated in memory by ``connect``, is read through Python's sqlite3 instead.
    """
    fields_ = tuple(fields_)
    with connect(store_path, readonly=True) as conn:
        names = {
            i: json.loads(n) for i, n in conn.execute("SELECT names_id, names FROM counter_names")
        }
        in_file = conn.execute("PRAGMA database_list").fetchone()[2] != ""
        frame = _read_arrow(store_path, fields_, run_ids) if in_file else None
        if frame is None:
            cursor = conn.execute(*_select_sql(fields_, run_ids))
            frame = pd.DataFrame(cursor.fetchall(), columns=[d[0] for d in cursor.description])
        if "solution" in fields_:
            frame["solution"] = _solutions(conn, frame["solution"])
    if "counters" in fields_:
        frame["counters"] = _counters(frame.pop("names_id"), frame.pop("counter_values"), names)
    return frame[list(fields_)]


def _select_sql(
    fields_: tuple[str, ...], run_ids: list[str] | None, row_range: bool = False
) -> tuple[str, list]:
    """The query of these fields, in the order stored; ``row_range`` adds the condition
    ``row_id BETWEEN ? AND ?`` (its two values are the caller's, after ``params``)."""
    source = {
        **{n: f'k."{n}"' for n in KEY_DIMENSION},
        **{n: f'd."{n}"' for n in DETAIL_DIMENSION},
        **{n: f'r."{n}"' for n in ROW_FIELDS},
        "solution": "r.solution_id",  # the texts are read once each (``_solutions``)
    }
    select = [f'{source[n]} AS "{n}"' for n in fields_ if n != "counters"]
    if "counters" in fields_:
        select += ["r.names_id AS names_id", "r.counter_values AS counter_values"]
    sql = f"SELECT {', '.join(select)} FROM run_rows r JOIN run_keys k ON k.key_id = r.key_id"
    if set(fields_) & set(DETAIL_DIMENSION):
        sql += " JOIN run_details d ON d.detail_id = r.detail_id"
    conditions, params = [], []
    if run_ids is not None:
        conditions.append(f"k.run_id IN ({', '.join('?' for _ in run_ids)})")
        params = list(run_ids)
    if row_range:
        conditions.append("r.row_id BETWEEN ? AND ?")
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    return sql + " ORDER BY r.row_id", params


#: rows per query of the fast path: the driver infers a column's type from a query's first
#: batch, so each query is one batch (a chunk of a column that starts with NULLs, such as
#: ``late_answer_s``, can then not be taken for int and meet a float later)
ARROW_CHUNK_ROWS = 131_072


def _read_arrow(
    store_path: str | Path, fields_: tuple[str, ...], run_ids: list[str] | None
) -> pd.DataFrame | None:
    """The query through ADBC into Arrow, a chunk of row ids at a time, then pandas; None
    where the driver cannot open the file (read-only media): the caller uses sqlite3."""
    try:
        import adbc_driver_sqlite.dbapi as adbc
    except ImportError:  # pragma: no cover (a declared dependency)
        return None
    # off the main thread: there the driver would swap the SIGINT handler and start a thread
    # of its own for good, and a sweep forks its runs from this process
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_read_arrow_here, adbc, store_path, fields_, run_ids).result()


def _read_arrow_here(
    adbc: Any, store_path: str | Path, fields_: tuple[str, ...], run_ids: list[str] | None
) -> Any:
    uri = Path(store_path).resolve().as_uri() + "?mode=ro"
    chunked, params = _select_sql(fields_, run_ids, row_range=True)
    tables = []
    try:
        with adbc.connect(uri) as conn, conn.cursor() as cursor:
            cursor.adbc_statement.set_options(
                **{"adbc.sqlite.query.batch_rows": str(ARROW_CHUNK_ROWS)}
            )
            cursor.execute("SELECT MIN(row_id), MAX(row_id) FROM run_rows")
            low, high = cursor.fetchone()
            for start in range(low or 0, (high or -1) + 1, ARROW_CHUNK_ROWS):
                cursor.execute(chunked, [*params, start, start + ARROW_CHUNK_ROWS - 1])
                table = cursor.fetch_arrow_table()
                if table.num_rows:
                    tables.append(table)
            if not tables:  # no run: an empty range still gives the columns
                cursor.execute(chunked, [*params, 1, 0])
                tables.append(cursor.fetch_arrow_table())
    except Exception:  # any failure of the fast path: read through sqlite3
        return None
    return _concat(tables).to_pandas(use_threads=False)  # no pool of threads left behind


def _concat(tables: list) -> Any:
    """One Arrow table of chunks whose types were inferred one by one: a column NULL in one
    chunk (int64 there) takes the type the others gave it."""
    import pyarrow as pa

    if len(tables) == 1:
        return tables[0]
    types = {}
    for name in tables[0].column_names:
        seen = [t.schema.field(name).type for t in tables if t.column(name).null_count < t.num_rows]
        kinds = set(seen)
        if pa.float64() in kinds:
            types[name] = pa.float64()
        elif kinds:
            types[name] = seen[0]
        else:
            types[name] = tables[0].schema.field(name).type
    schema = pa.schema([(n, types[n]) for n in tables[0].column_names])
    return pa.concat_tables([t.cast(schema) for t in tables])


def _solutions(conn: sqlite3.Connection, ids: pd.Series) -> list:
    """The solution text each run refers to, read once per distinct solution (runs share
    the text object, so ``tidy`` decodes each once)."""
    codes, uniques = pd.factorize(ids, use_na_sentinel=True)
    texts: dict[int, str] = {}
    wanted = [int(u) for u in uniques]
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        texts.update(
            conn.execute(
                f"SELECT solution_id, solution FROM solutions WHERE solution_id IN ({marks})", chunk
            ).fetchall()
        )
    shared = [texts.get(u) for u in wanted]
    return [shared[c] if c >= 0 else None for c in codes]


def _counters(ids: pd.Series, values: pd.Series, names: dict[int, list[str]]) -> list:
    """Counters as dicts, from their names (``counter_names``) and values."""
    out: list = []
    for names_id, text in zip(ids, values, strict=True):
        if text is None or (isinstance(text, float) and pd.isna(text)):
            out.append(None)
        else:
            out.append(dict(zip(names[int(names_id)], json.loads(text), strict=True)))
    return out


def tidy(frame: pd.DataFrame, fields_: Iterable[str] = FIELD_NAMES) -> pd.DataFrame:
    """The one shape of runs, from a store or an exported file alike: every RunRecord field
    (or those of ``fields_``) in the record's order (later columns kept after them),
    ``started_at`` as UTC datetimes, ``cells`` as a number (filled in from ``size`` for runs
    stored before it was a field), ``verified`` as bool, and options, counters and solution
    as dicts (a run's ``options``: every option of its encoding with the value used,
    defaults filled in). A text that repeats (options, a solution) is decoded once."""
    fields_ = tuple(fields_)
    frame = frame.copy()
    for name in fields_:
        if name not in frame:
            frame[name] = None
    for name in JSON_FIELDS:
        if name in fields_:
            frame[name] = _decoded_column(frame[name])
    if "verified" in fields_:
        frame["verified"] = frame["verified"].fillna(False).astype(bool)
    if "started_at" in fields_:
        frame["started_at"] = pd.to_datetime(
            frame["started_at"].replace("", None), utc=True, format="ISO8601", errors="coerce"
        )
    if "cells" in fields_:
        frame["cells"] = _cells(frame)
    extra = [c for c in frame.columns if c not in FIELD_NAMES]
    return frame[[*(n for n in FIELD_NAMES if n in fields_), *extra]]


def _decoded_column(values: pd.Series) -> list:
    """Each distinct JSON text decoded once; rows share the decoded object."""
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # dicts already (read from a JSON export): unhashable
        return [_decoded(v) for v in values]
    decoded = [_decoded(u) for u in uniques]
    return [decoded[c] if c >= 0 else None for c in codes]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value))


def _cells(frame: pd.DataFrame) -> pd.arrays.IntegerArray:
    """``cells`` as Int64, filled in from ``size`` where missing (each size parsed once)."""
    cells = pd.to_numeric(frame["cells"], errors="coerce").astype("Int64")
    missing = cells.isna()
    if missing.any() and "size" in frame:
        sizes = frame.loc[missing, "size"]
        parsed = {s: cells_of(s) for s in sizes.dropna().unique()}
        cells[missing] = sizes.map(parsed).astype("Int64")
    return cells.array


def as_json_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Options, counters and solution as JSON text (hashable; what CSV and Parquet hold)."""
    frame = frame.copy()
    for name in JSON_FIELDS:
        frame[name] = [None if v is None else json.dumps(v, sort_keys=True) for v in frame[name]]
    return frame


def counters_long(frame: pd.DataFrame) -> pd.DataFrame:
    """The counters as a long table: one row per run and counter, beside the run's key and
    solver, so one filter (``counter == "conflicts"``) or one pivot picks what a user wants
    without a column per counter of every solver."""
    key = ["run_id", *KEY_FIELDS, "solver"]
    rows = [
        [*(row[k] for k in key), name, value]
        for _, row in frame.iterrows()
        for name, value in sorted((row["counters"] or {}).items())
    ]
    out = pd.DataFrame(rows, columns=[*key, "counter", "value"])
    out["options"] = [json.dumps(o, sort_keys=True) for o in out["options"]]
    return out


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value) if value else None
    return None if isinstance(value, float) and pd.isna(value) else value


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
