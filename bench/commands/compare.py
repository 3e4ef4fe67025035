"""Compare a baseline with current runs; exit 1 when something got slower or broke.

BASELINE and CURRENT are run ids (or latest), baseline names (results/baseline/NAME.json)
or exported result files (CSV, Parquet, JSON). Solve work is judged by the solvers'
repeatable effort counters where they repeat, else by CPU time; the build is always
judged by CPU time, pooled over each configuration's instances. A time is flagged only
when its whole 95 % bootstrap interval lies beyond the time threshold. A solver version
or machine change makes cases "not comparable" unless --across-versions is given.
The gate fails (exit 1, with a verdict of its own) on what it cannot see as well: an empty
or unfinished current sweep, different suites, baseline cases missing from the current
runs, a status no run can have. Exit codes: 0 the gate passes, 1 a regression or one of
those, 2 bad input (a threshold that is not a finite fraction above 0), 3 the harness failed.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd
from rich.table import Table

from bench.analysis.compare import (
    COUNTER_THRESHOLD,
    TIME_THRESHOLD,
    Gate,
    Side,
    busy_note,
    check_threshold,
    compare_runs,
    gate,
    machine,
)
from bench.analysis.formats import fitting_console, missing
from bench.analysis.names import rich_text
from bench.analysis.sources import COMPARE_FIELDS, Runs, calibration, load_source
from bench.analysis.verdict_text import Context, gate_line, markdown, ordered
from bench.outputs import write_output
from bench.store_layout import DEFAULT_STORE
from models.errors import UsageError

FORMATS = ("table", "md", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", help="run id, latest, baseline name, or results file")
    parser.add_argument("current", help="run id, latest, baseline name, or results file")
    parser.add_argument(
        "--threshold", type=float, default=COUNTER_THRESHOLD, metavar="FRACTION",
        help=f"counter growth that counts as a regression (default {COUNTER_THRESHOLD})",
    )  # fmt: skip
    parser.add_argument(
        "--time-threshold", type=float, default=TIME_THRESHOLD, metavar="FRACTION",
        help="time growth (whole 95%% interval beyond it) that counts as a regression "
        f"(default {TIME_THRESHOLD})",
    )  # fmt: skip
    parser.add_argument(
        "--across-versions", action="store_true",
        help="compare across solver versions and machines: times scaled by calibration, "
        "counters ignored",
    )  # fmt: skip
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--out", metavar="FILE", help="also write the verdicts there")
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")
    parser.add_argument("--all", action="store_true", help="list unchanged cases too")


def main(args: argparse.Namespace) -> int:
    check_threshold(args.threshold, "--threshold")
    check_threshold(args.time_threshold, "--time-threshold")
    base = load_source(args.baseline, args.store, COMPARE_FIELDS)
    cur = load_source(args.current, args.store, COMPARE_FIELDS)
    if base.runs.empty:
        raise UsageError(
            f"{base.label}: the baseline holds no runs: nothing to hold the current to"
        )
    notes, scale, comparable = _machines(base, cur, args.across_versions)
    verdicts = compare_runs(
        base.runs,
        cur.runs,
        threshold=args.threshold,
        time_threshold=args.time_threshold,
        calibration=scale,
        times_comparable=comparable,
        across_versions=args.across_versions,
    )
    notes += _version_notes(base.runs, cur.runs)
    notes += [n for n in (busy_note(name, side.environments)
                          for name, side in (("baseline", base), ("current", cur))) if n]  # fmt: skip
    decision = gate(Side(base.label, base.runs), Side(cur.label, cur.runs, not cur.note), verdicts)
    notes += [n for n in (base.note,) if n]
    title = (
        f"{base.label} -> {cur.label} (counters {args.threshold:.0%}, "
        f"times {args.time_threshold:.0%})"
    )
    counts = verdicts.counts()
    shown = verdicts.table if args.all else verdicts.table[verdicts.table["verdict"] != "same"]
    shown = ordered(shown)  # regressions first
    if args.format == "json":
        text = json.dumps(
            {"baseline": base.label, "current": cur.label, "notes": notes, "counts": counts,
             "gate": decision.verdict, "problems": list(decision.problems),
             "verdicts": json.loads(shown.to_json(orient="records"))},
            indent=1,
        )  # fmt: skip
    else:
        text = markdown(f"bench compare: {title}", _context(base, cur, notes, comparable), counts,
                        shown, gate_line(decision))  # fmt: skip
    if args.format == "table":
        _print_table(title, notes, counts, shown, decision)
    else:
        print(text)
    if args.out:
        write_output(args.out, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return decision.exit_code


def _machines(base: Runs, cur: Runs, across: bool):
    """(notes, calibration scale, whether times compare) from the two sides' environments."""
    machines = [{machine(e) for e in side.environments.values()} for side in (base, cur)]
    if not all(machines) or machines[0] == machines[1]:
        return [], (None, None), True
    change = f"machine {', '.join(sorted(machines[0]))} -> {', '.join(sorted(machines[1]))}"
    base_cal, cur_cal = calibration(base), calibration(cur)
    if across and base_cal and cur_cal:
        note = f"{change}: times scaled by calibration {base_cal:.3f} s / {cur_cal:.3f} s"
        return [note], (base_cal, cur_cal), True
    return [f"{change}: times not compared (--across-versions scales them)"], (None, None), False


