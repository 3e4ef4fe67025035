"""Bisect: name the first commit between GOOD and BAD where a case got slower, and why.

The commits after GOOD up to BAD (git's ancestry path) are searched by halving: each
probe is an A/B (`bench ab`) of GOOD against the commit, both checked out in temporary
worktrees and swept by their own code in interleaved rounds, on the suite's cases whose
name matches --case (all cases when none does; then the verdict rows whose
puzzle/config/instance matches decide). A probe with a regression in those rows is
"slower"; a probe whose time verdict is unsure measures more rounds before it answers
(`bench ab`'s rule), and every probe's answer is listed with its rounds and any doubt
left, since the bisect is only as sure as its probes. BAD is probed first: when it is
not slower than GOOD there is nothing to find.
Exit codes: 0 a commit named, 1 BAD not slower than GOOD, 2 bad input, 3 the harness failed.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys

import pandas as pd

from bench.ab import Plan, filter_suite, git, repo_root, resolve, suite_text
from bench.analysis.compare import unsure
from bench.analysis.names import visible
from bench.analysis.verdict_text import ordered
from bench.commands.ab import add_measure_arguments, doubts, run_and_judge
from models.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("good", help="a revision where the case was fast")
    parser.add_argument("bad", help="a later revision where it is slower")
    parser.add_argument("--case", required=True, metavar="GLOB",
                        help="suite case name, or puzzle/config/instance")  # fmt: skip
    add_measure_arguments(parser)


def main(args: argparse.Namespace) -> int:
    repo = repo_root()
    good, bad = resolve(repo, args.good), resolve(repo, args.bad)
    commits = git(repo, "rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}").split()
    if not commits:
        raise UsageError(f"{args.bad} is not a later commit than {args.good}: nothing to search")
    text = suite_text(repo, args.suite)
    by_name = filter_suite(text, args.case) != text
    say = (lambda _: None) if args.quiet else (lambda line: print(line, file=sys.stderr))

    probes: list[str] = []  # each probe's verdict and how sure it is, for the summary

    def probe(index: int) -> pd.DataFrame:
        """The regressions of commit ``index`` against GOOD in the rows the glob names."""
        commit = commits[index]
        say(f"find: probing {commit[:10]} ({index + 1} of {len(commits)}) against {good[:10]}")
        plan = Plan(repo=repo, base=good, head=commit, suite=args.suite, rounds=args.rounds,
                    case=args.case if by_name else None,
                    extra=["--encoding", args.encoding] if args.encoding else [])  # fmt: skip
        base, _, verdicts, _, _ = run_and_judge(plan, args)
        table = verdicts.table
        if not by_name:
            labels = table["puzzle"] + "/" + table["config"] + "/" + table["instance"]
            table = table[[fnmatch.fnmatchcase(label, args.case) for label in labels]]
            if table.empty:
                raise UsageError(
                    f"no case matches {args.case!r} (a case name or p/config/instance)"
                )
        found = table[table["verdict"] == "regression"]
        left = unsure(table, args.time_threshold)
        line = f"{commit[:10]} {'SLOWER' if len(found) else 'not slower'}, {len(base.run_ids)} "
        line += "rounds" + (f", still {doubts(left)}" if len(left) else "")
        probes.append(line)
        say(f"find: {line}")
        return found

    low, high = -1, len(commits) - 1  # commits[low] (or GOOD) is fast, commits[high] slow
    worst = probe(high)
    if worst.empty:
        print(f"{args.bad} ({bad[:10]}) is not slower than {args.good} ({good[:10]}) "
              f"for {args.case}: nothing to find")  # fmt: skip
        print(f"  probe: {probes[0]}")
        return 1
    while high - low > 1:
        middle = (low + high) // 2
        found = probe(middle)
        if found.empty:
            low = middle
        else:
            high, worst = middle, found
    first = commits[high]
    subject = git(repo, "log", "-1", "--format=%s", first)
    print(f"first slower commit: {first} {subject}")
    print(f"  against {good[:10]} ({args.good}), searched {len(commits)} commits")
    for row in ordered(worst).itertuples():
        ratio = "" if pd.isna(row.ratio) else (
            f" ratio {row.ratio:.2f} [{row.ratio_low:.2f}, {row.ratio_high:.2f}]"
        )  # fmt: skip
        print(
            visible(
                f"  {row.verdict}: {row.puzzle}/{row.config}/{row.instance} {row.aspect}: "
                f"{row.reason}{ratio}"
            )
        )  # fmt: skip  (a name is one line: names.visible)
    for line in probes:
        print(f"  probe: {line}")
    return 0
