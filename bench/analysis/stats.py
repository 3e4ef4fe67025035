"""Pure statistics over run tables (DataFrames with RunRecord columns). No solver imports.

Times: ``run_time`` is build + solve of an *answered* run (solved or infeasible) and NaN
otherwise, so medians never mix in the time a run spent before it was stopped.
Spread is the interquartile range; a group of one sample says so through ``n``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from models.base import INFEASIBLE, SOLVED, STATUSES, WRONG

ANSWERED = (SOLVED, INFEASIBLE)
DEFAULT_GROUP = ("puzzle", "encoding")


def run_time(runs: pd.DataFrame) -> pd.Series:
    """build_s + solve_s of answered runs, NaN for every other status."""
    total = runs["build_s"].astype(float).fillna(0.0) + runs["solve_s"].astype(float).fillna(0.0)
    return total.where(runs["status"].isin(ANSWERED))


def median_iqr(
    runs: pd.DataFrame, value: str = "time_s", by: Sequence[str] = DEFAULT_GROUP
) -> pd.DataFrame:
    """Per group: median, q1, q3, iqr and n (non-missing samples) of ``value``.

    ``value`` may be any numeric column, or ``time_s`` for ``run_time``.
    """
    data = _with_time(runs)
    grouped = data.groupby(list(by), dropna=False, sort=True)[value]
    out = pd.DataFrame(
        {
            "median": grouped.median(),
            "q1": grouped.quantile(0.25),
            "q3": grouped.quantile(0.75),
            "n": grouped.count(),
        }
    )
    out["iqr"] = out["q3"] - out["q1"]
    return out.reset_index()


def status_counts(runs: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUP) -> pd.DataFrame:
    """Per group: one column per status (all of STATUSES, zeros included) and ``runs``."""
    table = pd.crosstab([runs[c] for c in by], runs["status"]) if len(runs) else None
    if table is None:
        return pd.DataFrame(columns=[*by, *STATUSES, "runs"])
    table = table.reindex(columns=list(STATUSES), fill_value=0)
    table["runs"] = table.sum(axis=1)
    table.columns.name = None
    return table.reset_index()


def par2(runs: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUP) -> pd.DataFrame:
    """Per group: PAR-2 score (mean of run time, 2 x the time limit for unanswered or wrong runs).

    A run without a time limit that did not answer counts as twice its wall time.
    """
    data = _with_time(runs)
    limit = data["time_limit_s"].astype(float)
    penalty = 2.0 * limit.fillna(data["wall_s"].astype(float))
    data["par2_s"] = data["time_s"].where(data["status"] != WRONG).fillna(penalty)
    grouped = data.groupby(list(by), dropna=False, sort=True)["par2_s"]
    return pd.DataFrame({"par2_s": grouped.mean(), "n": grouped.size()}).reset_index()


def summary(runs: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUP) -> pd.DataFrame:
    """Status counts, median time with IQR, median wall, PAR-2 and median overhead per group."""
    counts = status_counts(runs, by)
    if counts.empty:
        return counts
    times = median_iqr(runs, "time_s", by).rename(
        columns={
            "median": "median_time_s",
            "q1": "time_q1_s",
            "q3": "time_q3_s",
            "iqr": "time_iqr_s",
            "n": "answered",
        }
    )
    walls = median_iqr(runs, "wall_s", by)[[*by, "median"]].rename(
        columns={"median": "median_wall_s"}
    )
    overhead = median_iqr(runs, "overhead_s", by)[[*by, "median"]].rename(
        columns={"median": "median_overhead_s"}
    )
    scores = par2(runs, by)[[*by, "par2_s"]]
    out = counts
    for part in (times, walls, scores, overhead):
        out = out.merge(part, on=list(by), how="left")
    return out


def counter_columns(runs: pd.DataFrame) -> list[str]:
    """Names of the ``counter_*`` columns present (see store.flatten)."""
    return [c for c in runs.columns if c.startswith("counter_")]


def options_text(options: object) -> str:
    """Canonical JSON of an options value (dict or JSON text), for grouping."""
    if isinstance(options, str):
        options = json.loads(options) if options else {}
    return json.dumps(options or {}, sort_keys=True)


def _with_time(runs: pd.DataFrame) -> pd.DataFrame:
    data = runs.copy()
    if "time_s" not in data:
        data["time_s"] = run_time(data) if len(data) else pd.Series(dtype=float)
    for column in ("wall_s", "overhead_s", "build_s", "solve_s", "cpu_s"):
        if column in data:
            data[column] = pd.to_numeric(data[column], errors="coerce").astype(float)
    data["time_s"] = data["time_s"].astype(float).replace([np.inf], np.nan)
    return data
