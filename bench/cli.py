"""Command-line entry: one module per command under ``bench/commands``.

Bad input of any kind (a malformed file, an unknown puzzle, encoding or run id, a
broken suite) is reported as one line on stderr with exit code 2, never a traceback.
When the harness itself cannot do its job (a corrupt, foreign or newer store, a full or
read-only disk, an internal fault) it says so in one line with exit code 3, so CI never
mistakes a broken harness for a regression (exit 1). ``PUZZLE_BENCH_DEBUG=1`` adds the
traceback of an internal fault.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sqlite3
import sys
import traceback

from models.base import InstanceError
from models.registry import UsageError

#: command name -> module in bench.commands; each module has add_arguments(parser) and main(args)
COMMANDS = {
    "list": "list_cmd",
    "solve": "solve",
    "run": "run",
    "results": "results",
    "report": "report",
    "stats": "stats",
    "plot": "plot",
    "compare": "compare",
    "baseline": "baseline",
    "history": "history",
}

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3
DEBUG_ENV = "PUZZLE_BENCH_DEBUG"
#: OSError numbers that mean the machine, not the input, stopped the harness
_HARNESS_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}


class BenchUsageError(Exception):
    """Raised by commands for bad input; printed as one line, exit code 2."""


class HarnessError(Exception):
    """The harness could not do its job (store unreadable or unwritable, disk full): exit 3."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors: one line, exit 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        module = _command_module(module_name)
        if module is None:
            continue
        command = sub.add_parser(
            name,
            help=(module.__doc__ or "").strip().splitlines()[0],
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.set_defaults(handler=module.main)
    return parser


def _command_module(module_name: str):
    try:
        return importlib.import_module(f"bench.commands.{module_name}")
    except ModuleNotFoundError as err:
        if err.name == f"bench.commands.{module_name}":
            return None  # command not built yet
        raise


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (InstanceError, UsageError, BenchUsageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except HarnessError as err:
        return _harness_fault(str(err))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`... --json | head`): nothing left to tell it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as err:
        if err.errno in _HARNESS_ERRNOS:
            where = f"{err.filename}: " if err.filename else ""
            return _harness_fault(f"cannot write: {where}{err.strerror or err}")
        return _harness_fault(f"internal fault: {type(err).__name__}: {err}")
    except sqlite3.Error as err:
        return _harness_fault(f"results store failed: {err}")
    except Exception as err:
        return _harness_fault(f"internal fault: {type(err).__name__}: {err}")


def _harness_fault(message: str) -> int:
    if os.environ.get(DEBUG_ENV):
        traceback.print_exc()
    text = " ".join(message.split())  # one line, whatever the message held
    print(f"error: {text}", file=sys.stderr)
    return EXIT_HARNESS
