"""Run a suite: every planned run isolated, measured, verified and stored as it finishes.

Each run is forked from this warm process (imports are not timed), gets the time limit,
and is killed with its whole process group shortly after it; a crash, hang or memory
blow-up of one run is recorded and the sweep goes on. Every finished run is committed
to the store at once, so a killed sweep loses at most the runs in flight and
`--resume RUN_ID` finishes only what is missing.

--jobs defaults to the suite's ``jobs``, else the number of cores: one run per core, each
pinned to its own core (``--no-pin`` to leave them free), measured in
docs/experiments/pinning.md. Runs still share caches and memory bandwidth, so ``--jobs 1``
is the quiet choice for figures.
A configuration that hits its limit on a board is not run on its larger boards (recorded
as skipped, not as timeouts; ``--all-sizes`` runs them); a timeout well inside the limit
gave up rather than hit it, and stops nothing. Suites that ask for it
(``report = true``, as ``all`` and ``quick`` do) end with a rendered report.

Exit code: 0 when every run ended solved, infeasible, timeout or memout (limits are
expected in a sweep); 1 when any run is wrong or error; 2 for a bad suite or usage; 3 when
the harness or the cluster lost runs (``bench.lost``: not stored, the sweep left unfinished
for ``--resume``) or the scheduler cannot be reached (checked before the sweep is stored).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from bench import environment, execute, limits, lost, measure, skips, store, suites, sweep_lock
from bench.analysis.formats import fitting_console
from bench.commands.solve import add_max_cells, apply_max_cells, default_memory_limit_mb
from bench.plan import (
    MAX_REPEATS,
    PlannedRun,
    check_unchanged,
    instance_hashes,
    narrow,
    run_key,
    with_memory_limit,
)
from bench.progress import SweepProgress, problems, summary_table
from models.base import ERROR, WRONG
from models.errors import UnknownRunError, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", help="a shipped suite name (see `bench list`) or a FILE.toml")
    parser.add_argument("--puzzle", help="run only this puzzle's cases")
    parser.add_argument("--encoding", help="run only this encoding")
    parser.add_argument(
        "--repeat", type=int, metavar="N", help="repeats per run (overrides the suite)"
    )
    parser.add_argument("--time-limit", type=float, metavar="S", help="seconds per run (overrides)")
    parser.add_argument(
        "--memory-limit",
        type=float,
        metavar="MB",
        help="MB each run may allocate (overrides the suite; default: as the suite says, else"
        " `solve`'s default divided among the --jobs runs at once)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="J",
        help="runs at once on this machine (default: as the suite says, else one per core,"
        f" here {default_jobs()})",
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pin each concurrent run to a core of its own (default on)",
    )
    parser.add_argument(
        "--all-sizes",
        action="store_true",
        help="run every board even after a configuration hit its limit on a smaller one",
    )
    parser.add_argument(
        "--report",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="render the report at the end (default: as the suite says)",
    )
    parser.add_argument(
        "--executor",
        choices=("local", "dask"),
        default=None,
        help="local: fork runs here (default, or dask with --scheduler); dask: send each run to"
        " a Dask worker (a local cluster, one single-threaded worker per core, unless --scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="Dask scheduler: tls://host:8786 (with Dask's TLS configuration), or"
        " tcp://127.0.0.1:PORT through an SSH tunnel; see the README's secured set-ups",
    )
    parser.add_argument("--resume", metavar="RUN_ID", help="finish the missing runs of a sweep")
    add_max_cells(parser)
    parser.add_argument(
        "--store",
        default=str(store.DEFAULT_STORE),
        metavar="PATH",
        help=f"SQLite results store (default {store.DEFAULT_STORE})",
    )


def main(args: argparse.Namespace) -> int:
    apply_max_cells(args.max_cells)
    if not args.suite and not args.resume:
        raise UsageError("give --suite NAME|FILE.toml (or --resume RUN_ID)")
    if args.repeat is not None and args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.time_limit is not None:
        args.time_limit = limits.time_limit(args.time_limit, "--time-limit")
    if args.memory_limit is not None:
        args.memory_limit = limits.memory_limit(args.memory_limit, "--memory-limit")
    if args.repeat is not None and args.repeat > MAX_REPEATS:
        raise UsageError(f"--repeat must be at most {MAX_REPEATS}, got {args.repeat}")
    if args.executor is None:
        args.executor = "dask" if args.scheduler else "local"
    if args.scheduler and args.executor != "dask":
        raise UsageError("--scheduler goes with --executor dask, not local")
    if args.executor == "dask" and args.scheduler and _exposed(args.scheduler):
        print(
            f"warning: {args.scheduler} is plain tcp:// to a non-loopback address (unencrypted,"
            " anyone who reaches it can run code): prefer tls:// or an SSH tunnel",
            file=sys.stderr,
        )
    console = fitting_console()  # logs and pipes: no cut of the summary table
    if args.resume:
        if (
            args.puzzle
            or args.encoding
            or args.repeat
            or args.time_limit
            or args.memory_limit
            or args.all_sizes
        ):
            raise UsageError("--resume runs the stored plan: leave out the filters")
        if not Path(args.store).is_file():
            raise UnknownRunError(f"{args.store}: no results store here to resume from")
        with store.connect(args.store) as conn, sweep_lock.hold(args.store, args.resume):
            sweep_row = store.sweep(conn, args.resume)
            run_id, suite_name = args.resume, sweep_row["suite"]
            if args.suite:
                _check_same_suite(args.suite, sweep_row)
            plan = [PlannedRun(**item) for item in sweep_row["plan"]]
            instances = suites.load_planned_instances(plan)
            check_unchanged(
                run_id, instances, sweep_row["instance_hashes"], store.stored_records(conn, run_id)
            )
            _reachable(args)
            args.jobs = _jobs(args, default_jobs() if args.jobs is None else args.jobs, "--jobs")
            env = _warm(plan, store.environments(args.store, [run_id]).get(run_id))
            code, ran = _run(conn, console, args, run_id, suite_name, plan, instances, env)
        wanted = _report_wanted(sweep_row) if args.report is None else args.report
        if wanted and not ran and _report_complete(run_id):
            return code  # nothing new since the report was written
        return _report(args, run_id, code, wanted)
    # every problem of the suite shows up here, first (the options of the runs selected)
    suite = suites.load_suite(args.suite, puzzle=args.puzzle, encoding=args.encoding)
    plan = narrow(
        suite.runs, args.puzzle, args.encoding, args.repeat, args.time_limit, args.all_sizes
    )
    if not plan:
        raise UsageError(f"suite {suite.name}: no run matches the filters given")
    if args.jobs is None:
        said, jobs = f"{suite.path}: [suite] jobs", suite.jobs or default_jobs()
    else:
        said, jobs = "--jobs", args.jobs
    args.jobs = _jobs(args, jobs, said)
    share = default_memory_limit_mb() / args.jobs
    if args.memory_limit is None and share < limits.MIN_MEMORY_LIMIT_MB:
        raise UsageError(
            f"each of {args.jobs} runs at once would get {share:.0f} MB, below the floor of"
            f" {limits.MIN_MEMORY_LIMIT_MB:g} MB a solver needs to start: fewer --jobs"
        )
    plan = with_memory_limit(plan, args.memory_limit, share)
    wanted = suite.report if args.report is None else args.report
    run_id = execute.new_run_id()
    _reachable(args)  # before the sweep is stored: an unreachable scheduler leaves nothing
    env = _warm(plan)
    with store.connect(args.store) as conn, sweep_lock.hold(args.store, run_id):
        store.start_sweep(conn, run_id, _sweep_row(suite, plan, args, wanted))
        store.save_environment(conn, run_id, env)
        code, _ = _run(conn, console, args, run_id, suite.name, plan, suite.instances, env)
    return _report(args, run_id, code, wanted)


def default_jobs() -> int:
    """The cores this process may use (its affinity), so one run per core."""
    return limits.usable_cores()


def _jobs(args: argparse.Namespace, jobs: int, said: str) -> int:
    """Runs at once, at most one per usable core here; a remote Dask cluster's runs go to
    its workers' cores, which this machine cannot count."""
    if args.executor == "dask" and args.scheduler:
        if jobs < 1:
            raise UsageError(f"{said} must be at least 1, got {jobs}")
        return jobs
    return limits.jobs(jobs, said)


