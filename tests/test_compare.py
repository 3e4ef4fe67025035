"""Regression verdicts: real slowdowns flagged, noise and unchanged timeouts not."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bench.analysis.compare import compare_runs
from bench.record import RunRecord


def _runs(cases: list[tuple[str, str, list[float]]], counters: dict | None = None) -> pd.DataFrame:
    """cases: (instance, status, times over repeats)."""
    rows = []
    for instance, status, times in cases:
        for repeat, t in enumerate(times):
            rows.append(
                RunRecord(
                    run_id="r", puzzle="sudoku", instance=instance, size="9x9", encoding="cnf-sat",
                    repeat=repeat, status=status, build_s=0.0,
                    solve_s=t if status in ("solved", "infeasible") else None,
                    time_limit_s=10.0, counters=dict(counters or {}),
                ).__dict__
            )  # fmt: skip
    return pd.DataFrame(rows)


def _verdict(base: pd.DataFrame, cur: pd.DataFrame, instance: str = "a") -> str:
    table = compare_runs(base, cur, threshold=0.1).table
    return table.set_index("instance").loc[instance, "verdict"]


def test_clear_slowdown_is_a_regression() -> None:
    base = _runs([("a", "solved", [1.0, 1.02, 0.98, 1.01, 0.99])])
    cur = _runs([("a", "solved", [2.0, 2.05, 1.97, 2.02, 1.99])])
    assert _verdict(base, cur) == "regression"
    assert _verdict(cur, base) == "improvement"


def test_noise_within_threshold_is_not_flagged() -> None:
    rng = np.random.default_rng(1)
    base = _runs([("a", "solved", list(1 + 0.05 * rng.standard_normal(5)))])
    cur = _runs([("a", "solved", list(1 + 0.05 * rng.standard_normal(5)))])
    assert _verdict(base, cur) == "same"


def test_single_noisy_sample_against_wide_spread_is_not_flagged() -> None:
    base = _runs([("a", "solved", [0.5, 1.5, 1.0])])
    cur = _runs([("a", "solved", [1.2, 0.6, 1.6])])
    assert _verdict(base, cur) == "same"


def test_status_rules() -> None:
    assert _verdict(_runs([("a", "solved", [1.0])]), _runs([("a", "timeout", [0])])) == "regression"
    assert _verdict(_runs([("a", "timeout", [0])]), _runs([("a", "timeout", [0])])) == "same"
    assert (
        _verdict(_runs([("a", "timeout", [0])]), _runs([("a", "solved", [1.0])])) == "improvement"
    )
    assert _verdict(_runs([("a", "solved", [1.0])]), _runs([("a", "wrong", [0])])) == "regression"
    assert _verdict(_runs([("a", "wrong", [0])]), _runs([("a", "solved", [1.0])])) == "improvement"


def test_deterministic_counter_change_is_flagged_even_when_times_are_noisy() -> None:
    base = _runs([("a", "solved", [1.0, 0.5, 1.5])], {"conflicts": 1000})
    cur = _runs([("a", "solved", [1.0, 0.5, 1.5])], {"conflicts": 1500})
    table = compare_runs(base, cur).table
    assert table.loc[0, "verdict"] == "regression"
    assert "conflicts" in table.loc[0, "reason"]


def test_counters_that_do_not_repeat_are_ignored() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])])
    base["counters"] = [{"conflicts": 10}, {"conflicts": 30}]
    cur = _runs([("a", "solved", [1.0, 1.0])])
    cur["counters"] = [{"conflicts": 50}, {"conflicts": 70}]
    assert _verdict(base, cur) == "same"


def test_new_and_missing_cases_are_listed() -> None:
    table = compare_runs(_runs([("a", "solved", [1.0])]), _runs([("b", "solved", [1.0])])).table
    assert dict(zip(table["instance"], table["verdict"], strict=True)) == {
        "a": "missing",
        "b": "new",
    }


def test_calibration_normalises_a_slower_machine() -> None:
    base = _runs([("a", "solved", [1.0, 1.01, 0.99])])
    cur = _runs([("a", "solved", [2.0, 2.02, 1.98])])
    table = compare_runs(base, cur, calibration=(0.1, 0.2)).table
    assert table.loc[0, "verdict"] == "same"


def test_an_edited_instance_is_never_compared_blindly() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])]).assign(instance_hash="aaaa")
    cur = _runs([("a", "solved", [5.0, 5.0])]).assign(instance_hash="bbbb")
    table = compare_runs(base, cur).table
    assert table.loc[0, "verdict"] == "changed"
    assert "instance" in table.loc[0, "reason"]


def test_same_work_with_noisy_times_is_not_a_regression() -> None:
    """Two identical sweeps on a busy machine: counters equal, times 2x apart."""
    base = _runs([("a", "solved", [0.02, 0.021, 0.019])], {"conflicts": 120})
    cur = _runs([("a", "solved", [0.045, 0.046, 0.044])], {"conflicts": 120})
    table = compare_runs(base, cur).table
    assert table.loc[0, "verdict"] == "same"
    assert "counters unchanged" in table.loc[0, "reason"]


def test_tiny_time_differences_are_below_the_noise_floor() -> None:
    base = _runs([("a", "solved", [0.004, 0.0041, 0.0039])])
    cur = _runs([("a", "solved", [0.008, 0.0081, 0.0079])])
    assert _verdict(base, cur) == "same"
