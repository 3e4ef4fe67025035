"""Fitted scaling on synthetic per-instance tables with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bench.analysis import scaling


def _table(cells: list[int], time_of, limit: float = 100.0) -> pd.DataFrame:
    rows = []
    for k, n in enumerate(cells):
        t = float(time_of(n))
        solved = t <= limit
        rows.append(
            {
                "puzzle": "p",
                "instance": f"i{k}",
                "size": f"1x{n}",
                "config": "c",
                "status": "solved" if solved else "timeout",
                "time_s": t if solved else math.nan,
                "time_limit_s": limit,
            }
        )
    return pd.DataFrame(rows)


def test_exponential_doubling_every_three_cells() -> None:
    fit = scaling.fit_config(_table(list(range(3, 40, 3)), lambda n: 2 ** (n / 3)), resamples=50)
    assert fit.model == scaling.EXPONENTIAL
    assert fit.value == pytest.approx(3.0, rel=1e-6)
    assert fit.low == pytest.approx(3.0, rel=1e-3) and fit.high == pytest.approx(3.0, rel=1e-3)
    assert "x2 every 3 cells" in fit.formula()


def test_power_law_exponent_two_and_a_half() -> None:
    cells = [4, 9, 16, 25, 36, 49, 64, 81, 100, 144]
    fit = scaling.fit_config(_table(cells, lambda n: 1e-3 * n**2.5), resamples=50)
    assert fit.model == scaling.POWER
    assert fit.value == pytest.approx(2.5, rel=1e-6)
    assert fit.predict(np.array([100.0]))[0] == pytest.approx(1e-3 * 100**2.5, rel=1e-4)
    assert fit.formula().startswith("t ~ n^2.50")


def test_censored_points_keep_the_fit() -> None:
    """Half the sizes time out at the limit: the fit still finds the truth, and counts them."""
    cells = [4, 9, 16, 25, 36, 49, 64, 81, 100, 144]
    fit = scaling.fit_config(_table(cells, lambda n: 1e-3 * n**2.5, limit=10.0), resamples=50)
    assert (fit.solved, fit.censored) == (5, 5)
    assert fit.model == scaling.POWER and fit.value == pytest.approx(2.5, rel=1e-3)


def test_censoring_pulls_a_noisy_fit_up_where_dropping_would_not() -> None:
    rng = np.random.default_rng(3)
    cells = list(range(3, 40, 3)) * 3
    table = _table(cells, lambda n: 2 ** (n / 3) * math.exp(rng.normal(0, 0.3)), limit=300.0)
    fit = scaling.fit_config(table, resamples=100)
    dropped = scaling.fit_config(table[table["status"] == "solved"], resamples=0)
    assert fit.censored > 5 and fit.model == scaling.EXPONENTIAL
    assert fit.low < 3.0 < fit.high  # the truth is inside the interval
    assert abs(fit.value - 3.0) < abs(dropped.value - 3.0)  # dropping timeouts biases the rate


def test_too_few_sizes_gives_no_fit() -> None:
    assert scaling.fit_config(_table([4, 9, 9, 400], lambda n: n, limit=50.0)) is None
    table = scaling.fit_table({})
    assert table.empty


@pytest.mark.parametrize(("wall_s", "censored"), [(0.001, 0), (10.5, 1), (math.nan, 1)])
def test_a_timeout_that_gave_up_early_is_no_censored_point(wall_s: float, censored: int) -> None:
    """A reference that gives up at once on a board with no solution is stored as timeout:
    censored at its 10 s limit it would drag a fast power law up at the small sizes."""
    cells = [4, 9, 16, 25, 36, 49, 64, 81, 100, 144]
    table = _table(cells, lambda n: 1e-4 * n, limit=10.0).assign(wall_s=0.01)
    table.loc[0, ["status", "time_s", "wall_s"]] = ["timeout", math.nan, wall_s]
    fit = scaling.fit_config(table, resamples=20)
    assert (fit.solved, fit.censored) == (9, censored)
    if censored == 0:
        assert fit.model == scaling.POWER and fit.value == pytest.approx(1.0, rel=1e-3)
