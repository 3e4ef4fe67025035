"""Solve one instance with one encoding, isolated and measured like a run of a sweep.

Exit code 0 when the answer is solved (and verified) or proved infeasible; 1 for
timeout, memout, error or wrong; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

from bench.measure import RunTask, run_isolated
from bench.options import parse_options
from models import registry
from models.base import INFEASIBLE, SOLVED
from models.registry import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "instance", help="a puzzle file, PATH#N for the N-th of a collection, or gen:..."
    )
    parser.add_argument("--puzzle", help="puzzle id (guessed from an instances/<puzzle>/ path)")
    parser.add_argument("--encoding", required=True, help="encoding name (see `bench list`)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="S", help="seconds")
    parser.add_argument("--memory-limit", type=float, default=None, metavar="MB")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="encoding option (repeatable)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (the contract's form)"
    )
    parser.add_argument(
        "--check-unique",
        action="store_true",
        help="after a solution, block it and solve again (encodings that offer it)",
    )
    parser.add_argument(
        "--draw", metavar="FILE.png", help="save a picture of the board and its solution"
    )


def main(args: argparse.Namespace) -> int:
    loaded = registry.load_instance(args.instance, args.puzzle)
    encoding_cls = registry.get_encoding(loaded.puzzle, args.encoding)
    options = encoding_cls.full_options(parse_options(encoding_cls, args.option))
    task = RunTask(
        puzzle=loaded.puzzle,
        instance=args.instance,
        encoding=args.encoding,
        options=options,
        seed=args.seed,
        threads=args.threads,
        time_limit_s=args.time_limit,
        memory_limit_mb=args.memory_limit,
        check_unique=args.check_unique,
    )
    if args.check_unique and not hasattr(encoding_cls, "check_unique"):
        offering = [
            name
            for name, cls in registry.encodings()[loaded.puzzle].items()
            if hasattr(cls, "check_unique")
        ]
        raise UsageError(
            f"encoding {args.encoding} cannot check uniqueness (these can: {', '.join(offering) or 'none'})"
        )
    signal.signal(signal.SIGTERM, _terminate)  # unwinds through run_isolated, which kills the run
    result = run_isolated(task)
    rules = registry.get_puzzle(loaded.puzzle)
    if args.draw:
        _draw(rules, loaded.instance, result.solution, args.draw)
    if args.json:
        doc = {
            "puzzle": loaded.puzzle,
            "instance": args.instance,
            "encoding": args.encoding,
            "options": options,
            "solver": encoding_cls.solver,
            "solver_version": encoding_cls.solver_version(),
            "status": result.status,
            "verified": result.verified,
            "solution": result.solution,
            "build_s": result.build_s,
            "solve_s": result.solve_s,
            "wall_s": result.wall_s,
            "cpu_s": result.cpu_s,
            "peak_rss_mb": result.peak_rss_mb,
            "model_size": {"n_vars": result.n_vars, "n_constraints": result.n_constraints},
            "counters": result.counters,
            "error": result.error,
        }
        if args.check_unique:
            doc["unique"] = result.unique
        print(json.dumps(doc))
    else:
        if result.status == SOLVED:
            print(rules.render(loaded.instance, result.solution))
        times = ", ".join(
            f"{label} {value:.3f} s"
            for label, value in (
                ("build", result.build_s),
                ("solve", result.solve_s),
                ("wall", result.wall_s),
            )
            if value is not None
        )
        verified = " verified" if result.verified else ""
        print(
            f"{loaded.puzzle} {args.instance} [{loaded.size}] {args.encoding}: "
            f"{result.status}{verified}; {times}; cpu {result.cpu_s:.3f} s; "
            f"peak {result.peak_rss_mb:.0f} MB; vars {result.n_vars}, constraints {result.n_constraints}"
        )
        if args.check_unique and result.status == SOLVED:
            verdict = {True: "unique", False: "NOT unique", None: "undecided (limit)"}[
                result.unique
            ]
            print(f"  uniqueness: {verdict} ({result.unique_s:.3f} s)")
        if result.error:
            print(f"  {result.error.splitlines()[0]}", file=sys.stderr)
    return 0 if result.status in (SOLVED, INFEASIBLE) else 1


def _terminate(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _draw(rules, instance, solution, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = rules.draw(instance, solution)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
