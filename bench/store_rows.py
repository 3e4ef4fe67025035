"""A run as layout 2 keeps it (``bench.store_layout``): which of its fields are texts kept
once in a dimension table, which are the run's own row, and the writing of one run into
them. Apart from ``bench.store`` so that the layout's migration can copy layout 1's runs
with the same code that stores new ones (and the two modules need not import each other).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import fields

from bench.record import FIELD_NAMES, RunRecord

_FIELDS = tuple(f.name for f in fields(RunRecord))
#: the run's key but seed, threads and repeat: one ``run_keys`` row per planned run's case
KEY_DIMENSION: tuple[str, ...] = ("run_id", "case", "puzzle", "instance", "encoding", "options")
#: texts that come with a run and repeat across runs: one ``run_details`` row per combination
DETAIL_DIMENSION: tuple[str, ...] = (
    "suite",
    "instance_hash",
    "size",
    "cells",
    "solver",
    "solver_version",
    "encoding_hash",
    "host",
)
#: fields kept apart from ``run_rows`` (counters as names and values, solutions once each)
APART: tuple[str, ...] = ("counters", "solution")
#: every other field is a column of ``run_rows`` (a field added to RunRecord lands here)
ROW_FIELDS: tuple[str, ...] = tuple(
    n for n in _FIELDS if n not in (*KEY_DIMENSION, *DETAIL_DIMENSION, *APART)
)


def insert_record(conn: sqlite3.Connection, record: RunRecord) -> bool:
    """One run into layout 2's tables, inside the caller's transaction."""
    row = record.to_row()
    key_id = _dimension_id(conn, "run_keys", "key_id", KEY_DIMENSION, row)
    detail_id = _dimension_id(conn, "run_details", "detail_id", DETAIL_DIMENSION, row)
    names_id, values = _counter_parts(conn, record.counters)
    names = ", ".join(f'"{n}"' for n in ROW_FIELDS)
    marks = ", ".join("?" for _ in ROW_FIELDS)
    cursor = conn.execute(
        f"INSERT OR IGNORE INTO run_rows ({names}, key_id, detail_id, names_id, counter_values)"
        f" VALUES ({marks}, ?, ?, ?, ?)",
        [*(row[n] for n in ROW_FIELDS), key_id, detail_id, names_id, values],
    )
    if cursor.rowcount != 1:
        return False
    if row["solution"] is not None:
        solution_id = _solution_id(conn, row["solution"])
        conn.execute(
            "UPDATE run_rows SET solution_id = ? WHERE row_id = ?", (solution_id, cursor.lastrowid)
        )
    return True


def _dimension_id(
    conn: sqlite3.Connection, table: str, id_name: str, names: tuple[str, ...], row: dict
) -> int:
    """The id of these texts in a dimension table, added when new (NULLs match NULLs, which a
    UNIQUE index would not do, so the lookup is by ``IS``)."""
    values = tuple(row[n] for n in names)
    cache = getattr(conn, "dimension_ids", {})
    found = cache.get((table, values))
    if found is not None:
        return found
    where = " AND ".join(f'"{n}" IS ?' for n in names)
    hit = conn.execute(f"SELECT {id_name} FROM {table} WHERE {where}", values).fetchone()
    if hit:
        found = hit[0]
    else:
        columns = ", ".join(f'"{n}"' for n in names)
        marks = ", ".join("?" for _ in names)
        found = conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values).lastrowid
    cache[(table, values)] = found
    return found


def _counter_parts(
    conn: sqlite3.Connection, counters: dict | None
) -> tuple[int | None, str | None]:
    """A run's counters as (id of its names, JSON array of its values in that order)."""
    if counters is None:
        return None, None
    names = sorted(counters)
    names_id = _dimension_id(
        conn, "counter_names", "names_id", ("names",), {"names": json.dumps(names)}
    )
    return names_id, json.dumps([counters[n] for n in names])


def _solution_id(conn: sqlite3.Connection, text: str) -> int:
    """Each distinct solution once: repeats and seeds of a unique board share one row."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    hit = conn.execute("SELECT solution_id FROM solutions WHERE sha256 = ?", (digest,)).fetchone()
    if hit:
        return hit[0]
    return conn.execute(
        "INSERT INTO solutions (sha256, solution) VALUES (?, ?)", (digest, text)
    ).lastrowid


def copy_layout_1(conn: sqlite3.Connection, table: str) -> None:
    """Move the runs of a layout-1 table into layout 2's tables (``store_layout._migrate``),
    in the migration's transaction, a chunk at a time."""
    present = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
    select = ", ".join(f'"{n}"' if n in present else f'NULL AS "{n}"' for n in FIELD_NAMES)
    cursor = conn.execute(f"SELECT {select} FROM {table} ORDER BY row_id")
    while chunk := cursor.fetchmany(10_000):
        for values in chunk:
            row = dict(zip(FIELD_NAMES, values, strict=True))
            insert_record(conn, RunRecord.from_row(row))
