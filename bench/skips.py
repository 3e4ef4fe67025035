"""Runs a sweep planned but did not run (``bench.schedule``: a smaller board of the same
configuration already hit its limit), kept in their own table of the results store.

Why a table of their own and not rows of ``runs``: a skipped run was never measured, so
it has no status from the contract's list, no times and no counters; as a row of
``runs`` it would turn up in every chart and export as if it had been. Here it is one
row per skipped run (the run's key, its size and the reason), committed as it is
decided, so ``--resume`` never runs it, and ``load`` hands it to whoever wants to count
it (a PAR-2 over a common instance set must count it as unsolved).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from bench.plan import PlannedRun, run_key
from bench.store_layout import connect, rows

COLUMNS = ("run_id", "case", "puzzle", "instance", "size", "encoding", "options", "seed",
           "threads", "repeat", "time_limit_s", "reason")  # fmt: skip


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        'CREATE TABLE IF NOT EXISTS skipped (run_id TEXT, "case" TEXT, puzzle TEXT,'
        " instance TEXT, size TEXT, encoding TEXT, options TEXT, seed INTEGER,"
        ' threads INTEGER, "repeat" INTEGER, time_limit_s REAL, reason TEXT,'
        ' UNIQUE (run_id, "case", puzzle, instance, encoding, options, seed, threads,'
        ' "repeat"))'
    )


def insert(conn: sqlite3.Connection, run_id: str, run: PlannedRun, size: str, reason: str) -> None:
    """Record one skipped run (autocommit); a second insert of the same run is ignored."""
    ensure_table(conn)
    values = (run_id, run.case, run.puzzle, run.instance, size, run.encoding,
              json.dumps(run.options, sort_keys=True), run.seed, run.threads, run.repeat,
              run.time_limit_s, reason)  # fmt: skip
    marks = ", ".join("?" for _ in COLUMNS)
    names = ", ".join(f'"{c}"' for c in COLUMNS)
    conn.execute(f"INSERT OR IGNORE INTO skipped ({names}) VALUES ({marks})", values)


def stored(conn: sqlite3.Connection, run_id: str) -> list[tuple[PlannedRun, str]]:
    """The runs a sweep skipped so far, with their reasons."""
    ensure_table(conn)
    names = ", ".join(f'"{c}"' for c in COLUMNS)
    found = rows(conn, f"SELECT {names} FROM skipped WHERE run_id = ?", (run_id,))
    fields = ("case", "puzzle", "instance", "encoding", "seed", "threads", "repeat", "time_limit_s")
    return [
        (
            PlannedRun(**{k: row[k] for k in fields}, options=json.loads(row["options"])),
            row["reason"],
        )
        for row in found
    ]


def keys(conn: sqlite3.Connection, run_id: str) -> set[tuple]:
    """Resume keys (``plan.run_key``) of the runs a sweep skipped."""
    return {run_key(asdict(run)) for run, _ in stored(conn, run_id)}


def load(store_path: str | Path, run_ids: Iterable[str] | None = None) -> pd.DataFrame:
    """Skipped runs as a DataFrame (columns ``COLUMNS``; options as dicts); opens the store
    read-only, so reports and analysis never write to it."""
    empty = pd.DataFrame(columns=list(COLUMNS))
    if not Path(store_path).is_file():
        return empty
    with connect(store_path, readonly=True) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "skipped" not in tables:
            return empty
        names = ", ".join(f'"{c}"' for c in COLUMNS)
        rows = conn.execute(f"SELECT {names} FROM skipped ORDER BY rowid").fetchall()
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    if run_ids is not None:
        frame = frame[frame["run_id"].isin(set(run_ids))].reset_index(drop=True)
    frame["options"] = [json.loads(o) for o in frame["options"]]
    return frame
