"""Render one or several runs into a Markdown file and a self-contained HTML page with charts.

Reporting reads stored records only: it never imports a solver (the puzzle packages'
rules are solver-free; encodings are never loaded here).
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from bench.analysis import charts, history, paired, scaling
from bench.analysis.formats import markdown_table
from bench.analysis.style import REPORT, paper_rc
from bench.analysis.tables import per_instance, size_cells, summary, with_config
from bench.outputs import output_folder, write_output

BOARDS_PER_PUZZLE = 2
PAIRED_ALL_UP_TO = 5
REPORT_FILES = ("report.md", "report.html")  # a report is complete when both are there
REPORT_PAGE = REPORT_FILES[1]  # configurations of a puzzle: beyond, the leader against each other


@dataclass
class Section:
    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    images: list[tuple[str, str]] = field(default_factory=list)  # (caption, png file name)


def write_report(runs: pd.DataFrame, out_dir: Path, environments: list[dict[str, Any]]) -> Path:
    """Write report.md, report.html and the charts (PNG and SVG) into ``out_dir``; return the HTML path."""
    out_dir = output_folder(out_dir)
    runs = with_config(runs)
    instances = per_instance(runs)
    sections = [_overview(runs, environments), _summary_section(instances)]
    for puzzle in sorted(instances["puzzle"].unique()):
        sections.extend(_puzzle_sections(runs, instances, puzzle, out_dir))
    trend = _trend_section(runs, environments, out_dir)
    if trend is not None:
        sections.append(trend)
    # the Markdown, then the HTML, each whole or absent: a resume renders a report that lacks one
    markdown = _markdown(sections)
    write_output(out_dir / "report.md", lambda tmp: tmp.write_text(markdown))
    page = _html(sections, out_dir)
    return write_output(out_dir / REPORT_PAGE, lambda tmp: tmp.write_text(page))


def _save(draw, out_dir: Path, stem: str) -> str:
    """Draw (a function returning a Figure, or a Figure) in the report's style; save PNG + SVG."""
    with paper_rc(REPORT):
        figure = draw() if callable(draw) else draw
        write_output(out_dir / f"{stem}.png", lambda tmp: figure.savefig(tmp, dpi=REPORT.dpi))
        write_output(out_dir / f"{stem}.svg", lambda tmp: figure.savefig(tmp))
    plt.close(figure)
    return f"{stem}.png"


def _trend_section(
    runs: pd.DataFrame, environments: list[dict[str, Any]], out_dir: Path
) -> Section | None:
    """Solve time across commits, when the runs come from sweeps at two or more commits."""
    commits = {
        e.get("run_id"): (e.get("git_commit", ""), e.get("git_dirty", False)) for e in environments
    }
    data = runs.assign(
        env_git_commit=[commits.get(r, ("", False))[0] for r in runs["run_id"]],
        env_git_dirty=[commits.get(r, ("", False))[1] for r in runs["run_id"]],
    )
    table = history.per_commit(data)
    if table["commit"].nunique() < 2:
        return None
    image = _save(lambda: history.trend_chart(table), out_dir, "trend")
    return Section(
        "Solve time across commits",
        f"{table['commit'].nunique()} commits, in the order they were swept "
        "(`bench history` prints the table).",
        images=[("median solve CPU time per commit, slowest cases", image)],
    )


def _overview(runs: pd.DataFrame, environments: list[dict[str, Any]]) -> Section:
    lines = [
        f"{len(runs)} runs, {runs['instance'].nunique()} instances, "
        f"{runs['config'].nunique()} configurations; run ids: {', '.join(sorted(runs['run_id'].unique()))}.",
        "Times are build + solve in seconds, medians over repeats and seeds; spreads are "
        "interquartile ranges. PAR-2 counts an unanswered instance as twice the time limit.",
    ]
    not_run = int(runs["not_run"].fillna(False).astype(bool).sum()) if "not_run" in runs else 0
    if not_run:
        lines.append(
            f"{not_run} planned runs were not run: their configuration had hit its limit on a "
            "smaller board of the same case (the stop rule). They count as timeouts at their "
            "limit here, in PAR-2 and in the solved counts, and have no times."
        )
    for env in environments:
        calibration = env.get("calibration_s")
        lines.append(
            f"- run `{env.get('run_id', '?')}`: {env.get('host', '?')}, {env.get('cpu_model', '?')}, "
            f"{env.get('cores', '?')} cores, Python {env.get('python', '?')}, commit "
            f"{str(env.get('git_commit', '?'))[:10]}{' (dirty)' if env.get('git_dirty') else ''}"
            + (
                f", calibration {calibration:.3f} s"
                if isinstance(calibration, (int, float))
                else ""
            )
        )
    return Section("Overview", "\n".join(lines))


def _summary_section(instances: pd.DataFrame) -> Section:
    table = summary(instances)
    for column in ("par2_s", "median_s"):
        table[column] = table[column].map(lambda v: "" if pd.isna(v) else f"{v:.3g}")
    return Section(
        "Solved counts and PAR-2 per configuration",
        "`virtual best` takes, per instance, the fastest configuration that answered.",
        table,
    )


