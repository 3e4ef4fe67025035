"""Render one or several runs into a Markdown file and a self-contained HTML page with charts.

Reporting reads stored records only: it never imports a solver (the puzzle packages'
rules are solver-free; encodings are never loaded here). Each chart answers one question
(``groups``): the main comparison of a puzzle over the instances its configurations all
ran, and the cases apart in small multiples. The sections are laid out first with the
charts they need as jobs; the jobs are then drawn by a pool of forked processes (one per
core: a chart is CPU-bound Python), and the pool is shut down, its threads joined, before
the report returns, so a sweep that reports at its end is left as single-threaded as it was.
PNG always; SVG when asked.
"""

from __future__ import annotations

import base64
import multiprocessing
import os
import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from markdown_it import MarkdownIt

from bench.analysis import charts, groups, history, paired, scaling
from bench.analysis.formats import markdown_table
from bench.analysis.names import file_stem, md_code, md_text
from bench.analysis.style import REPORT, paper_rc
from bench.analysis.tables import per_instance, size_cells, summary, with_config
from bench.outputs import output_folder, write_output

BOARDS_PER_PUZZLE = 2
BOARD_MAX_CELLS = 900  # a larger board is unreadable at a page's width, and slow to draw
PAIRED_ALL_UP_TO = 5  # configurations of a puzzle: beyond, the leader against each other
SCATTERS = 2  # the leader against the next two; the paired table has every other
SCATTER_MIN = 5  # shared instances below which a scatter plot says nothing a table does not
PANELS_PER_FIGURE = 8  # cases apart per small-multiples figure
REPORT_FILES = ("report.md", "report.html")  # a report is complete when both are there
REPORT_PAGE = REPORT_FILES[1]


@dataclass
class Section:
    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    images: list[tuple[str, str]] = field(default_factory=list)  # (caption, png file name)


@dataclass
class Chart:
    """A chart to draw: ``draw(*args, **kwargs)`` returns a Figure, saved as ``stem``.png."""

    stem: str
    draw: Callable[..., Any]
    args: tuple
    kwargs: dict


def write_report(
    runs: pd.DataFrame,
    out_dir: Path,
    environments: list[dict[str, Any]],
    svg: bool = False,
    jobs: int | None = None,
) -> Path:
    """Write report.md, report.html and the charts (PNG, and SVG when ``svg``) into
    ``out_dir``, drawing with ``jobs`` processes (default: one per core); return the HTML path."""
    out_dir = output_folder(out_dir)
    runs = with_config(runs)
    instances = per_instance(runs)
    jobs_out: list[Chart] = []
    sections = [_overview(runs, environments), _summary_section(instances)]
    for puzzle in sorted(instances["puzzle"].unique()):
        sections.extend(_puzzle_sections(runs, instances, puzzle, jobs_out))
    trend = _trend_section(runs, environments, jobs_out)
    if trend is not None:
        sections.append(trend)
    render(jobs_out, out_dir, svg, jobs)
    # the Markdown, then the HTML, each whole or absent: a resume renders a report that lacks one
    markdown = _markdown(sections)
    write_output(out_dir / "report.md", lambda tmp: tmp.write_text(markdown))
    page = _html(markdown, out_dir)
    return write_output(out_dir / REPORT_PAGE, lambda tmp: tmp.write_text(page))


def _chart(charts_out: list[Chart], stem: str, draw: Callable[..., Any], *args: Any,
           **kwargs: Any) -> str:  # fmt: skip
    """Queue a chart; return the PNG file name the report links."""
    charts_out.append(Chart(stem, draw, args, kwargs))
    return f"{stem}.png"


def _draw_one(chart: Chart, out_dir: Path, svg: bool) -> None:
    with paper_rc(REPORT):
        figure = chart.draw(*chart.args, **chart.kwargs)
        write_output(out_dir / f"{chart.stem}.png", lambda tmp: figure.savefig(tmp, dpi=REPORT.dpi))
        if svg:
            write_output(out_dir / f"{chart.stem}.svg", lambda tmp: figure.savefig(tmp))
    plt.close(figure)


def render(
    chart_jobs: list[Chart], out_dir: Path, svg: bool = False, jobs: int | None = None
) -> None:
    """Draw every chart, in forked processes when there are several cores and charts."""
    workers = min(len(chart_jobs), jobs or len(os.sched_getaffinity(0)))
    if workers <= 1:
        for chart in chart_jobs:
            _draw_one(chart, out_dir, svg)
        return
    # the longest first, so no worker is left with a big chart at the end
    ordered = sorted(chart_jobs, key=_weight, reverse=True)
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        for done in [pool.submit(_draw_one, c, out_dir, svg) for c in ordered]:
            done.result()
    finally:  # stopped (SIGTERM, an error): charts not begun are dropped, begun ones finish whole
        pool.shutdown(wait=True, cancel_futures=True)


def _weight(chart: Chart) -> int:
    return sum(len(a) for a in chart.args if isinstance(a, pd.DataFrame | list))


