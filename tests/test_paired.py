"""Paired statistics on small per-instance tables with known answers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bench.analysis import paired


def _rows(config: str, times: list[float | None], limit: float = 10.0) -> list[dict]:
    return [
        {
            "puzzle": "p",
            "instance": f"i{k}",
            "size": "5x5",
            "config": config,
            "status": "solved" if t is not None else "timeout",
            "time_s": t if t is not None else math.nan,
            "time_limit_s": limit,
        }
        for k, t in enumerate(times)
    ]


def test_a_twice_as_fast_everywhere() -> None:
    table = pd.DataFrame(_rows("fast", [1, 2, 4, 8]) + _rows("slow", [2, 4, 8, 16]))
    row = paired.paired(table).iloc[0]
    assert (row["a"], row["b"]) == ("fast", "slow")
    assert (row["wins"], row["losses"], row["ties"], row["common"]) == (4, 0, 0, 4)
    assert row["speedup"] == pytest.approx(2.0)
    assert row["speedup_lo"] == pytest.approx(2.0) and row["speedup_hi"] == pytest.approx(2.0)
    assert row["wilcoxon_p"] == pytest.approx(0.125)  # exact: 2 of 2^4 sign patterns


def test_ties_floor_and_censoring() -> None:
    # i0: within 10 % (tie); i1: both under the floor (tie); i2: neither answered (tie);
    # i3: only A answered, B censored at the 10 s limit: ratio 10/1
    table = pd.DataFrame(_rows("a", [1.0, 0.001, None, 1.0]) + _rows("b", [1.05, 0.03, None, None]))
    row = paired.paired(table).iloc[0]
    assert (row["wins"], row["losses"], row["ties"], row["neither"]) == (1, 0, 3, 1)
    assert row["tested"] == 3  # the instance neither answered says nothing
    assert row["speedup"] == pytest.approx((1.05 * 1 * 10) ** (1 / 3))


def test_bootstrap_is_repeatable_and_brackets_the_estimate() -> None:
    table = pd.DataFrame(_rows("a", [1, 2, 3, 4, 5, 6]) + _rows("b", [3, 2.5, 9, 4.1, 20, 7]))
    first, again = paired.paired(table).iloc[0], paired.paired(table).iloc[0]
    assert first["speedup_lo"] == again["speedup_lo"]
    assert first["speedup_lo"] < first["speedup"] < first["speedup_hi"]


def test_leader_mode_and_readable_table() -> None:
    table = pd.DataFrame(_rows("a", [1, 1]) + _rows("b", [2, 2]) + _rows("c", [None, 3]))
    rows = paired.paired(table, pairs="leader")
    assert list(zip(rows["a"], rows["b"], strict=True)) == [("a", "b"), ("a", "c")]
    assert len(paired.paired(table, pairs="all")) == 3
    text = paired.readable(rows)
    assert text.iloc[0]["speed-up of A (95% CI)"].startswith("2x")