def _reachable(args: argparse.Namespace) -> None:
    if args.executor == "dask" and args.scheduler:
        execute.reach_scheduler(args.scheduler)


def _check_same_suite(given: str, sweep_row: dict) -> None:
    """``--suite`` beside ``--resume`` must name the suite the sweep ran, as it was then."""
    suite = suites.load_suite(given, generate=False)
    if suite.name != sweep_row["suite"]:
        raise UsageError(
            f"--suite {given} is not the suite of sweep {sweep_row['run_id']}"
            f" ({sweep_row['suite']}): leave out --suite to resume it"
        )
    if sweep_row.get("suite_sha256") and suite.sha256 != sweep_row["suite_sha256"]:
        raise UsageError(
            f"--suite {given}: {suite.path} changed since sweep {sweep_row['run_id']} ran it"
            " (a resume runs the stored plan): leave out --suite, or run the suite afresh"
        )


def _report_wanted(sweep_row: dict) -> bool:
    """Whether the sweep asked for a report: as stored with it, else its suite file's own."""
    if "report" in sweep_row["arguments"]:
        return bool(sweep_row["arguments"]["report"])
    try:
        doc = suites.tomllib.loads(sweep_row["suite_text"] or "")
        return bool(doc["suite"].get("report", False))
    except (suites.tomllib.TOMLDecodeError, KeyError, AttributeError):
        return False


