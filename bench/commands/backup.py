"""Copy the results store safely into a new file (SQLite's online backup API).

A store in use keeps its newest runs in a ``-wal`` file beside ``bench.sqlite`` (after a
``kill -9`` of a sweep, possibly every run of it): copying the ``.sqlite`` file alone can miss
them. This copy holds every committed run, is consistent even while a sweep writes, and is
one self-contained file. DEST must not exist (nothing is overwritten); a FIFO or a device
(``/dev/stdout``) is written in place.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.outputs import check_output, write_output
from bench.store_layout import DEFAULT_STORE, backup
from models.errors import UnknownRunError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dest", metavar="DEST", help="the new file to write the copy to")
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")


def main(args: argparse.Namespace) -> int:
    if not Path(args.store).is_file():
        raise UnknownRunError(f"{args.store}: no results store here to back up")
    check_output(args.dest, overwrite=False)
    counted: list[int] = []
    target = write_output(
        args.dest, lambda tmp: counted.append(backup(args.store, tmp)), overwrite=False
    )
    print(f"backed up {counted[0]} runs from {args.store} to {target}")
    return 0
