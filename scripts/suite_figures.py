"""Writes the measured rows of the suites table (bench/suites/README.md) from stored runs.

A figure of the table is never typed: ``export`` reads named runs from a store into the
committed export ``bench/suites/figures.json`` (a few numbers per run), and ``table``
rewrites the table's generated rows from that export. ``tests/test_figures.py`` checks
that the table matches the export and that each exported suite still plans the runs it
names. Run from the repository root:

    python scripts/suite_figures.py export RUN_ID [...] [--store results/bench.sqlite] [--note TEXT]
    python scripts/suite_figures.py table [--check]

Rows of suites with no export (a sweep too long to repeat for each change) state their
figure once, in that table, and every other file links to it.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPORT = ROOT / "bench" / "suites" / "figures.json"
TABLE = ROOT / "bench" / "suites" / "README.md"
STATUSES = ("solved", "infeasible", "timeout", "memout", "error", "wrong")


def export(store: Path, run_ids: list[str], note: str) -> dict[str, dict]:
    """suite -> the figures of its named run, read from the store (read-only)."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    figures = json.loads(EXPORT.read_text()) if EXPORT.is_file() else {}
    for run_id in run_ids:
        suite, planned, started, finished, arguments = conn.execute(
            "SELECT suite, planned, started_at, finished_at, arguments FROM sweeps"
            " WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        counts = dict(
            conn.execute(
                "SELECT status, COUNT(*) FROM runs WHERE run_id = ? GROUP BY status", (run_id,)
            ).fetchall()
        )
        skipped = conn.execute(
            "SELECT COUNT(*) FROM skipped WHERE run_id = ?", (run_id,)
        ).fetchone()[0]
        seconds = datetime.fromisoformat(finished) - datetime.fromisoformat(started)
        figures[suite] = {
            "run_id": run_id,
            "planned": planned,
            "statuses": {s: counts.get(s, 0) for s in STATUSES},
            "not_run": skipped,
            "sweep_s": round(seconds.total_seconds(), 1),
            "jobs": json.loads(arguments or "{}").get("jobs"),
            "note": note,  # what the numbers cannot say, e.g. the machine's load
        }
    return dict(sorted(figures.items()))


def row_figure(f: dict) -> str:
    """The table's time cell for one exported run."""
    ran = sum(f["statuses"].values())
    answered = ", ".join(f"{n} {s}" for s, n in f["statuses"].items() if n)
    not_run = f", {f['not_run']} not run" if f["not_run"] else ""
    note = f"; {f['note']}" if f.get("note") else ""
    return (
        f"{ran} runs ({answered}{not_run}) in {f['sweep_s']} s of sweep with --jobs {f['jobs']}"
        f" (run {f['run_id']}{note})"
    )


def rewrite_table(text: str, figures: dict[str, dict]) -> str:
    """The README with the time cell of every exported suite's row rewritten."""
    out = []
    for line in text.splitlines(keepends=True):
        cells = line.split(" | ")
        name = cells[0].removeprefix("| ").strip("`") if line.startswith("| `") else ""
        if name in figures:
            line = " | ".join([*cells[:-1], row_figure(figures[name])]) + " |\n"
        out.append(line)
    return "".join(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export")
    exp.add_argument("run_ids", nargs="+")
    exp.add_argument("--store", type=Path, default=ROOT / "results" / "bench.sqlite")
    exp.add_argument("--note", default="", help="e.g. the machine's load during the runs")
    table = sub.add_parser("table")
    table.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    if args.command == "export":
        EXPORT.write_text(json.dumps(export(args.store, args.run_ids, args.note), indent=1) + "\n")
    text = TABLE.read_text()
    rewritten = rewrite_table(text, json.loads(EXPORT.read_text()))
    if getattr(args, "check", False):
        if rewritten != text:
            print(f"{TABLE}: stale; run python scripts/suite_figures.py table", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(rewritten)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
