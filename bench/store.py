"""The results store's rows: runs in as they finish, sweeps and environments, and back out
as records or a DataFrame (``load``).

The columns of ``runs`` come from ``RunRecord``; the file itself (layout, versions,
migration, opening it for writing or read-only) is ``bench.store_layout``'s.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bench.record import FIELD_NAMES, JSON_FIELDS, KEY_FIELDS, RunRecord
from bench.store_layout import DEFAULT_STORE, checkpoint, connect, rows
from models.errors import UnknownRunError
from models.registry import cells_of

#: the longest a sweep's runs stay only in the ``-wal`` file (see _checkpoint_now_and_then)
CHECKPOINT_EVERY_S = 5.0


def insert_run(conn: sqlite3.Connection, record: RunRecord) -> bool:
    """Commit one finished run; False if the sweep already holds a run with the same key."""
    row = record.to_row()
    names = ", ".join(f'"{n}"' for n in row)
    marks = ", ".join("?" for _ in row)
    cursor = conn.execute(
        f"INSERT OR IGNORE INTO runs ({names}) VALUES ({marks})", list(row.values())
    )  # autocommit: one transaction per row
    _checkpoint_now_and_then(conn)
    return cursor.rowcount == 1


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
            json.dumps(sweep["plan"]),
            json.dumps(sweep.get("arguments", {})),
            json.dumps(sweep.get("instance_hashes", [])),
            sweep["started_at"],
        ),
    )


def finish_sweep(conn: sqlite3.Connection, run_id: str, finished_at: str) -> None:
    conn.execute("UPDATE sweeps SET finished_at = ? WHERE run_id = ?", (finished_at, run_id))


def sweep(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The stored sweep of a run id (plan decoded); UnknownRunError if there is none."""
    found = rows(conn, "SELECT * FROM sweeps WHERE run_id = ?", (run_id,))
    if not found:
        raise UnknownRunError(f"unknown run id {run_id!r}: no sweep of that id in the store")
    out = found[0]
    out["plan"] = json.loads(out["plan"] or "[]")
    out["arguments"] = json.loads(out["arguments"] or "{}")
    out["instance_hashes"] = json.loads(out.get("instance_hashes") or "[]")
    return out


def stored_records(conn: sqlite3.Connection, run_id: str) -> list[RunRecord]:
    found = rows(conn, "SELECT * FROM runs WHERE run_id = ? ORDER BY row_id", (run_id,))
    return [RunRecord.from_row(row) for row in found]


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
    if not Path(store_path).is_file():
        return {}
    with connect(store_path, readonly=True) as conn:
        counts = dict(conn.execute("SELECT run_id, COUNT(*) FROM runs GROUP BY run_id").fetchall())
        sweeps = {  # a sweep stored before sweeps kept their start and end: finished
            r[0]: (r[1] or not r[2], r[3])
            for r in conn.execute(
                "SELECT run_id, finished_at, started_at, planned FROM sweeps"
            ).fetchall()
        }
    states = {}
    for run_id in run_ids(store_path):
        finished, planned = sweeps.get(run_id, (True, None))
        states[run_id] = SweepState(run_id, bool(finished), planned, counts.get(run_id, 0))
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
        return tidy(pd.DataFrame(columns=list(FIELD_NAMES)))
    with connect(store_path, readonly=True) as conn:
        # a field added since the store was written reads as NULL (a quoted name SQLite does
        # not know is a string literal: the column would hold its own name)
        present = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
        select = ", ".join(f'"{n}"' if n in present else f'NULL AS "{n}"' for n in FIELD_NAMES)
        if run_ids is None:
            cursor = conn.execute(f"SELECT {select} FROM runs ORDER BY row_id")
        else:
            marks = ", ".join("?" for _ in run_ids)
            cursor = conn.execute(
                f"SELECT {select} FROM runs WHERE run_id IN ({marks}) ORDER BY row_id",
                list(run_ids),
            )
        rows = cursor.fetchall()
    frame = tidy(pd.DataFrame(rows, columns=list(FIELD_NAMES)))
    if json_text:
        frame = as_json_text(frame)
    if flatten_counters:
        frame = flatten(frame)
    if with_environment:
        envs = environments(store_path, set(frame["run_id"]))
        flat = {r: _flat_environment(e) for r, e in envs.items()}
        keys = sorted({k for e in flat.values() for k in e})
        for key in keys:
            frame[f"env_{key}"] = [flat.get(r, {}).get(key) for r in frame["run_id"]]
    return frame


def tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """The one shape of runs, from a store or an exported file alike: every RunRecord field in
    the record's order (later columns kept after them), ``started_at`` as UTC datetimes,
    ``cells`` as a number (filled in from ``size`` for runs stored before it was a field),
    ``verified`` as bool, and options, counters and solution as dicts (a run's ``options``:
    every option of its encoding with the value used, defaults filled in)."""
    frame = frame.copy()
    for name in FIELD_NAMES:
        if name not in frame:
            frame[name] = None
    for name in JSON_FIELDS:
        frame[name] = [_decoded(v) for v in frame[name]]
    frame["verified"] = frame["verified"].fillna(False).astype(bool)
    frame["started_at"] = pd.to_datetime(
        frame["started_at"].replace("", None), utc=True, format="ISO8601", errors="coerce"
    )
    frame["cells"] = pd.array(
        [
            cells_of(s) if pd.isna(c) else int(c)
            for c, s in zip(frame["cells"], frame["size"], strict=True)
        ],
        dtype="Int64",
    )
    extra = [c for c in frame.columns if c not in FIELD_NAMES]
    return frame[[*FIELD_NAMES, *extra]]


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
