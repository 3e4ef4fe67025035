"""Command-line entry: one module per command under ``bench/commands``.

Only the module of the command that runs is imported (and with it pandas, scipy or
matplotlib where that command needs them), so ``bench --version``, ``bench list`` and
``bench solve`` start without the analysis stack; the other commands are listed by the first
line of their docstrings, read without importing them.

``python -m bench`` and the ``bench`` console script (``bench.console``) are the same program.
Bad input of any kind (a malformed file, an unknown puzzle, encoding or run id, a
broken suite) is reported as one line on stderr with exit code 2, never a traceback.
When the harness itself cannot do its job (a corrupt, foreign or newer store, a full or
read-only disk, an internal fault) it says so in one line with exit code 3, so CI never
mistakes a broken harness for a regression (exit 1). ``PUZZLE_BENCH_DEBUG=1`` adds the
traceback of an internal fault.
"""

from __future__ import annotations

import argparse
import ast
import errno
import importlib
import os
import sqlite3
import sys
import tokenize
import traceback
from collections.abc import Iterable
from pathlib import Path

from models.errors import HarnessError, InstanceError, UsageError

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
    "backup": "backup",
    "ab": "ab",
    "find": "find",
    "export": "export",
    "publish": "publish",
    "completion": "completion",
}

DESCRIPTION = """\
Benchmark and compare encodings of logic puzzles on several solvers (`list` names the
puzzles, encodings and solvers found). Every run is isolated, measured, checked by the
puzzle's own verifier and stored in results/bench.sqlite."""

#: (command, what it does) for the top-level help's examples
EXAMPLES = (
    ("list", "puzzles, encodings and suites"),
    ("solve instances/numberlink/numberlink01.txt --encoding circuit-cpsat", "one measured run"),
    ("run --suite quick", "every encoding on tiny boards"),
    ("run --suite all", "the main job, then its report"),
    ("results latest --format csv --out runs.csv", "export the latest sweep"),
    ("report latest", "Markdown + HTML report with charts"),
    ("compare BASELINE latest", "regression verdicts"),
    ("ab main", "the working tree against main, swept side by side on this machine"),
    ("completion bash > ~/.local/share/bash-completion/completions/bench", "shell completion"),
)


def _epilog(prog: str) -> str:
    lines = ["examples:"]
    for command, what in EXAMPLES:
        lines += [f"  {prog} {command}", f"      {what}"]
    lines.append(f"\n`{prog} COMMAND --help` tells more about each command.")
    return "\n".join(lines)


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3
DEBUG_ENV = "PUZZLE_BENCH_DEBUG"
#: OSError numbers that mean the machine, not the input, stopped the harness
_HARNESS_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors: one line, exit 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class _Version(argparse.Action):
    """``--version``: computed only when asked (reads installed package metadata)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    """``puzzle-bench X.Y.Z`` and, briefly, the solver packages installed beside it."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    from models.solvers import SOLVERS  # the solver table; read from metadata, nothing imported

    packages = dict.fromkeys(s.package for s in SOLVERS.values() if s.package)
    solvers = ", ".join(f"{name} {version(name)}" for name in packages)
    return f"puzzle-bench {version('puzzle-bench')} ({solvers}; Python {sys.version.split()[0]})"


def program_name() -> str:
    """``bench`` for the console script, ``python -m bench`` otherwise."""
    return "bench" if os.path.basename(sys.argv[0] or "") == "bench" else "python -m bench"


def build_parser(
    prog: str | None = None, commands: Iterable[str] | None = None
) -> argparse.ArgumentParser:
    """The whole parser; with ``commands``, only those commands' modules are imported and
    given their arguments (the others are there by name and help line, for --help)."""
    prog = prog or program_name()
    parser = _Parser(
        prog=prog,
        description=DESCRIPTION,
        epilog=_epilog(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )
    chosen = set(COMMANDS if commands is None else commands)
    for name, module_name in COMMANDS.items():
        if name not in chosen:
            sub.add_parser(name, help=_summary(module_name))
            continue
        module = importlib.import_module(f"bench.commands.{module_name}")
        command = sub.add_parser(
            name,
            help=_summary(module_name),
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.set_defaults(handler=module.main)
    return parser


def _summary(module_name: str) -> str:
    """A command's help line: the first line of its module's docstring, read, not imported."""
    path = Path(__file__).parent / "commands" / f"{module_name}.py"
    with path.open(encoding="utf-8") as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type == tokenize.STRING:
                return ast.literal_eval(token.string).strip().splitlines()[0]
    return ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # the command is the first word (the top level has no options that take a value)
    args = build_parser(commands=argv[:1]).parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (InstanceError, UsageError) as err:
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
