"""Per-commit medians of solve time and effort counters for each case, across sweeps (asv-style).

Sweeps are lined up by the git commit they ran at (a dirty checkout is marked +dirty).
The table shows one row per case and one column per commit: median solve CPU time and,
in brackets, the median of the case's main effort counter. --chart draws the slowest
cases across commits.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd
from rich.table import Table

from bench import store
from bench.analysis.formats import fitting_console, markdown_table
from bench.analysis.history import ordered_commits, per_commit, trend_chart
from bench.analysis.names import rich_text
from bench.history_folder import load_any
from bench.outputs import write_output
from models.errors import UsageError

FORMATS = ("table", "md", "csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", help="only sweeps of this suite (e.g. ci)")
    parser.add_argument("--case", metavar="GLOB", help="puzzle/config/instance or case name")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument(
        "--last", type=int, default=8, metavar="N", help="commits shown (table, md)"
    )
    parser.add_argument(
        "--chart", metavar="FILE", help="also draw a trend chart (.svg, .png, .pdf)"
    )
    parser.add_argument(
        "--store", default=str(store.DEFAULT_STORE), metavar="PATH",
        help="a results store, or a folder of history exports (`bench export`)",
    )  # fmt: skip


def main(args: argparse.Namespace) -> int:
    runs = load_any(args.store, args.suite)
    unusable = (
        [s for s in store.sweep_states(args.store).values() if not s.usable]
        if Path(args.store).is_file()
        else []
    )  # a history folder holds finished sweeps of main only
    if unusable:  # a failed, killed or empty sweep is no point of the history
        runs = runs[~runs["run_id"].isin({s.run_id for s in unusable})]
        ids = ", ".join(s.run_id for s in unusable)
        print(f"note: left out {len(unusable)} sweep(s) that did not finish with runs: {ids}",
              file=sys.stderr)  # fmt: skip
    table = per_commit(runs, args.case)
    if table.empty:
        raise UsageError("no stored runs match (see --suite and --case)")
    if args.chart:
        figure = trend_chart(table)
        write_output(args.chart, lambda tmp: figure.savefig(tmp, bbox_inches="tight"))
        print(f"trend chart: {args.chart}", file=sys.stderr)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
        return 0
    wide = _wide(table, args.last)
    if args.format == "md":
        print(markdown_table(wide.reset_index(names="case")))
        return 0
    out = Table(title=f"median solve CPU s [counter=median] per commit ({len(wide)} cases)")
    out.add_column("case", overflow="fold")
    for commit in wide.columns:
        out.add_column(rich_text(commit), justify="right")
    for case, row in wide.iterrows():
        out.add_row(rich_text(case), *map(rich_text, row))  # names and `[k=v]` are not markup
    fitting_console().print(out)
    return 0


def _wide(table: pd.DataFrame, last: int) -> pd.DataFrame:
    """Cases x the last commits, each cell "time [counter]" (or the status if unanswered)."""
    commits = ordered_commits(table)[-last:]
    cells = {}
    for row in table[table["commit"].isin(commits)].itertuples():
        if math.isnan(row.solve_s):
            text = row.status
        else:
            text = f"{row.solve_s:.3g}"
            if row.counter and not math.isnan(row.counter_value):
                text += f" [{row.counter}={row.counter_value:.4g}]"
        cells[(row.case, row.commit)] = text
    cases = sorted({case for case, _ in cells})
    return pd.DataFrame(
        [[cells.get((case, commit), "") for commit in commits] for case in cases],
        index=cases,
        columns=commits,
    )
