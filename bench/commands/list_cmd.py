"""List the puzzles, their encodings and the shipped suites."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table

from bench.analysis.formats import fitting_console
from bench.environment import solver_version
from bench.suites_dir import suite_names
from models import registry
from models.base import Encoding


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the contract's JSON form")


def _details(cls: type[Encoding]) -> dict[str, Any]:
    return {
        "solver": cls.solver,
        "reference": cls.reference,
        "version": solver_version(cls),
        "options": {key: list(choices) for key, choices in cls.option_choices.items()},
    }


def main(args: argparse.Namespace) -> int:
    table = registry.encodings()
    if args.json:
        # the contract's shape, extended: each puzzle also says, per encoding, what the
        # table shows (solver, version, option choices; the first choice is the default)
        doc = {
            "puzzles": {
                puzzle: {
                    "encodings": list(encs),
                    "details": {name: _details(cls) for name, cls in encs.items()},
                    "max_cells": registry.get_puzzle(puzzle).max_cells,
                }
                for puzzle, encs in table.items()
            },
            "suites": suite_names(),
        }
        print(json.dumps(doc))
        return 0
    out = Table(title="puzzles and encodings")
    for column in ("puzzle", "encoding", "solver", "version", "options"):
        out.add_column(column)
    for puzzle, encs in table.items():
        for name, cls in encs.items():
            kind = f"{cls.solver} (reference)" if cls.reference else cls.solver
            options = "; ".join(
                f"{k}: {'|'.join(map(str, v))}" for k, v in cls.option_choices.items()
            )
            out.add_row(puzzle, name, kind, solver_version(cls), options)
    console = fitting_console()
    console.print(out)
    console.print("suites: " + ", ".join(suite_names()))
    return 0
