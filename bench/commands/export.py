"""Keep a sweep beyond the job: write it to DIR/MACHINE/COMMIT.json (history exports).

One small JSON file per commit and machine (as asv keeps): the sweep's runs without their
solutions, the environment, the commit's date and subject. A folder of them is what
`bench history --store DIR` and `bench publish DIR` read; the hosted workflow keeps it in
a results branch. Exporting a commit again on the same machine adds the sweep to its file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench import history_folder, store
from models.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="run ids (default latest)")
    parser.add_argument("--all", action="store_true", help="every sweep in the store")
    parser.add_argument("--dir", required=True, metavar="DIR", help="the history folder")
    parser.add_argument("--store", default=str(store.DEFAULT_STORE), metavar="PATH")


def main(args: argparse.Namespace) -> int:
    run_ids = store.run_ids(args.store) if args.all else args.run_ids or ["latest"]
    if not run_ids:
        raise UsageError(f"{args.store}: no sweeps to export")
    for path in dict.fromkeys(
        history_folder.export(args.store, r, Path(args.dir)) for r in run_ids
    ):
        print(path)
    return 0