def _report_complete(run_id: str) -> bool:
    """Both files of the sweep's report are there (each is written whole or not at all)."""
    from bench.analysis.report import REPORT_FILES
    from bench.commands.report import REPORTS_DIR

    return all((REPORTS_DIR / run_id / name).is_file() for name in REPORT_FILES)


def _report(args: argparse.Namespace, run_id: str, code: int, wanted: bool) -> int:
    """Render the sweep's report (reports/<run id>/) and print where it is; not for a
    sweep that lost runs (unfinished: its resume renders it)."""
    if not wanted or code == lost.EXIT_CODE:
        return code
    from bench.commands import report

    report.main(argparse.Namespace(runs=[run_id], out=None, store=args.store))
    return code


def _run(conn, console, args, run_id, suite_name, plan, instances, env) -> tuple[int, bool]:
    """Run what the plan still lacks; (exit code, whether anything was left to run)."""
    started = time.perf_counter()
    stored = {run_key(r.to_row()) for r in store.stored_records(conn, run_id)}
    stored |= skips.keys(conn, run_id)  # not run on purpose: a resume does not run them either
    todo = [p for p in plan if p.key() not in stored]
    console.print(
        f"run {run_id}: suite {suite_name}, {len(plan)} planned, {len(todo)} to run"
        f" (calibration {env.get('calibration_s', '?')} s)",
        highlight=False,
        markup=False,  # a suite's file name is data
    )
    previous = signal.signal(signal.SIGTERM, _terminate)
    progress = SweepProgress(len(plan), len(plan) - len(todo), f"{suite_name}")
    sweep = execute.Sweep(
        conn, run_id, suite_name, env, progress.finished, progress.skipped, progress.lost
    )
    try:
        with progress:
            if args.executor == "dask":
                with execute.dask_scheduler(args.scheduler, args.jobs) as address:
                    execute.run_dask(
                        todo, sweep, instances, address, progress.started, progress.tick,
                        notice=progress.note,
                    )  # fmt: skip
            else:
                execute.run_local(
                    todo, sweep, instances, args.jobs, progress.started, progress.tick, args.pin
                )
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not sweep.lost:  # a sweep that lost runs stays unfinished, for --resume
        store.finish_sweep(conn, run_id, execute.now_iso())
    seconds = time.perf_counter() - started
    records = sweep.records()
    skipped = [p for p, _ in sweep.skipped]
    console.print(
        summary_table(records, run_id, seconds, skipped, ran=sweep.ran, before=sweep.stored_before)
    )
    if sweep.refuted:
        console.print(f"{sweep.refuted} infeasible claim(s) refuted by a verified solution: wrong")
    if sweep.skipped:
        console.print(
            f"{len(sweep.skipped)} run(s) not run: their configuration hit its limit on a"
            " smaller board (stored as skipped, not as timeouts; --all-sizes runs them)",
            highlight=False,
        )
    for line in problems(records):
        console.print(line, highlight=False, markup=False)
    console.print(f"run id: {run_id}", highlight=False)
    if sweep.lost:
        message = lost.lost_message(run_id, [reason for _, reason in sweep.lost])
        print(f"error: {message}", file=sys.stderr)
        return lost.EXIT_CODE, bool(todo)
    bad = any(r.status in (WRONG, ERROR) for r in records)
    return (1 if bad else 0), bool(todo)


def _exposed(address: str) -> bool:
    """A plain tcp:// scheduler on a non-loopback host."""
    if not address.startswith("tcp://"):
        return False
    host = address[len("tcp://") :].rsplit(":", 1)[0].strip("[]")
    return host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127.")


def _terminate(signum, frame) -> None:
    raise SystemExit(128 + signum)  # unwinds through the executor, which kills runs in flight


def _sweep_row(suite: suites.Suite, plan: list[PlannedRun], args, report: bool) -> dict:
    from dataclasses import asdict

    return {
        "suite": suite.name,
        "suite_path": str(suite.path),
        "suite_text": suite.text,
        "suite_sha256": suite.sha256,
        "plan": [asdict(p) for p in plan],
        "instance_hashes": instance_hashes(suite.instances),
        "arguments": {**{k: getattr(args, k) for k in ARGUMENTS_KEPT}, "report": report},
        "started_at": execute.now_iso(),
    }


#: command-line arguments stored with the sweep
ARGUMENTS_KEPT = ("suite", "puzzle", "encoding", "repeat", "time_limit", "memory_limit", "jobs",
                  "executor", "pin", "all_sizes")  # fmt: skip


def _warm(plan: list[PlannedRun], stored: dict | None = None) -> dict:
    """Import the plan's encodings and their solvers (those alone), then its environment:
    ``stored`` (a resume), else collected in a fork that inherits the warm imports."""
    encodings = {(r.puzzle, r.encoding) for r in plan}
    measure.warm_up(encodings=encodings)
    return stored or environment.collect_isolated(encodings=encodings)