def _puzzle_sections(
    runs: pd.DataFrame, instances: pd.DataFrame, puzzle: str, out_dir: Path
) -> list[Section]:
    data = instances[instances["puzzle"] == puzzle]
    images = [
        (
            "Cactus plot",
            _save(lambda: charts.cactus(instances, puzzle), out_dir, f"{puzzle}-cactus"),
        ),
        ("PAR-2", _save(lambda: charts.par2_bars(instances, puzzle), out_dir, f"{puzzle}-par2")),
    ]
    sized = data["size"].nunique() > 1
    fits = scaling.fits(instances, puzzle) if sized else {}
    if sized:
        draw = lambda: charts.scaling(instances, puzzle, fits=fits)  # noqa: E731
        images.append(("Scaling", _save(draw, out_dir, f"{puzzle}-scaling")))
    for x, y in charts.scatter_pairs(instances, puzzle):
        stem = f"{puzzle}-scatter-{_slug(x)}-vs-{_slug(y)}"
        draw = lambda x=x, y=y: charts.scatter(instances, puzzle, x, y)  # noqa: E731
        images.append((f"{y} against {x}", _save(draw, out_dir, stem)))
    sections = [
        Section(f"{puzzle}: charts", images=images),
        _paired_section(data, puzzle),
        *([_fit_section(fits, puzzle)] if sized else []),
        _model_sizes(data, puzzle),
    ]
    boards = _boards(runs, puzzle, out_dir)
    if boards.images or boards.text:
        sections.append(boards)
    return sections


def _paired_section(data: pd.DataFrame, puzzle: str) -> Section:
    """Every pair when there are few configurations, else the leader against each other."""
    mode = "all" if data["config"].nunique() <= PAIRED_ALL_UP_TO else "leader"
    table = paired.readable(paired.paired(data, puzzle, mode)).drop(columns="puzzle")
    scope = "every pair" if mode == "all" else "the best-ranked configuration against each other"
    return Section(f"{puzzle}: paired comparison ({scope})", paired.method_text(), table)


def _fit_section(fits: dict[str, scaling.Fit], puzzle: str) -> Section:
    text = (
        "Per configuration, the better (by AIC) of a power law t ~ n^b and an exponential "
        "t ~ 2^(n/d) in n = cells (rows x cols), fitted to log time by maximum likelihood "
        "with timeouts as right-censored points at the limit (a Tobit model); the interval "
        f"is a {scaling.LEVEL:.0%} bootstrap over instances ({scaling.BOOTSTRAP} resamples). "
        "AIC gap: how much worse the other model fits."
    )
    if not fits:
        text += f" No configuration solved boards of {scaling.MIN_SIZES} sizes or more."
    return Section(f"{puzzle}: fitted scaling", text, scaling.fit_table(fits))


def _model_sizes(data: pd.DataFrame, puzzle: str) -> Section:
    sizes = (
        data.groupby(["size", "config"])[["n_vars", "n_constraints"]]
        .median()
        .reset_index()
        .assign(cells=lambda d: d["size"].map(size_cells))
        .sort_values(["cells", "config"])
        .drop(columns="cells")
    )
    return Section(f"{puzzle}: model sizes (median per board size)", table=sizes)


def _boards(runs: pd.DataFrame, puzzle: str, out_dir: Path) -> Section:
    """Pictures of solved boards: the smallest and the largest with a stored solution."""
    from models import registry  # rules only: draw and load, no encoding

    solved = runs[
        (runs["puzzle"] == puzzle) & (runs["status"] == "solved") & runs["solution"].notna()
    ]
    section = Section(f"{puzzle}: solved boards")
    if solved.empty:
        return section
    solved = solved.assign(cells=solved["size"].map(size_cells)).sort_values("cells")
    picks = solved.drop_duplicates("instance")
    picks = (
        pd.concat([picks.head(1), picks.tail(1)])
        .drop_duplicates("instance")
        .head(BOARDS_PER_PUZZLE)
    )
    rules = registry.get_puzzle(puzzle)
    for row in picks.itertuples():
        try:
            instance = registry.load_instance(row.instance, puzzle).instance
            problem = rules.verify(instance, row.solution)
            if problem is None:
                figure = rules.draw(instance, row.solution)
        except Exception as err:  # a moved file must not sink the whole report
            section.text += f"\n- could not draw {row.instance}: {err}"
            continue
        if problem is not None:  # the file was edited after the run: never draw a mismatch
            section.text += (
                f"\n- not drawn: {row.instance} no longer matches its stored solution ({problem})"
            )
            continue
        stem = f"{puzzle}-board-{_slug(row.instance)}"
        section.images.append((f"{row.instance} by {row.config}", _save(figure, out_dir, stem)))
    return section


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text)[-60:]


def _markdown(sections: list[Section]) -> str:
    parts = ["# puzzle-bench report\n"]
    for s in sections:
        parts.append(f"## {s.title}\n")
        if s.text:
            parts.append(s.text + "\n")
        if s.table is not None and not s.table.empty:
            parts.append(markdown_table(s.table) + "\n")
        for caption, image in s.images:
            parts.append(f"![{caption}]({image})\n")
    return "\n".join(parts)


def _html(sections: list[Section], out_dir: Path) -> str:
    body = []
    for s in sections:
        body.append(f"<h2>{html.escape(s.title)}</h2>")
        if s.text:
            body.append(
                "".join(f"<p>{html.escape(t)}</p>" for t in s.text.splitlines() if t.strip())
            )
        if s.table is not None and not s.table.empty:
            body.append(s.table.to_html(index=False, na_rep="", border=0, classes="t"))
        for caption, image in s.images:
            data = base64.b64encode((out_dir / image).read_bytes()).decode()
            body.append(
                f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>"
            )
    style = (
        "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
        "table.t{border-collapse:collapse;font-size:13px}table.t td,table.t th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:right}img{max-width:100%}"
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>puzzle-bench report</title>"
        f"<style>{style}</style></head><body><h1>puzzle-bench report</h1>"
        + "\n".join(body)
        + "</body></html>\n"
    )
