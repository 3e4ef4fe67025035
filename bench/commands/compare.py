"""Compare a baseline with current runs; exit 1 when something got slower or broke.

BASELINE and CURRENT are run ids (or latest), baseline names (results/baseline/NAME.json)
or exported result files (CSV, Parquet, JSON). Deterministic counters of single-thread
runs are compared directly; times are compared as a ratio of medians with a bootstrap
interval over the repeats and flagged only when the whole interval lies beyond the
threshold. Times from different machines are scaled by their calibration figures.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bench.analysis.compare import compare_runs
from bench.analysis.sources import calibration, load_source
from bench.store import DEFAULT_STORE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", help="run id, latest, baseline name, or results file")
    parser.add_argument("current", help="run id, latest, baseline name, or results file")
    parser.add_argument(
        "--threshold", type=float, default=0.10, metavar="FRACTION",
        help="slowdown that counts as a regression (default 0.10 = 10%%)",
    )  # fmt: skip
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")
    parser.add_argument("--all", action="store_true", help="list unchanged cases too")


def main(args: argparse.Namespace) -> int:
    base, cur = load_source(args.baseline, args.store), load_source(args.current, args.store)
    (base_host, base_cal), (cur_host, cur_cal) = calibration(base), calibration(cur)
    scale = (
        (base_cal, cur_cal) if base_host and cur_host and base_host != cur_host else (None, None)
    )
    verdicts = compare_runs(base.runs, cur.runs, args.threshold, scale).table
    shown = verdicts if args.all else verdicts[verdicts["verdict"] != "same"]
    table = Table(title=f"{base.label} -> {cur.label} (threshold {args.threshold:.0%})")
    for column in (
        "puzzle",
        "instance",
        "config",
        "status",
        "median s",
        "ratio [95% CI]",
        "verdict",
    ):
        table.add_column(column)
    for row in shown.itertuples():
        ratio = (
            ""
            if row.ratio != row.ratio
            else f"{row.ratio:.2f} [{row.ratio_low:.2f}, {row.ratio_high:.2f}]"
        )
        times = (
            ""
            if row.cur_median_s != row.cur_median_s
            else f"{row.base_median_s:.3g} -> {row.cur_median_s:.3g}"
        )
        status = (
            f"{row.base_status} -> {row.cur_status}" if row.base_status == row.base_status else ""
        )
        style = {"regression": "red", "improvement": "green"}.get(row.verdict, "")
        table.add_row(row.puzzle, escape(row.instance), escape(row.config), status, times, ratio,
                      f"[{style}]{row.verdict}[/]: {row.reason}" if style else f"{row.verdict}: {row.reason}")  # fmt: skip
    console = Console()
    if scale[0]:
        console.print(
            f"times scaled by calibration: {base_host} {base_cal:.3f} s, {cur_host} {cur_cal:.3f} s"
        )
    console.print(table)
    counts = verdicts["verdict"].value_counts().to_dict()
    console.print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    return 1 if counts.get("regression", 0) else 0
