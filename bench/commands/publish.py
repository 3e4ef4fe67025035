"""A static site of the history: one page per case, its trend across commits, regressions marked.

DIR is a folder of history exports (`bench export`) or a results store. Each case page
charts, per commit (commit id and date on the axis, in commit-date order), the median
and interquartile range of the solve and build CPU times and the median of the case's
main effort counter (named on the axis); a commit whose sweep `bench compare` judges a
regression against the commit before it (same machine) is marked, with the reason.
Open SITE/index.html in a browser: plain files, no server.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.analysis.publish import write_site
from bench.history_folder import load_any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="DIR", help="history exports folder or a store")
    parser.add_argument("--out", required=True, metavar="SITE", help="folder to write")
    parser.add_argument("--suite", help="only sweeps of this suite (e.g. ci)")
    parser.add_argument("--case", metavar="GLOB", help="puzzle/config/instance or case name")


def main(args: argparse.Namespace) -> int:
    runs = load_any(args.source, args.suite)
    index = write_site(runs, Path(args.out), args.case)
    print(index)
    return 0