def _trend_section(
    runs: pd.DataFrame, environments: list[dict[str, Any]], charts_out: list[Chart]
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
    image = _chart(charts_out, "trend", history.trend_chart, table)
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
    runs: pd.DataFrame, instances: pd.DataFrame, puzzle: str, charts_out: list[Chart]
) -> list[Section]:
    data = instances[instances["puzzle"] == puzzle]
    chart_groups = groups.chart_groups(runs, instances, puzzle)
    main = chart_groups[0]
    shown = main.select(data)
    text = [f"Main comparison: {groups.describe(main, data)}."]
    images = [
        (f"Cactus plot ({len(main.instances)} instances)",
         _chart(charts_out, f"{puzzle}-cactus", charts.cactus, shown, puzzle)),
        ("PAR-2", _chart(charts_out, f"{puzzle}-par2", charts.par2_bars, shown, puzzle)),
    ]  # fmt: skip
    sized = shown["size"].nunique() > 1
    fits = scaling.fits(shown, puzzle) if sized else {}
    if sized:
        stem = _chart(charts_out, f"{puzzle}-scaling", charts.scaling, shown, puzzle, fits=fits)
        images.append(("Scaling", stem))
    if len(main.instances) >= SCATTER_MIN:
        for x, y in charts.scatter_pairs(shown, puzzle, limit=SCATTERS):
            stem = file_stem(f"{puzzle}-scatter-{x}-vs-{y}")
            draw = _chart(charts_out, stem, charts.scatter, shown, puzzle, x, y)
            images.append((f"{y} against {x}", draw))
    cases = chart_groups[1:]
    if cases:
        text.append(
            f"{len(cases)} cases fall outside that block (option sweeps, encodings run apart): "
            "each has its own panel below, over the instances its configurations share:"
        )
        text.extend(f"- {md_code(g.key)}: {groups.describe(g, data)}" for g in cases)
        for k in range(0, len(cases), PANELS_PER_FIGURE):
            part = cases[k : k + PANELS_PER_FIGURE]
            panels = [(f"{g.key} ({len(g.instances)} instances)", g.select(data)) for g in part]
            suffix = "" if len(cases) <= PANELS_PER_FIGURE else f"-{k // PANELS_PER_FIGURE + 1}"
            stem = _chart(charts_out, f"{puzzle}-cases{suffix}", charts.case_panels, panels, puzzle)
            images.append((f"Cases apart: {', '.join(g.key for g in part)}", stem))
    sections = [
        Section(f"{puzzle}: charts", "\n".join(text), images=images),
        _paired_section(data, puzzle),
        *([_fit_section(fits, puzzle)] if sized else []),
        _model_sizes(data, puzzle),
    ]
    boards = _boards(runs, puzzle, charts_out)
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
    for column in ("n_vars", "n_constraints"):  # medians of counts: whole numbers to read
        sizes[column] = sizes[column].round().astype("Int64")
    return Section(f"{puzzle}: model sizes (median per board size)", table=sizes)


def _board_figure(puzzle: str, spec: str, solution: Any):
    """A solved board drawn by the puzzle's own rules (in a drawing process)."""
    from models import registry  # rules only: draw and load, no encoding

    instance = registry.load_instance(spec, puzzle).instance
    return registry.get_puzzle(puzzle).draw(instance, solution)


def _boards(runs: pd.DataFrame, puzzle: str, charts_out: list[Chart]) -> Section:
    """Pictures of solved boards: the smallest and the largest (up to ``BOARD_MAX_CELLS``)
    with a stored solution."""
    from models import registry  # rules only: draw and load, no encoding

    solved = runs[
        (runs["puzzle"] == puzzle) & (runs["status"] == "solved") & runs["solution"].notna()
    ]
    section = Section(f"{puzzle}: solved boards")
    if solved.empty:
        return section
    solved = solved.assign(cells=solved["size"].map(size_cells)).sort_values("cells")
    readable = solved[solved["cells"] <= BOARD_MAX_CELLS]
    picks = (readable if not readable.empty else solved.head(1)).drop_duplicates("instance")
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
        except Exception as err:  # a moved file must not sink the whole report
            section.text += f"\n- could not draw {md_code(row.instance)}: {md_text(str(err))}"
            continue
        if problem is not None:  # the file was edited after the run: never draw a mismatch
            section.text += (
                f"\n- not drawn: {md_code(row.instance)} no longer matches its stored solution"
                f" ({md_text(problem, line_start=False)})"
            )
            continue
        stem = file_stem(  # a file per board, never shared; named by its file's name
            f"{puzzle}-board-{row.instance}", readable=f"{puzzle}-board-{Path(row.instance).name}"
        )
        image = _chart(charts_out, stem, _board_figure, puzzle, row.instance, row.solution)
        section.images.append((f"{row.instance} by {row.config}", image))
    return section


def _markdown(sections: list[Section]) -> str:
    parts = ["# puzzle-bench report\n"]
    for s in sections:
        parts.append(f"## {s.title}\n")
        if s.text:
            parts.append(s.text + "\n")
        if s.table is not None and not s.table.empty:
            parts.append(markdown_table(s.table) + "\n")
        for caption, image in s.images:
            parts.append(f"![{md_text(caption, line_start=False)}]({image})\n")
    return "\n".join(parts)


def _html(markdown: str, out_dir: Path) -> str:
    """The Markdown rendered (CommonMark with tables), its PNG charts embedded inline."""
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)

    def embed(match: re.Match) -> str:
        path = out_dir / match.group(1)
        if not path.is_file():
            return match.group(0)
        return f'src="data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}"'

    body = re.sub(r'src="([^"/]+\.png)"', embed, body)
    style = (
        "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
        "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:right}img{max-width:100%}"
        "code{background:#f4f4f4;padding:0 2px}"
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>puzzle-bench report</title>"
        f"<style>{style}</style></head><body>" + body + "</body></html>\n"
    )
