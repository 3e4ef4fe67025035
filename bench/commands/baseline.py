"""Save a run as a named baseline under results/baseline/NAME.json (commit it for CI)."""

from __future__ import annotations

import argparse

from bench.analysis.sources import load_source, save_baseline
from bench.store import DEFAULT_STORE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    save = sub.add_parser("save", help="save a run as a baseline")
    save.add_argument("run", nargs="?", default="latest", help="run id or latest")
    save.add_argument("--name", required=True)
    save.add_argument("--reason", default="", help="why this baseline (kept in the file)")
    save.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")


def main(args: argparse.Namespace) -> int:
    path = save_baseline(load_source(args.run, args.store), args.name, args.reason)
    print(f"baseline {args.name!r} saved to {path}")
    return 0
