"""A static HTML site of the history (asv publish's idea): one page per case, no server.

Each case (puzzle/config/instance) gets a page with three panels over the commits (commit
id and date on the axis, in commit-date order): the solve and the build CPU time, each
as the median over the commit's repeats with the interquartile range as a band, and the
median of the case's main effort counter, named on its axis. Consecutive commits on one
machine are judged with ``compare_runs`` (the gate's own rules); a commit judged a
regression against the one before it is marked on the panel of the aspect that moved
(a counter or solve time: solve and counter panels; a build: the build panel) and listed
with its reason under the chart. Charts are inline SVG, so each page is one plain file.
Pure pandas and matplotlib over run tables: no solver is imported.
"""

from __future__ import annotations

import fnmatch
import io
import itertools
from pathlib import Path
from urllib.parse import quote

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from bench.analysis.compare import busiest, compare_runs
from bench.analysis.history import commit_order
from bench.analysis.names import chart_text, file_stem, html_text
from bench.analysis.style import OKABE_ITO
from bench.analysis.tables import cpu_recorded, with_config, with_work_times
from models.solvers import effort_counters

MEDIAN, BAND, MARK = OKABE_ITO[3], OKABE_ITO[1], OKABE_ITO[4]  # blue line, light band, red marks
STYLE = """body{font-family:sans-serif;max-width:1100px;margin:1em auto;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#eee}.reg{color:#D55E00;font-weight:bold}code{font-size:12px}"""


