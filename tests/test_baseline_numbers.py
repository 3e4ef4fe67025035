"""A baseline is input like any other: its numbers are checked (issue 58, "the edges").

The committed baseline ``results/baseline/ci.json`` with its counters made NaN passed the
gate ("112 same", exit 0); made negative, it read as "49 improvement"; a time or a counter
written as text was "internal fault" (exit 3). Hypothesis corrupts the real baseline's
numbers in random ways: a bad number is exit 2 naming the file, the field and the run,
never exit 3 and never a traceback; a good one still compares.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import run_numbers, store
from tests.conftest import ROOT, main_cli
from tests.test_cli import _assert_usage_error

BASELINE = ROOT / "results" / "baseline" / "ci.json"
DOC = json.loads(BASELINE.read_text())


def _valid(value: Any) -> bool:
    """What the contract calls a good number: finite, at least 0, at most 2^53."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= run_numbers.MAX_NUMBER
    )


def _compare(doc: dict, folder: Path, name: str = "base.json"):
    path = folder / name
    path.write_text(json.dumps(doc))  # NaN and Infinity as Python's json writes them
    return path, main_cli("compare", str(path), str(BASELINE))


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("counters.conflicts", math.nan, "not a finite number"),
        ("counters.conflicts", -5.0, "negative"),
        ("counters.conflicts", "many", "not a number"),
        ("solve_s", "fast", "not a number"),
        ("cpu_s", math.inf, "not a finite number"),
        ("build_s", -0.1, "negative"),
        ("n_vars", [1], "not a number"),
    ],
)
def test_a_bad_number_in_a_baseline_is_exit_2_naming_file_field_and_run(
    tmp_path: Path, field: str, value: Any, problem: str
) -> None:
    doc = json.loads(json.dumps(DOC))
    run = next(r for r in doc["runs"] if "conflicts" in r["counters"])
    number = doc["runs"].index(run) + 1
    if field.startswith("counters."):
        run["counters"][field.split(".", 1)[1]] = value
    else:
        run[field] = value
    path, result = _compare(doc, tmp_path)
    _assert_usage_error(result, str(path), f"field {field} of run {number}", problem)
    assert run["encoding"] in result.stderr and run["instance"] in result.stderr


def test_the_same_holds_for_an_exported_csv_or_parquet(tmp_path: Path) -> None:
    """CSV writes a missing value as empty (NaN once read): those still load; text or a
    negative number in a time column is refused the same way, in Parquet too."""
    frame = store.tidy(pd.DataFrame(DOC["runs"]))
    good = tmp_path / "good.csv"
    store.as_json_text(frame).to_csv(good, index=False)
    assert main_cli("compare", str(good), str(BASELINE)).returncode == 0
    for value, problem in (("fast", "not a number"), ("-1", "negative"), ("inf", "finite")):
        bad = tmp_path / "bad.csv"
        text = store.as_json_text(frame.assign(wall_s=frame["wall_s"].astype(object)))
        text.loc[3, "wall_s"] = value
        text.to_csv(bad, index=False)
        result = main_cli("compare", str(bad), str(BASELINE))
        _assert_usage_error(result, str(bad), "field wall_s of run 4", problem)
    parquet = tmp_path / "bad.parquet"  # Parquet keeps types: a negative time
    text = store.as_json_text(frame)
    text.loc[3, "wall_s"] = -1.0
    text.to_parquet(parquet)
    result = main_cli("compare", str(parquet), str(BASELINE))
    _assert_usage_error(result, str(parquet), "field wall_s of run 4", "negative")


_BAD_OR_NOT = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, True, False, None, "", "1.5", 2**60]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.floats(min_value=0, max_value=1e6),
)


@st.composite
def _corruptions(draw: st.DrawFn) -> list[tuple[int, str, Any]]:
    """One to three (run index, field, value): a numeric field or a counter of a real run."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(DOC["runs"]) - 1))
        run = DOC["runs"][index]
        names = [n for n in run_numbers.NUMERIC_FIELDS if n in run and n != "cells"]
        names += [f"counters.{k}" for k in run["counters"]]
        out.append((index, draw(st.sampled_from(sorted(names))), draw(_BAD_OR_NOT)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corruptions=_corruptions())
def test_any_corruption_of_a_real_baselines_numbers_is_exit_2_or_compared(
    corruptions: list[tuple[int, str, Any]],
) -> None:
    doc = json.loads(json.dumps(DOC))
    bad_fields = set()
    for index, field, value in corruptions:
        run = doc["runs"][index]
        if field.startswith("counters."):
            run["counters"][field.split(".", 1)[1]] = value
        else:
            run[field] = value
        if not _valid(value) and not (value is None and not field.startswith("counters.")):
            bad_fields.add(field)  # null is a missing time, not a bad one; never a counter
    with tempfile.TemporaryDirectory() as folder:
        path, result = _compare(doc, Path(folder))
    assert "Traceback" not in result.stderr and result.returncode != 3, result.stderr
    if bad_fields:
        _assert_usage_error(result, str(path), "field ")
        named = result.stderr.split("field ", 1)[1].split(" of run ", 1)[0]
        assert named in bad_fields, (named, bad_fields)
    else:
        assert result.returncode in (0, 1), result.stderr
