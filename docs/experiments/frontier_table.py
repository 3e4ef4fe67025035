"""Which Numberlink encoding is fastest on which class of board, from one stored sweep.

    python docs/experiments/frontier_table.py RUN_ID [--store results/bench.sqlite]

Reads a sweep of the ``numberlink-frontier`` suite (or any suite with its case names)
and prints Markdown: per class of board (a case, split by size where the sizes differ
in kind, after the whole case) and configuration (encoding and options), the boards answered, build + solve
in all (a run out of time counts its limit), the median and the slowest answered; then,
per class, the configuration fastest on most boards and the best complete one per
board (the virtual best). Reporting only: it reads the store, imports no solver.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ("solved", "infeasible")
#: classes split by size (cells): a case name -> [(label, lowest cells, highest cells)]
SPLITS = {
    "nlf-winding": [
        ("8x8..11x11", 0, 121),
        ("12x12..15x15", 122, 225),
        ("17x17..36x20", 226, 10**9),
    ],
    "nlf-published-style": [("8x8..15x15", 0, 225), ("17x17..36x20", 226, 10**9)],
    "nlf-unique": [("8x8..25x25", 0, 625), ("30x30..50x50", 626, 10**9)],
    "nlf-winding-large": [("30x30..40x40", 0, 1600), ("50x50", 1601, 10**9)],
    "nlf-planted": [("30x30..40x40", 0, 1600), ("30x80", 1601, 2400), ("50x50", 2401, 10**9)],
    "nlf-planted-tubes": [("30x30..40x40", 0, 1600), ("50x50", 1601, 10**9)],
}


def configuration(row: pd.Series) -> str:
    options = json.loads(row["options"]) if isinstance(row["options"], str) else row["options"]
    shown = {
        k: v for k, v in (options or {}).items() if k in ("assume_unique", "restart", "colour")
    }
    flags = [f"{k}={str(v).lower()}" for k, v in shown.items() if v not in (False, 0, "binary")]
    return row["encoding"] + (f" ({', '.join(flags)})" if flags else "")


def classes(runs: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    out = []
    for case, rows in runs.groupby("case", sort=False):
        parts = SPLITS.get(case, [])
        for label, low, high in ([("all", 0, 10**9)] if parts else [("", 0, 10**9)]) + parts:
            part = rows[(rows["cells"] >= low) & (rows["cells"] <= high)]
            if not part.empty:
                out.append((f"{case} {label}".strip(), part))
    return out


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows.assign(
        answered=rows["status"].isin(ANSWERS),
        taken=(rows["build_s"].fillna(0) + rows["solve_s"].fillna(0)).where(
            rows["status"].isin(ANSWERS), rows["time_limit_s"]
        ),
    )
    table = rows.groupby("config", sort=False).agg(
        boards=("instance", "nunique"),
        answered=("answered", "sum"),
        total_s=("taken", "sum"),
        median_ms=("taken", lambda t: 1000 * t.median()),
        slowest_s=("taken", "max"),
    )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_id")
    parser.add_argument("--store", default=str(ROOT / "results" / "bench.sqlite"))
    args = parser.parse_args()
    from bench.store import load  # the project's loader: one column per record field

    runs = load(args.store, args.run_id, json_text=True)
    runs = runs.assign(config=runs.apply(configuration, axis=1))
    wrong = runs[~runs["status"].isin((*ANSWERS, "timeout", "memout"))]
    print(f"run {args.run_id}: {len(runs)} runs, {len(wrong)} neither answered nor out of time")
    for label, rows in classes(runs):
        table = summary(rows)
        print(f"\n### {label} ({rows['instance'].nunique()} boards)\n")
        print("| configuration | answered | build + solve in all | median | slowest |")
        print("|---|---|---|---|---|")
        for config, r in table.iterrows():
            print(
                f"| `{config}` | {int(r.answered)} of {int(r.boards)} | {r.total_s:.2f} s "
                f"| {r.median_ms:.1f} ms | {r.slowest_s:.2f} s |"
            )
        complete = rows[~rows["config"].str.contains("assume_unique")]
        answered = complete[complete["status"].isin(ANSWERS)]
        if answered.empty:
            continue
        taken = answered["build_s"].fillna(0) + answered["solve_s"].fillna(0)
        best = answered.assign(taken=taken).sort_values("taken").groupby("instance").head(1)
        wins = best["config"].value_counts()
        print(
            f"\nBest complete configuration per board: {len(best)} of "
            f"{rows['instance'].nunique()} answered, {best['taken'].sum():.2f} s in all; fastest on "
            + ", ".join(f"`{c}` {n}" for c, n in wins.items())
        )


if __name__ == "__main__":
    main()