def prepare(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs with ``label`` (puzzle/config/instance), ``commit``, ``commit_date`` and the
    build and solve CPU times (``build_t``, ``solve_t``)."""
    data = with_config(runs)
    data["label"] = data["puzzle"] + "/" + data["config"] + "/" + data["instance"]
    commit = data.get("env_git_commit", pd.Series("", index=data.index)).fillna("")
    dirty = data.get("env_git_dirty", pd.Series(False, index=data.index)).fillna(False)
    data["commit"] = [(c[:10] or "unknown") + ("+dirty" if d else "")
                      for c, d in zip(commit, dirty, strict=True)]  # fmt: skip
    data["commit_date"] = data.get("env_commit_date", pd.Series("", index=data.index)).fillna("")
    data["machine"] = [
        f"{m} x{c}" for m, c in zip(data.get("env_cpu_model", "?"), data.get("env_cores", "?"),
                                    strict=False)
    ] if "env_cpu_model" in data else "?"  # fmt: skip
    return with_work_times(data, *cpu_recorded(data))


def regressions(data: pd.DataFrame, commits: list[str]) -> pd.DataFrame:
    """Regression verdicts of each commit against the one before it on the same machine:
    columns commit, puzzle, instance, config, aspect, reason."""
    found = []
    for machine_name, runs in data.groupby("machine"):
        present = [c for c in commits if c in set(runs["commit"])]
        for before, after in itertools.pairwise(present):
            table = compare_runs(
                runs[runs["commit"] == before], runs[runs["commit"] == after]
            ).table
            hit = table[table["verdict"] == "regression"].assign(commit=after, machine=machine_name)
            busy = _busy(runs[runs["commit"].isin([before, after])])
            timed = hit["reason"].str.contains(" time ", regex=False)
            hit.loc[timed, "reason"] = hit.loc[timed, "reason"] + busy
            found.append(hit)
    columns = ["commit", "machine", "puzzle", "instance", "config", "aspect", "reason", "ratio"]
    return pd.concat(found, ignore_index=True)[columns] if found else pd.DataFrame(columns=columns)


def _busy(runs: pd.DataFrame) -> str:
    """`` (a sweep began at load 4.4 on 2 cores: less sure)`` when a sweep of the two
    commits began on a machine as busy as its cores (``compare.busiest``); "" otherwise."""
    if "env_load_avg" not in runs:
        return ""
    cores = runs["env_cores"] if "env_cores" in runs else pd.Series(1, index=runs.index)
    environments = {
        run_id: {"load_avg": load, "cores": n}
        for run_id, load, n in zip(runs["run_id"], runs["env_load_avg"], cores, strict=True)
    }
    worst = busiest(environments)
    return (
        f" (a sweep began at load {worst[0]:.1f} on {worst[1]} cores: less sure)" if worst else ""
    )


def _stats(group: pd.DataFrame, column: str) -> tuple[float, float, float]:
    values = group[column].dropna().to_numpy(dtype=float)
    if not len(values):
        return (np.nan, np.nan, np.nan)
    return tuple(float(v) for v in np.percentile(values, [50, 25, 75]))  # type: ignore[return-value]


def case_series(runs: pd.DataFrame, commits: list[str]) -> tuple[pd.DataFrame, str]:
    """Per commit: solve and build medians and quartiles, the main counter's median; and
    the counter's name (the first effort counter of the solver that every run reports)."""
    solver = str(runs["solver"].iloc[0])
    counter = next(
        (n for n in effort_counters(solver)
         if all(isinstance(c, dict) and n in c for c in runs["counters"])),
        "",
    )  # fmt: skip
    rows = []
    for commit in commits:
        group = runs[runs["commit"] == commit]
        if group.empty:
            continue
        solve, build = _stats(group, "solve_t"), _stats(group, "build_t")
        values = [c[counter] for c in group["counters"] if counter and isinstance(c, dict)]
        statuses = group["status"].value_counts()
        rows.append({
            "commit": commit, "date": str(group["commit_date"].iloc[0])[:16].replace("T", " "),
            "status": str(statuses.index[0]), "runs": len(group),
            "solve": solve[0], "solve_lo": solve[1], "solve_hi": solve[2],
            "build": build[0], "build_lo": build[1], "build_hi": build[2],
            "counter": float(np.median(values)) if values else np.nan,
        })  # fmt: skip
    return pd.DataFrame(rows), counter


def case_chart(series: pd.DataFrame, counter: str, marks: pd.DataFrame, title: str) -> str:
    """The three panels as inline SVG text."""
    xs = np.arange(len(series))
    figure, axes = plt.subplots(3, 1, figsize=(9, 7.5), sharex=True)
    panels = [("solve", "solve CPU time [s]"), ("build", "build CPU time [s]"),
              ("counter", f"counter: {counter}" if counter else "no effort counter")]  # fmt: skip
    marked = {
        "solve": set(marks[marks["aspect"] == "solve"]["commit"]),
        "counter": set(marks[marks["reason"].str.startswith("counter")]["commit"]),
        "build": set(marks[marks["aspect"] == "build"]["commit"]),
    }
    for ax, (key, label) in zip(axes, panels, strict=True):
        ys = series[key].to_numpy(dtype=float)
        if key != "counter":
            ax.fill_between(xs, series[f"{key}_lo"], series[f"{key}_hi"], color=BAND, alpha=0.35,
                            linewidth=0, label="interquartile range")  # fmt: skip
        ax.plot(xs, ys, marker="o", markersize=4, color=MEDIAN, label="median")
        hit = [i for i, c in enumerate(series["commit"]) if c in marked[key]]
        if hit:
            ax.plot(xs[hit], ys[hit], linestyle="none", marker="^", markersize=11, color=MARK,
                    label="regression vs previous commit")  # fmt: skip
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        finite = ys[np.isfinite(ys)]
        if len(finite) and finite.min() > 0 and finite.max() / finite.min() > 20:
            ax.set_yscale("log")
        ax.legend(fontsize=7, loc="upper left", frameon=False)
    ticks = [f"{c}\n{d}" for c, d in zip(series["commit"], series["date"], strict=True)]
    axes[-1].set_xticks(xs, ticks, rotation=45, ha="right", fontsize=7)
    axes[-1].set_xlabel("commit (commit date)")
    axes[0].set_title(chart_text(title), fontsize=10)
    figure.tight_layout()
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none"}):  # text stays text: searchable, small
        figure.savefig(buffer, format="svg")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def page_name(label: str) -> str:
    """A case page's file name: a readable slug and a hash of the label (``names.file_stem``),
    so ``a b.txt``, ``a<b.txt`` and ``a_b.txt`` get three pages, never one."""
    return file_stem(label) + ".html"


def write_site(runs: pd.DataFrame, out: Path, case_glob: str | None = None) -> Path:
    """Write ``out/index.html`` and one page per case; the index's path."""
    from models.errors import UsageError

    if runs.empty:
        raise UsageError("no runs to publish")
    data = prepare(runs)
    if case_glob:
        keep = [fnmatch.fnmatchcase(lab, case_glob) or fnmatch.fnmatchcase(str(c), case_glob)
                for lab, c in zip(data["label"], data["case"], strict=True)]  # fmt: skip
        data = data[keep]
        if data.empty:
            raise UsageError(f"no case matches {case_glob!r}")
    commits = commit_order(data)
    marks = regressions(data, commits)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    index_rows = []
    names: dict[str, str] = {}
    for label, group in sorted(data.groupby("label"), key=lambda kv: kv[0]):
        series, counter = case_series(group, commits)
        puzzle, config = group["puzzle"].iloc[0], group["config"].iloc[0]
        mine = marks[(marks["puzzle"] == puzzle) & (marks["config"] == config)
                     & ((marks["instance"] == group["instance"].iloc[0])
                        | (marks["aspect"] == "build"))]  # fmt: skip
        svg = case_chart(series, counter, mine, label)
        name = page_name(label)
        if names.setdefault(name, label) != label:  # 48 bits of sha256 met: never seen
            raise RuntimeError(f"two cases share the page {name}: {names[name]!r}, {label!r}")
        (out / "cases" / name).write_text(_case_page(label, svg, series, counter, mine))
        last = series.iloc[-1]
        index_rows.append((label, name, last, counter, len(mine)))
    index = out / "index.html"
    index.write_text(_index_page(index_rows, commits, data))
    return index


def _case_page(label: str, svg: str, series: pd.DataFrame, counter: str, marks) -> str:
    e = html_text
    rows = "".join(
        f"<tr><td><code>{e(r.commit)}</code></td><td>{e(r.date)}</td><td>{e(r.status)}</td>"
        f"<td>{r.runs}</td><td>{_num(r.solve)}</td><td>{_num(r.build)}</td>"
        f"<td>{_num(r.counter, 6)}</td></tr>"
        for r in series.itertuples()
    )
    flagged = (
        "".join(
            f"<li class=reg><code>{e(m.commit)}</code> {e(m.aspect)}: {e(m.reason)}</li>"
            for m in marks.itertuples()
        )
        or "<li>none</li>"
    )
    return (
        f"<!doctype html><meta charset=utf-8><title>{e(label)}</title><style>{STYLE}</style>"
        f"<p><a href='../index.html'>all cases</a></p><h1>{e(label)}</h1>{svg}"
        f"<h2>Regressions against the commit before</h2><ul>{flagged}</ul>"
        "<h2>Per commit (medians over repeats, CPU seconds)</h2><table><tr><th>commit</th>"
        f"<th>date</th><th>status</th><th>runs</th><th>solve</th><th>build</th>"
        f"<th>{e(counter or 'counter')}</th></tr>{rows}</table>"
    )


def _index_page(rows, commits: list[str], data: pd.DataFrame) -> str:
    e = html_text
    cells = "".join(
        f"<tr><td><a href='cases/{e(quote(name))}'>{e(label)}</a></td><td>{_num(last.solve)}</td>"
        f"<td>{_num(last.build)}</td><td>{e(counter)}</td><td>{_num(last.counter, 6)}</td>"
        f"<td class='{'reg' if n else ''}'>{n}</td></tr>"
        for label, name, last, counter, n in rows
    )
    machines = ", ".join(sorted(set(map(str, data["machine"]))))
    return (
        f"<!doctype html><meta charset=utf-8><title>puzzle-bench history</title>"
        f"<style>{STYLE}</style><h1>puzzle-bench history</h1>"
        f"<p>{len(rows)} cases over {len(commits)} commits ({e(commits[0])} .. "
        f"{e(commits[-1])}); machines: {e(machines)}.</p><table><tr><th>case</th>"
        "<th>solve s (last)</th><th>build s (last)</th><th>counter</th><th>value (last)</th>"
        f"<th>regressions</th></tr>{cells}</table>"
    )


def _num(value: float, digits: int = 4) -> str:
    """A number for a table cell; blank when there is none (no counter, no answer)."""
    return "" if value is None or not np.isfinite(value) else f"{value:.{digits}g}"
