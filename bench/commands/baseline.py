"""Save a run as a named baseline under results/baseline/NAME.json (commit it for CI)."""

from __future__ import annotations

import argparse
import re

from bench.analysis.sources import load_source, save_baseline
from bench.store_layout import DEFAULT_STORE
from models.errors import UsageError

PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    save = sub.add_parser("save", help="save a run as a baseline")
    save.add_argument("run", nargs="?", default="latest", help="run id or latest")
    save.add_argument("--name", required=True)
    save.add_argument("--reason", default="", help="why this baseline (kept in the file)")
    save.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")


def check_name(name: str) -> str:
    """A baseline name is a plain file name: no folders, no ``..``, nothing hidden."""
    if not PLAIN_NAME.fullmatch(name) or ".." in name:
        raise UsageError(
            f"baseline name {name!r} must be a plain name (letters, digits, '.', '_', '-')"
        )
    return name


def main(args: argparse.Namespace) -> int:
    check_name(args.name)
    path = save_baseline(load_source(args.run, args.store), args.name, args.reason)
    print(f"baseline {args.name!r} saved to {path}")
    return 0
