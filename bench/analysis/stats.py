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
PAR_FACTOR = 2.0  # PAR-2: an unanswered instance scores twice its time limit


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


def instance_status(statuses: pd.Series) -> str:
    """The outcome of one configuration on one instance over its repeats and seeds: the one
    rule that reports, `compare` and `history` all use.

    Answered when most repeats answered (the most common answer wins); otherwise the most
    common failure. ``wrong`` anywhere wins, because one wrong answer is never outvoted.
    """
    if (statuses == WRONG).any():
        return WRONG
    answered = statuses.isin(ANSWERED)
    if answered.mean() > 0.5:
        return str(statuses[answered].mode().iloc[0])
    return str(statuses[~answered].mode().iloc[0])


def instance_statuses(runs: pd.DataFrame, keys: list[str]) -> pd.Series:
    """``instance_status`` of every group of ``keys`` at once, from counts of each status
    (no Python call per group: a million runs hold hundreds of thousands of groups)."""
    counts = runs.groupby([*keys, "status"], sort=True).size().rename("n").reset_index()
    counts["answered"] = counts["status"].isin(ANSWERED)
    by_group = counts.groupby(keys, sort=False)
    total = by_group["n"].transform("sum")
    answered = (
        counts["n"]
        .where(counts["answered"], 0)
        .groupby([counts[k] for k in keys], sort=False)
        .transform("sum")
    )
    wrong = (
        (counts["status"] == WRONG).groupby([counts[k] for k in keys], sort=False).transform("any")
    )
    majority = answered / total > 0.5
    candidates = counts[counts["answered"] == majority]
    # the most common status of the winning side; a tie goes to the first by name (as mode)
    picked = candidates.sort_values(
        [*keys, "n", "status"], ascending=[True] * len(keys) + [False, True], kind="stable"
    ).drop_duplicates(keys)
    out = picked.set_index(keys)["status"].astype(object)
    wrong_groups = counts[wrong].drop_duplicates(keys).set_index(keys).index
    out.loc[out.index.isin(wrong_groups)] = WRONG
    return out.sort_index()


def time_limits(limit_s: pd.Series, time_s: pd.Series) -> pd.Series:
    """Each row's time limit; a row without one takes the largest limit of the rows given
    (else their largest time): what PAR-2 and the paired censoring charge the unanswered."""
    limit = pd.to_numeric(limit_s, errors="coerce").astype(float)
    times = pd.to_numeric(time_s, errors="coerce").astype(float)
    return limit.fillna(limit.max() if limit.notna().any() else times.max())


def par2_score(status: pd.Series, time_s: pd.Series, limit_s: pd.Series) -> pd.Series:
    """THE PAR-2 score of each instance: its time when answered, else 2 x its time limit
    (``time_limits``; 0 when no row has a limit or a time, so no row scores NaN).

    One row per (instance, configuration); ``wrong``, ``error``, ``timeout`` and ``memout``
    all score the penalty.
    """
    times = pd.to_numeric(time_s, errors="coerce").astype(float)
    penalty = PAR_FACTOR * time_limits(limit_s, times).fillna(0.0)
    return times.where(status.isin(ANSWERED) & times.notna(), penalty)


def par2(runs: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUP) -> pd.DataFrame:
    """Per group: the mean PAR-2 score over its instances (``par2_s``) and their count ``n``.

    Runs are first reduced to one outcome per instance (``instance_status``, median time of
    answered repeats), the same reduction the report uses, so both print the same score.
    """
    columns = [*by, "par2_s", "n"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    data = _with_time(runs)
    keys = [*by, "instance"]
    grouped = data.groupby(keys, dropna=False, sort=True)
    per = pd.DataFrame(
        {
            "status": grouped["status"].agg(instance_status),
            "time_s": grouped["time_s"].median(),
            "limit_s": grouped["time_limit_s"].max(),
        }
    ).reset_index()
    per["par2_s"] = par2_score(per["status"], per["time_s"], per["limit_s"])
    scores = per.groupby(list(by), dropna=False, sort=True)["par2_s"]
    return pd.DataFrame({"par2_s": scores.mean(), "n": scores.size()}).reset_index()


def summary(runs: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUP) -> pd.DataFrame:
    """Status counts (of runs), median time with IQR, median wall, PAR-2 (per instance, see
    ``par2``) and median overhead per group."""
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
    walls, overhead = (
        median_iqr(runs, c, by)[[*by, "median"]].rename(columns={"median": f"median_{c}"})
        for c in ("wall_s", "overhead_s")
    )
    scores = par2(runs, by)[[*by, "par2_s"]]
    out = counts
    for part in (times, walls, scores, overhead):
        out = out.merge(part, on=list(by), how="left")
    return out


def options_dict(options: object) -> dict:
    """An options value (dict, JSON text or nothing) as a dict."""
    if isinstance(options, str):
        return json.loads(options) if options else {}
    return dict(options or {})


def options_text(options: object) -> str:
    """Canonical JSON of an options value (dict or JSON text), for grouping."""
    return json.dumps(options_dict(options), sort_keys=True)


def _with_time(runs: pd.DataFrame) -> pd.DataFrame:
    data = runs.copy()
    if "time_s" not in data:
        data["time_s"] = run_time(data) if len(data) else pd.Series(dtype=float)
    for column in ("wall_s", "overhead_s", "build_s", "solve_s", "cpu_s", "time_limit_s"):
        if column in data:
            data[column] = pd.to_numeric(data[column], errors="coerce").astype(float)
    data["time_s"] = data["time_s"].astype(float).replace([np.inf], np.nan)
    return data
