"""Render runs into reports/<RUN_ID>/report.md and report.html with PNG charts (SVG with --svg).

Charts are drawn by one process per core (--jobs to choose).

Several run ids (or baseline names, or exported files) are merged into one report, so
two machines or two commits can be set side by side.
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from bench.analysis.sources import REPORT_FIELDS, load_runs
from bench.commands import positive_whole_number
from bench.store_layout import DEFAULT_STORE

REPORTS_DIR = Path("reports")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", default=["latest"], help="run ids (default: latest)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default reports/<run id>)")
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")
    parser.add_argument("--svg", action="store_true", help="write every chart as SVG too")
    parser.add_argument("--jobs", type=positive_whole_number, metavar="J",
                        help="processes drawing charts (default: one per core)")  # fmt: skip


def main(args: argparse.Namespace) -> int:
    from bench.analysis.report import write_report  # matplotlib: paid only by this command

    sources, runs = load_runs(args.runs, args.store, columns=REPORT_FIELDS)
    environments = [{"run_id": r, **e} for s in sources for r, e in s.environments.items()]
    out = Path(args.out) if args.out else REPORTS_DIR / "+".join(s.label for s in sources)
    svg, jobs = getattr(args, "svg", False), getattr(args, "jobs", None)  # `run` passes neither
    # SIGTERM unwinds like Ctrl-C: the file being written is removed, never left half-written
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        html = write_report(runs, out, environments, svg=svg, jobs=jobs)
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(f"report written: {out / 'report.md'} and {html}")
    return 0


def _terminate(signum, frame) -> None:
    raise SystemExit(128 + signum)
