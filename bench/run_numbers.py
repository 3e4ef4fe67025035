"""Checks of the numbers in a results file (a committed baseline, an export) before they are
compared: a baseline is input like any other, so a bad one is exit 2 with one line.

A baseline whose counters were NaN passed the gate ("112 same"), negative counters read as
"improvement", and a time or counter written as text ended in "internal fault" (exit 3).
Every numeric field of the record (``bench.record.RunRecord``: times, memory, limits, seed,
threads, model size) and every counter must be missing (null) or a finite number from 0 to
``MAX_NUMBER``; anything else is a ``UsageError`` naming the file, the field and the run.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
from dataclasses import fields
from pathlib import Path
from typing import Any

from bench.record import RunRecord
from models.errors import UsageError

#: the record's fields that hold numbers (``int`` or ``float``, maybe ``None``)
NUMERIC_FIELDS = tuple(
    f.name
    for f in fields(RunRecord)
    if str(f.type).replace(" | None", "").strip() in ("int", "float")
)
#: the largest number accepted: 2^53, exact as a float, far over any real time, memory
#: figure or effort counter (a Z3 rlimit count of a 10 s run is about 10^9)
MAX_NUMBER = float(2**53)


def check_rows(rows: Any, source: Path | str, tabular: bool = False) -> None:
    """Refuse the first bad number of ``rows`` (a results file's runs, one dict each).

    ``tabular`` (CSV, Parquet): a missing value is written as empty or NaN, so NaN is
    "missing" there, and CSV has no types (one bad cell reads its whole column as text), so
    a text that reads as a number is that number. JSON writes ``null`` for a missing value
    and numbers as numbers: a NaN or a text there is a bad number."""
    if not isinstance(rows, list):
        raise UsageError(f"{source}: runs must be a list of runs, got {type(rows).__name__}")
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise UsageError(f"{source}: run {number} is not a run (a {type(row).__name__})")
        for name in NUMERIC_FIELDS:
            if name in row:
                _check(row[name], source, name, number, row, tabular)
        counters = row.get("counters")
        if isinstance(counters, str):  # JSON text, as CSV and Parquet hold them
            try:
                counters = json.loads(counters)  # NaN and Infinity included, to be refused
            except ValueError:
                continue  # not JSON: the loader says so
        if counters is None:
            continue
        if not isinstance(counters, dict):
            raise UsageError(
                f"{source}: field counters of {_run(number, row)} must be a table of"
                f" numbers, got {_shown(counters)}"
            )
        for key, value in counters.items():
            _check(value, source, f"counters.{key}", number, row, False, missing_ok=False)


def _check(
    value: Any,
    source: Path | str,
    name: str,
    number: int,
    row: dict,
    tabular: bool,
    missing_ok: bool = True,
) -> None:
    if value is None and missing_ok:
        return
    if tabular and isinstance(value, str):
        with contextlib.suppress(ValueError):  # not a number: said below
            value = float(value)
    nan = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(value)
    if nan and tabular and missing_ok:
        return
    problem = ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy's too
        problem = "not a number"
    elif not math.isfinite(value):
        problem = "not a finite number"
    elif value < 0:
        problem = "negative"
    elif value > MAX_NUMBER:
        problem = f"over {MAX_NUMBER:.0f}"
    if problem:
        raise UsageError(
            f"{source}: field {name} of {_run(number, row)} is {problem} ({_shown(value)}):"
            " times, counters and sizes must be finite numbers of at least 0"
        )


def _run(number: int, row: dict) -> str:
    """A run as a user finds it in the file: its place and its key."""
    key = ", ".join(f"{k} {_shown(row[k])}" for k in ("encoding", "instance", "repeat") if k in row)
    return f"run {number}" + (f" ({key})" if key else "")


def _shown(value: Any) -> str:
    """A value for an error line: short, on one line."""
    text = repr(value) if not isinstance(value, float) else f"{value!r}"
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def as_rows(frame: Any) -> list[dict[str, Any]]:
    """A read CSV or Parquet file's numeric fields and counters (JSON text) as rows, pandas'
    missing values as None."""
    columns = [c for c in (*NUMERIC_FIELDS, "counters", "encoding", "instance") if c in frame]
    part = frame[columns].astype(object)
    return part.where(part.notna(), None).to_dict("records")
