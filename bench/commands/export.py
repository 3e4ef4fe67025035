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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", nargs="?", default="latest", help="run id (default latest)")
    parser.add_argument("--dir", required=True, metavar="DIR", help="the history folder")
    parser.add_argument("--store", default=str(store.DEFAULT_STORE), metavar="PATH")


def main(args: argparse.Namespace) -> int:
    path = history_folder.export(args.store, args.run_id, Path(args.dir))
    print(path)
    return 0