def _context(base: Runs, cur: Runs, notes: list[str], comparable: bool) -> Context:
    """What was compared, for the Markdown: a committed baseline or a stored sweep a side,
    and whether both ran on one machine (told apart by CPU model and cores)."""

    def side(runs: Runs) -> str:
        commits = sorted({str(e.get("git_commit", ""))[:10] for e in runs.environments.values()})
        at = f" at {', '.join(c for c in commits if c)}" if any(commits) else ""
        kind = "committed baseline" if runs.label in _baseline_names() else "sweep"
        return f"{kind} {runs.label}{at}"

    def repeats(runs: pd.DataFrame) -> int:
        return (
            int(runs.groupby(["puzzle", "instance", "encoding"]).size().median())
            if len(runs)
            else 0
        )

    machines = {machine(e) for side_ in (base, cur) for e in side_.environments.values()}
    return Context(
        base=side(base) + ", measured in another job"
        if base.label in _baseline_names()
        else side(base),
        current=side(cur),
        same_machine=len(machines) == 1 and comparable,
        machine=", ".join(sorted(machines)),
        repeats=(repeats(base.runs), repeats(cur.runs)),
        notes=notes,
    )


def _baseline_names() -> set[str]:
    from bench.analysis.sources import BASELINE_DIR

    return {p.stem for p in BASELINE_DIR.glob("*.json")}


def _version_notes(base: pd.DataFrame, cur: pd.DataFrame) -> list[str]:
    def versions(runs: pd.DataFrame) -> dict[str, str]:
        pairs = runs[["solver", "solver_version"]].dropna().drop_duplicates()
        return dict(zip(pairs["solver"], pairs["solver_version"], strict=True))

    b, c = versions(base), versions(cur)
    return [
        f"solver {name}: {b[name]} -> {c[name]}"
        for name in sorted(set(b) & set(c))
        if b[name] != c[name]
    ]


def _cells(row) -> list[str]:
    status = f"{row.base_status} -> {row.cur_status}" if isinstance(row.base_status, str) else ""
    values = "" if missing(row.cur) else f"{row.base:.4g} -> {row.cur:.4g}"
    ratio = (
        "" if missing(row.ratio) else f"{row.ratio:.2f} [{row.ratio_low:.2f}, {row.ratio_high:.2f}]"
    )
    return [row.puzzle, row.instance, row.config, row.aspect, status, values, ratio,
            row.verdict, row.reason]  # fmt: skip


HEADERS = ["puzzle", "instance", "config", "aspect", "status", "base -> cur", "ratio [95% CI]",
           "verdict", "reason"]  # fmt: skip


def _print_table(
    title: str, notes: list[str], counts: dict, shown: pd.DataFrame, decision: Gate
) -> None:
    console = fitting_console()
    for note in notes:
        console.print(rich_text(note))
    table = Table(title=rich_text(title))
    for header in HEADERS:
        table.add_column(header)
    styles = {"regression": "red", "improvement": "green", "not comparable": "yellow"}
    for row in shown.itertuples():
        cells = [rich_text(c) for c in _cells(row)]  # "[options]" in a label is not markup
        cells[7].stylize(styles.get(row.verdict, ""))
        table.add_row(*cells)
    console.print(table)
    console.print(_counts_line(counts), highlight=False)
    console.print(gate_line(decision), highlight=False, markup=False)


def _counts_line(counts: dict) -> str:
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to compare"
