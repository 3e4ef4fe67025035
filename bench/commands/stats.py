"""Paired statistics between configurations: wins, losses, ties, speed-up with its interval, Wilcoxon.

For each puzzle, each pair of configurations is compared on the instances both ran; A is
the better-ranked of the two (more answered, then lower PAR-2). Unanswered runs count as
answering at their time limit (conservative censoring). Runs are named as for `report`:
run ids, `latest`, baseline names or exported files, merged.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.table import Table

from bench.analysis import paired
from bench.analysis.formats import fitting_console, markdown_table
from bench.analysis.names import rich_text
from bench.analysis.sources import ANALYSIS_FIELDS, load_runs
from bench.analysis.tables import per_instance, with_config
from bench.store_layout import DEFAULT_STORE

FORMATS = ("table", "md", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", default=["latest"], help="run ids (default: latest)")
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")
    parser.add_argument("--puzzle", metavar="P", help="only this puzzle")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument(
        "--pairs",
        choices=("all", "leader"),
        default="all",
        help="every pair (default), or the best-ranked configuration against each other",
    )


def main(args: argparse.Namespace) -> int:
    runs = load_runs(args.runs, args.store, args.puzzle, columns=ANALYSIS_FIELDS)[1]
    instances = per_instance(with_config(runs))
    pairs = paired.paired(instances, args.puzzle, args.pairs)
    if args.format == "json":
        doc = {
            "method": paired.method_text(),
            "tie_ratio": paired.TIE_RATIO,
            "floor_s": paired.FLOOR_S,
            "bootstrap": paired.BOOTSTRAP,
            "seed": paired.SEED,
            "level": paired.LEVEL,
            "pairs": json.loads(pairs.to_json(orient="records")),
        }
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return 0
    text = paired.readable(pairs)
    if args.format == "md":
        sys.stdout.write(markdown_table(text) + "\n\n" + paired.method_text() + "\n")
        return 0
    console = fitting_console()
    for puzzle, group in text.groupby("puzzle", sort=True):
        table = Table(title=rich_text(f"{puzzle}: paired comparison, A against B"))
        for column in group.columns[1:]:
            table.add_column(column, justify="left" if column in ("A", "B") else "right")
        for row in group.itertuples(index=False):
            table.add_row(*(rich_text(v) for v in row[1:]))  # `[k=v]` is not markup
        console.print(table)
    console.print(paired.method_text(), highlight=False)
    return 0
