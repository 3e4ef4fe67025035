"""Per-instance views of a runs DataFrame that charts, reports and comparisons share.

Pure pandas: nothing here imports a solver. A *configuration* is an encoding with its
options (``degree-sat[backend=glucose4]``) and thread count when it varies, because
that is what a reader compares.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from bench.analysis.stats import ANSWERED, run_time


def config_label(
    encoding: str, options: dict, threads: Any = None, show_threads: bool = False
) -> str:
    """``encoding[key=value,...]`` (+ ``@Nt`` when thread counts are swept)."""
    label = encoding
    if options:
        label += "[" + ",".join(f"{k}={v}" for k, v in sorted(options.items())) + "]"
    if show_threads and threads is not None:
        label += f"@{int(threads)}t"
    return label


def with_config(runs: pd.DataFrame) -> pd.DataFrame:
    """Add ``config`` and ``time_s`` (build + solve of answered runs, NaN otherwise).

    Records carry every option of an encoding; a label names only the options whose
    value varies among that encoding's runs here, so labels stay short and the same
    configuration never appears under two names.
    """
    out = runs.copy()
    options = [json.loads(o) if isinstance(o, str) and o else (o or {}) for o in out["options"]]
    varying: dict[str, set[str]] = {}
    for encoding in set(out["encoding"]):
        values = [o for e, o in zip(out["encoding"], options, strict=True) if e == encoding]
        keys = set().union(*values)
        varying[encoding] = {
            k for k in keys if len({json.dumps(v.get(k), sort_keys=True) for v in values}) > 1
        }
    show_threads = out["threads"].nunique() > 1 if len(out) else False
    out["config"] = [
        config_label(e, {k: v for k, v in o.items() if k in varying[e]}, t, show_threads)
        for e, o, t in zip(out["encoding"], options, out["threads"], strict=True)
    ]
    out["time_s"] = run_time(out)
    return out


def per_instance(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (puzzle, instance, config): median time over repeats and seeds, and status.

    An instance counts as answered by a configuration when most of its repeats answered;
    ``wrong`` anywhere wins, because one wrong answer is never outvoted.
    """
    runs = runs if "config" in runs else with_config(runs)
    keys = ["puzzle", "instance", "size", "config", "encoding"]

    def summarise(group: pd.DataFrame) -> pd.Series:
        statuses = group["status"]
        answered = statuses.isin(ANSWERED)
        if (statuses == "wrong").any():
            status = "wrong"
        elif answered.mean() > 0.5:
            status = statuses[answered].mode().iloc[0]
        else:
            status = statuses[~answered].mode().iloc[0]
        times = group["time_s"].dropna()
        return pd.Series(
            {
                "status": status,
                "time_s": float(times.median()) if status in ANSWERED and len(times) else np.nan,
                "q1_s": float(times.quantile(0.25)) if len(times) else np.nan,
                "q3_s": float(times.quantile(0.75)) if len(times) else np.nan,
                "samples": len(group),
                "time_limit_s": float(group["time_limit_s"].max())
                if group["time_limit_s"].notna().any()
                else np.nan,
                "n_vars": group["n_vars"].median(),
                "n_constraints": group["n_constraints"].median(),
            }
        )

    if runs.empty:
        return pd.DataFrame(columns=[*keys, "status", "time_s", "q1_s", "q3_s", "samples"])
    return runs.groupby(keys, sort=True).apply(summarise, include_groups=False).reset_index()


def size_cells(size: str) -> int:
    """``"15x20"`` -> 300, for ordering sizes on an axis."""
    try:
        rows, cols = (int(x) for x in str(size).lower().split("x"))
        return rows * cols
    except ValueError:
        return 0


def summary(instances: pd.DataFrame) -> pd.DataFrame:
    """Per puzzle x config: counts by status, PAR-2 and median time; plus a virtual best row.

    PAR-2 is the mean over instances of the time when answered and twice the limit
    otherwise (wrong answers count as unanswered), the usual SAT-competition score.
    """
    rows = []
    for puzzle, group in instances.groupby("puzzle"):
        limit = group["time_limit_s"].fillna(group["time_s"].max()).max()
        for config, cfg in group.groupby("config"):
            rows.append(_summary_row(puzzle, config, cfg, limit))
        best = group[group["status"].isin(ANSWERED)].groupby("instance")["time_s"].min()
        every = group["instance"].unique()
        virtual = pd.DataFrame(
            {
                "instance": every,
                "status": ["solved" if i in best.index else "timeout" for i in every],
                "time_s": [best.get(i, np.nan) for i in every],
            }
        )
        rows.append(_summary_row(puzzle, "virtual best", virtual, limit))
    return pd.DataFrame(rows)


def _summary_row(puzzle: str, config: str, group: pd.DataFrame, limit: float) -> dict[str, Any]:
    answered = group["status"].isin(ANSWERED)
    par2 = group["time_s"].where(answered, 2 * limit).mean()
    return {
        "puzzle": puzzle,
        "config": config,
        "instances": len(group),
        "solved": int((group["status"] == "solved").sum()),
        "infeasible": int((group["status"] == "infeasible").sum()),
        "timeout": int(group["status"].isin(["timeout", "memout"]).sum()),
        "wrong": int((group["status"] == "wrong").sum()),
        "error": int((group["status"] == "error").sum()),
        "par2_s": float(par2),
        "median_s": float(group["time_s"].median()) if answered.any() else np.nan,
    }
