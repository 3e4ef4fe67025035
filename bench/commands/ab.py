"""A/B: sweep a base revision and the change side by side on this machine and judge.

BASE is a git revision (a commit, branch or tag); HEAD is another, or, left out, the
working tree as it is. The base is checked out in a temporary git worktree; each side is
swept by its own code (a child `python -m bench run` started in that side's tree, with
this interpreter and its packages), in interleaved rounds A B A B ... of one repeat each
(as many rounds as the suite's repeats unless --rounds), into a store per side under
--dir. A time verdict whose point estimate is past the threshold while its interval is
not (``compare.unsure``) gets as many rounds again, up to --max-rounds (3x by default):
clear cases cost no more, borderline ones are settled or named as unsure. The verdicts
are `bench compare`'s, with one difference: the sides ran on one machine in alternation,
so the build drift common to every configuration (which `compare` divides out between
sweeps) is kept as the change's doing.
Exit codes: 0 no regression, 1 a regression, 2 bad input, 3 a side's sweep or the harness failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.ab import Plan, Side, measure, repo_root, side_runs
from bench.analysis.compare import (
    COUNTER_THRESHOLD,
    TIME_THRESHOLD,
    busy_note,
    check_threshold,
    compare_runs,
    gate,
    machine,
    unsure,
)
from bench.analysis.compare import Side as GateSide
from bench.analysis.verdict_text import Context, gate_line, markdown, ordered
from bench.commands import positive_whole_number
from bench.outputs import write_output
from models.errors import HarnessError, SideError, UsageError

FORMATS = ("md", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", help="the base git revision (e.g. the merge base, main)")
    parser.add_argument("head", nargs="?", help="the changed revision (default: the working tree)")
    add_measure_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="md")
    parser.add_argument("--out", metavar="FILE", help="also write the verdicts there")
    parser.add_argument("--all", action="store_true", help="list unchanged cases too")
    parser.add_argument("--note", action="append", default=[], metavar="TEXT",
                        help="a line for the Markdown's header (e.g. where the base came from)")  # fmt: skip


def add_measure_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared with `bench find`: what is swept and how it is judged."""
    parser.add_argument("--suite", default="ci", help="suite name or FILE.toml (default ci)")
    parser.add_argument(
        "--rounds",
        type=positive_whole_number,
        metavar="N",
        help="A B rounds (default: the suite's repeats)",
    )
    parser.add_argument(
        "--max-rounds", type=positive_whole_number, metavar="N",
        help="rounds at most, when a time verdict is still unsure (default 3x --rounds)",
    )  # fmt: skip
    parser.add_argument("--encoding", help="sweep only this encoding (both sides)")
    parser.add_argument(
        "--dir", metavar="DIR",
        help="keep the two stores and the suite here (default: a temporary folder)",
    )  # fmt: skip
    parser.add_argument("--threshold", type=float, default=COUNTER_THRESHOLD,
                        metavar="FRACTION", help="counter growth that is a regression")  # fmt: skip
    parser.add_argument("--time-threshold", type=float, default=TIME_THRESHOLD,
                        metavar="FRACTION", help="time growth (whole 95%% interval beyond)")  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def main(args: argparse.Namespace) -> int:
    check_threshold(args.threshold, "--threshold")  # the one rule, as `compare` applies it
    check_threshold(args.time_threshold, "--time-threshold")
    plan = Plan(
        repo=repo_root(), base=args.base, head=args.head, suite=args.suite, rounds=args.rounds,
        extra=["--encoding", args.encoding] if args.encoding else [],
    )  # fmt: skip
    base, head, verdicts, context, decision = run_and_judge(plan, args)
    context.notes[:0] = args.note
    counts = verdicts.counts()
    verdicts = verdicts.table
    shown = verdicts if args.all else verdicts[verdicts["verdict"] != "same"]
    title = f"bench ab: {_short(base)} -> {_short(head)} ({args.suite})"
    if args.format == "json":
        text = json.dumps(
            {"base": base.commit, "head": head.commit or "working tree", "dirty": head.dirty,
             "same_machine": context.same_machine, "machine": context.machine,
             "rounds": len(base.run_ids), "notes": context.notes,
             "base_runs": base.run_ids, "head_runs": head.run_ids,
             "counts": counts, "gate": decision.verdict, "problems": list(decision.problems),
             "verdicts": json.loads(ordered(shown).to_json(orient="records"))},
            indent=1,
        )  # fmt: skip
    else:
        text = markdown(title, context, counts, shown, gate_line(decision))
    print(text)
    if args.out:
        write_output(args.out, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return decision.exit_code


def run_and_judge(plan: Plan, args: argparse.Namespace):
    """Measure both sides (in --dir or a temporary folder) and compare them; while a time
    verdict is unsure (``compare.unsure``), measure as many rounds again, up to
    --max-rounds, and say so in the notes. Everything that reads the sides' stores (the
    verdicts and the gate's decision) is done here, before a temporary folder is removed:
    reading them afterwards found no store ("unknown run id") whenever --dir was left out."""
    say = (lambda _: None) if args.quiet else (lambda line: print(line, file=sys.stderr))
    added: list[str] = []
    batches: list[int] = []  # the first batch: the rounds asked for, or the suite's repeats

    def more(base: Side, head: Side) -> int:
        done = len(base.run_ids)
        if not batches:
            batches.append(done)
        batch = batches[0]
        limit = args.max_rounds or 3 * batch
        table = judge(base, head, args.threshold, args.time_threshold, [])[0].table
        doubtful = unsure(table, args.time_threshold)
        if doubtful.empty or done >= limit:
            return 0
        extra = min(batch, limit - done)
        added.append(f"after {done} rounds {doubts(doubtful)}: {extra} more rounds")
        say(f"ab: {added[-1]}")
        return extra

    with tempfile.TemporaryDirectory(prefix="bench-ab-") as scratch:
        workdir = Path(args.dir) if args.dir else Path(scratch)
        try:
            base, head, notes = measure(plan, workdir, say, more)
        except SideError as err:
            if err.code == 2:  # the suite or a flag is bad input to the sides' code too
                raise UsageError(str(err)) from None
            raise HarnessError(str(err)) from None
        verdicts, context = judge(base, head, args.threshold, args.time_threshold, notes)
        decision = gate(
            GateSide(base.label, side_runs(base)[0]),
            GateSide(head.label, side_runs(head)[0]),
            verdicts,
        )
    left = unsure(verdicts.table, args.time_threshold)
    if not left.empty:
        added.append(f"still unsure after {len(base.run_ids)} rounds: {doubts(left)}")
    context.notes += added
    return base, head, verdicts, context, decision


def doubts(rows) -> str:
    """``2 unsure verdicts (bool-cpsat build x1.71 [1.18, 2.30], ...)``."""
    named = [
        f"{r.config} {r.aspect}{'' if r.aspect == 'build' else ' ' + r.instance} "
        f"x{r.ratio:.2f} [{r.ratio_low:.2f}, {r.ratio_high:.2f}]"
        for r in rows.head(3).itertuples()
    ]
    more = f", {len(rows) - 3} more" if len(rows) > 3 else ""
    return f"{len(rows)} unsure verdict{'s' * (len(rows) > 1)} ({', '.join(named)}{more})"


def judge(base: Side, head: Side, threshold: float, time_threshold: float, notes: list[str]):
    """compare's verdicts on the two sides' rounds, the build drift kept (one machine)."""
    base_runs, base_env = side_runs(base)
    head_runs, head_env = side_runs(head)
    machines = {machine(e) for e in (*base_env.values(), *head_env.values())}
    same = len(machines) == 1
    verdicts = compare_runs(
        base_runs, head_runs, threshold=threshold, time_threshold=time_threshold,
        times_comparable=same, divide_drift=False,
    )  # fmt: skip
    current = _short(head)
    if head.dirty:
        current += " with uncommitted changes"
    context = Context(
        base=f"{_short(base)}, measured beside it",
        current=current,
        same_machine=same,
        machine=", ".join(sorted(machines)),
        repeats=(len(base.run_ids), len(head.run_ids)),
        notes=[
            f"interleaved rounds A B x{len(base.run_ids)}, each side swept by its own code",
            *notes,
            *[n for n in (busy_note("busiest", {**base_env, **head_env}),) if n],
        ],
    )
    return verdicts, context


def _short(side: Side) -> str:
    """``label (commit)``, or the short commit alone when the label is the commit."""
    if not side.commit or side.commit.startswith(side.label):
        return side.commit[:10] or side.label
    return f"{side.label} ({side.commit[:10]})"
