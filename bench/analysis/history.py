"""Solve times and effort across commits, the asv way: one point per case and commit.

Every sweep stores the git commit it ran at (``environment.git_commit``, with a dirty
flag). ``per_commit`` lines the sweeps up in the order they ran and gives, per case
(puzzle, configuration, instance) and commit, the median build and solve CPU time (wall
time throughout if some sweep predates `build_cpu_s`) over
every repeat of every sweep at that commit, and the median of the case's main effort
counter. A commit swept twice pools both sweeps. Pure pandas: no solver is imported.
"""

from __future__ import annotations

import fnmatch

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from bench.analysis.names import chart_text
from bench.analysis.stats import instance_statuses
from bench.analysis.style import LINESTYLES, MARKERS, OKABE_ITO, distinct_colours
from bench.analysis.tables import cpu_recorded, with_config, with_work_times
from models.solvers import effort_counters

COLUMNS = ["case", "commit", "dirty", "first_run", "commit_date", "sweeps", "runs", "status",
           "build_s", "solve_s", "counter", "counter_value"]  # fmt: skip


def per_commit(runs: pd.DataFrame, case_glob: str | None = None) -> pd.DataFrame:
    """One row per (case, commit), commits in the order they were first swept.

    ``runs`` needs the RunRecord columns plus ``env_git_commit`` and ``env_git_dirty``
    (``store.load(..., with_environment=True)``). ``case_glob`` matches the case label
    ``puzzle/config/instance`` or the suite case name.
    """
    if runs.empty:
        return pd.DataFrame(columns=COLUMNS)
    data = with_config(runs, off_defaults=False)  # a changed default keeps its line
    data["case_label"] = data["puzzle"] + "/" + data["config"] + "/" + data["instance"]
    if case_glob:
        keep = [
            fnmatch.fnmatchcase(label, case_glob) or fnmatch.fnmatchcase(str(case), case_glob)
            for label, case in zip(data["case_label"], data["case"], strict=True)
        ]
        data = data[keep]
    commit = data.get("env_git_commit", pd.Series("", index=data.index)).fillna("")
    dirty = data.get("env_git_dirty", pd.Series(False, index=data.index)).fillna(False)
    data["commit"] = [
        (c[:10] or "unknown") + ("+dirty" if d else "") for c, d in zip(commit, dirty, strict=True)
    ]
    data["dirty"] = dirty.astype(bool)
    data = with_work_times(data, *cpu_recorded(data))  # CPU everywhere, or wall everywhere
    data["commit_date"] = data.get("env_commit_date", pd.Series("", index=data.index)).fillna("")
    order = commit_order(data)
    # every (case, commit) at once: a hundred sweeps of a study hold a million runs
    keys = ["case_label", "commit"]
    grouped = data.groupby(keys, sort=False)
    table = grouped.agg(
        dirty=("dirty", "any"),
        first_run=("started_at", "min"),
        commit_date=("commit_date", "first"),
        sweeps=("run_id", "nunique"),
        runs=("status", "size"),
        build_s=("build_t", "median"),
        solve_s=("solve_t", "median"),
    )
    table["status"] = instance_statuses(data, keys).reindex(table.index)  # the one rule
    counters = _main_counters(data, keys).reindex(table.index)
    table["counter"] = counters["counter"].fillna("")
    table["counter_value"] = counters["counter_value"].astype(float)
    table = table.reset_index().rename(columns={"case_label": "case"})
    table["first_run"] = [pd.Timestamp(t).isoformat() for t in table["first_run"]]
    table["commit_date"] = table["commit_date"].astype(str)
    table["dirty"] = table["dirty"].astype(bool)
    table = table.astype({"sweeps": int, "runs": int, "build_s": float, "solve_s": float})
    table = table[list(COLUMNS)]
    rank = {c: i for i, c in enumerate(order)}
    table["_order"] = table["commit"].map(rank)
    return table.sort_values(["case", "_order"]).drop(columns="_order").reset_index(drop=True)


def commit_order(data: pd.DataFrame, started: str = "started_at") -> list[str]:
    """Commits (``commit`` column) by commit date where every run carries one (``commit_date``,
    from history exports), else in the order they were first swept."""
    first = data.groupby("commit")[started].min()
    dates = data.groupby("commit")["commit_date"].max() if "commit_date" in data else None
    if dates is not None and (dates.fillna("") != "").all():
        key = pd.to_datetime(dates, utc=True)
        return list(pd.DataFrame({"d": key, "f": first}).sort_values(["d", "f"]).index)
    return list(first.sort_values().index)


def _main_counters(data: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: the first effort counter of its solver (the group's first run's) that its
    runs report, and that counter's median over the runs reporting it."""
    solver = data.groupby(keys, sort=False)["solver"].first() if "solver" in data else None
    if solver is None or "counters" not in data:
        return pd.DataFrame(columns=["counter", "counter_value"])
    order = {s: effort_counters(str(s)) for s in solver.unique()}
    wanted = sorted({n for names in order.values() for n in names})
    medians = {}
    for name in wanted:  # one counter's column at a time, not every counter's at once
        values = pd.Series(
            [c.get(name) if isinstance(c, dict) else None for c in data["counters"]],
            index=data.index,
            dtype=object,
        )
        present = values.notna()
        numbers = pd.to_numeric(values[present], errors="coerce")
        medians[name] = numbers.groupby([data.loc[present, k] for k in keys]).median()
    rows = {}
    for key, name_of in solver.items():
        rows[key] = ("", float("nan"))
        for name in order[name_of]:
            if key in medians[name].index:
                rows[key] = (name, float(medians[name][key]))
                break
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["counter", "counter_value"])
    out.index = pd.MultiIndex.from_tuples(out.index, names=keys)
    return out


def ordered_commits(table: pd.DataFrame) -> list[str]:
    """The commits of a ``per_commit`` table in order (commit date, else first swept)."""
    return commit_order(table, "first_run")


def trend_chart(table: pd.DataFrame, max_cases: int = 12, title: str = "") -> Figure:
    """Median solve CPU time per commit, one line per case (the slowest cases first)."""
    commits = ordered_commits(table)
    slowest = table.groupby("case")["solve_s"].max().sort_values(ascending=False)
    cases = list(slowest.index[:max_cases])
    figure, ax = plt.subplots(figsize=(9, 5))
    colours = distinct_colours(len(cases))
    for k, case in enumerate(cases):
        rows = table[table["case"] == case].set_index("commit")
        xs = [i for i, c in enumerate(commits) if c in rows.index]
        ys = [rows.loc[c, "solve_s"] for c in commits if c in rows.index]
        # the report's palette, then its shades: no colour repeats; past the palette the dash
        # and marker change too, so a greyscale print tells them apart
        ax.plot(xs, ys, color=colours[k], markersize=4,
                marker=MARKERS[k // len(OKABE_ITO) % len(MARKERS)],
                linestyle=LINESTYLES[k // len(OKABE_ITO) % len(LINESTYLES)],
                label=chart_text(case if len(case) < 70 else case[:67] + "..."))  # fmt: skip
    ax.set_xticks(
        range(len(commits)), [chart_text(c) for c in commits], rotation=45, ha="right", fontsize=8
    )
    ax.set_yscale("log")
    ax.set_xlabel("commit (in the order swept)")
    ax.set_ylabel("solve CPU time [s] (median over repeats)")
    shown = f"{len(cases)} slowest of {table['case'].nunique()} cases"
    ax.set_title(chart_text(title) if title else f"Solve time across commits ({shown})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    figure.tight_layout()
    return figure
