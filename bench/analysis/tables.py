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

from bench.analysis.labels import shown_options
from bench.analysis.stats import (
    ANSWERED,
    instance_statuses,
    options_dict,
    par2_score,
    run_time,
)
from models.registry import cells_of


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


def with_config(runs: pd.DataFrame, off_defaults: bool = True) -> pd.DataFrame:
    """Add ``config`` and ``time_s`` (build + solve of answered runs, NaN otherwise).

    Records carry every option of an encoding; a label names only the options off the
    encoding's defaults (``labels.shown_options``: ``degree-sat[card=totalizer]``), so
    labels stay short, read the same in every report, and the same configuration never
    appears under two names. With ``off_defaults=False`` a label names the options whose
    value varies among the encoding's runs here instead: what a comparison of two sweeps
    wants, so a changed default is compared (and judged) rather than seen as a new name.
    """
    out = runs.copy()
    if out.empty:
        out["config"] = pd.Series(dtype=object)
        out["time_s"] = run_time(out)
        return out
    # one label per distinct (puzzle, encoding, options, threads), not per run: a million runs
    # hold a few dozen. Options read from a store are shared objects per distinct text, so
    # the object's identity stands for its value here (equal dicts elsewhere just repeat work)
    identity = [o if isinstance(o, str) or o is None else id(o) for o in out["options"]]
    keys = pd.MultiIndex.from_arrays(
        [
            out["puzzle"].fillna(""),
            out["encoding"].fillna(""),
            pd.Series(identity, dtype=object).fillna(""),
            out["threads"].astype(object).fillna(""),  # a key of NaN would not be a key
        ]
    )
    codes, distinct = pd.factorize(keys)
    firsts = pd.Series(np.arange(len(codes))).groupby(codes).first()
    rows = [int(firsts[c]) for c in range(len(distinct))]
    options_of = [options_dict(out["options"].iloc[r]) for r in rows]
    owners = [(out["puzzle"].iloc[r], out["encoding"].iloc[r]) for r in rows]
    threads = [out["threads"].iloc[r] for r in rows]
    # per (puzzle, encoding): one name may serve two puzzles with different options
    varying: dict[tuple[str, str], set[str]] = {}
    for owner in set(owners):
        values = [o for w, o in zip(owners, options_of, strict=True) if w == owner]
        keys_ = set().union(*values)
        varying[owner] = {
            k for k in keys_ if len({json.dumps(v.get(k), sort_keys=True) for v in values}) > 1
        }
    show_threads = out["threads"].nunique() > 1
    labels = [
        config_label(w[1], _shown(w, o, varying[w], off_defaults), t, show_threads)
        for w, o, t in zip(owners, options_of, threads, strict=True)
    ]
    out["config"] = np.asarray(labels, dtype=object)[codes]
    out["time_s"] = run_time(out)
    return out


def _shown(owner: tuple[str, str], options: dict, varying: set[str], off_defaults: bool) -> dict:
    if off_defaults:
        return shown_options(owner[0], owner[1], options, varying)
    return {k: v for k, v in options.items() if k in varying}


def per_instance(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (puzzle, instance, config): median time over repeats and seeds, and the
    outcome (``stats.instance_status``); ``wall_s`` (median, any status) tells a search that
    gave up from one that ran out of time."""
    runs = runs if "config" in runs else with_config(runs)
    keys = ["puzzle", "instance", "size", "config", "encoding"]
    if runs.empty:
        return pd.DataFrame(columns=[*keys, "status", "time_s", "q1_s", "q3_s", "samples"])
    grouped = runs.groupby(keys, sort=True)
    out = grouped.agg(
        time_s=("time_s", "median"),
        samples=("status", "size"),
        time_limit_s=("time_limit_s", "max"),
        n_vars=("n_vars", "median"),
        n_constraints=("n_constraints", "median"),
        **({"wall_s": ("wall_s", "median")} if "wall_s" in runs else {}),
    )
    quartiles = grouped["time_s"].quantile([0.25, 0.75]).unstack()
    out.insert(1, "q1_s", quartiles[0.25])
    out.insert(2, "q3_s", quartiles[0.75])
    # one run per group (the usual sweep) is its own outcome; only repeats need a vote
    status = grouped["status"].first()
    repeated = runs[grouped["status"].transform("size") > 1]
    if not repeated.empty:
        status.update(instance_statuses(repeated, keys))
    out.insert(0, "status", status)
    out = out.reset_index()
    out.loc[~out["status"].isin(ANSWERED), "time_s"] = np.nan
    return out


def size_cells(size: str) -> int:
    """``"15x20"`` -> 300, for ordering sizes on an axis (0 for another label)."""
    return cells_of(size) or 0


def summary(instances: pd.DataFrame) -> pd.DataFrame:
    """Per puzzle x config: counts by status, PAR-2 (``stats.par2_score`` averaged over
    instances, as the end-of-sweep table prints it) and median time; plus a virtual best row."""
    rows = []
    for puzzle, group in instances.groupby("puzzle"):
        group = group.assign(
            par2_s=par2_score(group["status"], group["time_s"], group["time_limit_s"])
        )
        for config, cfg in group.groupby("config"):
            rows.append(_summary_row(puzzle, config, cfg))
        answered = group[group["status"].isin(ANSWERED)]
        fastest = answered.sort_values("time_s").drop_duplicates("instance").set_index("instance")
        every = group.groupby("instance")["par2_s"].min()
        virtual = pd.DataFrame(
            {
                "status": fastest["status"].reindex(every.index).fillna("timeout"),
                "time_s": fastest["time_s"].reindex(every.index),
                "par2_s": every,
            }
        )
        rows.append(_summary_row(puzzle, "virtual best", virtual))
    return pd.DataFrame(rows)


def _summary_row(puzzle: str, config: str, group: pd.DataFrame) -> dict[str, Any]:
    answered = group["status"].isin(ANSWERED)
    par2 = group["par2_s"].mean()
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


def cpu_recorded(runs: pd.DataFrame) -> tuple[bool, bool]:
    """(build, solve): whether every run that built a model recorded the CPU time its build
    (``build_cpu_s``) and its whole run (``cpu_s``) took; records older than ``build_cpu_s``
    did not, and are then timed by wall clock."""
    built = _numbers(runs, "build_s").notna()
    has = {c: bool(built.any()) and bool(_numbers(runs, c)[built].notna().all())
           for c in ("build_cpu_s", "cpu_s")}  # fmt: skip
    return has["build_cpu_s"], has["build_cpu_s"] and has["cpu_s"]


def with_work_times(runs: pd.DataFrame, build_cpu: bool, solve_cpu: bool) -> pd.DataFrame:
    """Add ``build_t`` and ``solve_t`` (NaN unless answered): CPU seconds when asked for
    (``build_cpu_s``; ``cpu_s - build_cpu_s``), else wall seconds, the same for every row,
    so CPU is never set against wall."""
    out = runs.copy()
    build_cpu_s = _numbers(out, "build_cpu_s")
    out["build_t"] = build_cpu_s if build_cpu else _numbers(out, "build_s")
    out["solve_t"] = (
        (_numbers(out, "cpu_s") - build_cpu_s) if solve_cpu else _numbers(out, "solve_s")
    )
    out.loc[~out["status"].isin(ANSWERED), "solve_t"] = np.nan
    return out


def _numbers(runs: pd.DataFrame, name: str) -> pd.Series:
    if name not in runs:
        return pd.Series(np.nan, index=runs.index)
    return pd.to_numeric(runs[name], errors="coerce").astype(float)
