"""Turn what a user names on the command line into runs: a run id, a baseline name, or a file.

``compare`` accepts run ids (or ``latest``) from the store, baseline names saved under
``results/baseline/``, and exported result files (CSV, Parquet, JSON), so a baseline can
be committed as a file and compared with a fresh run anywhere.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bench import run_numbers, store
from bench.outputs import write_output
from bench.record import FIELD_NAMES
from models.errors import UsageError

BASELINE_DIR = Path("results/baseline")
BASELINE_FORMAT = "puzzle-bench-baseline/1"


@dataclass
class Runs:
    label: str
    runs: pd.DataFrame
    environments: dict[str, dict[str, Any]]
    #: '' or one line saying the sweep did not finish (``store.SweepState.problem``)
    note: str = ""


#: what statistics, tables and charts read of a run: not its counters (a million runs'
#: counters are a gigabyte of dicts) nor its solution
ANALYSIS_FIELDS: tuple[str, ...] = tuple(
    f for f in FIELD_NAMES if f not in ("counters", "solution")
)
#: the report draws a few solved boards too (each distinct solution is read once)
REPORT_FIELDS: tuple[str, ...] = (*ANALYSIS_FIELDS, "solution")
#: compare judges by counters; it never reads a solution
COMPARE_FIELDS: tuple[str, ...] = tuple(f for f in FIELD_NAMES if f != "solution")


def load_source(text: str, store_path: str | Path, columns: tuple[str, ...] | None = None) -> Runs:
    """A file path, then a baseline name, then a run id: the first that exists wins.
    ``columns``: the run fields to read from a store (None: every one)."""
    path = Path(text)
    if path.is_file():
        return _from_file(path)
    named = BASELINE_DIR / f"{text}.json"
    if named.is_file():
        return _from_file(named)
    run_id = store.resolve_run_id(store_path, text)
    state = store.sweep_states(store_path)[run_id]
    return Runs(
        run_id,
        store.load(store_path, run_id, columns=columns),
        store.environments(store_path, [run_id]),
        state.problem(),
    )


def load_runs(
    texts: list[str],
    store_path: str | Path,
    puzzle: str | None = None,
    columns: tuple[str, ...] | None = None,
) -> tuple[list[Runs], pd.DataFrame]:
    """The named sources and their runs merged, each with its runs not run (``with_not_run``);
    only ``puzzle``'s when given, which is bad input when no run has it."""
    sources = [load_source(text, store_path, columns) for text in texts]
    for source in sources:  # a sweep that ended with no run, or did not finish, says so
        if source.runs.empty:
            raise UsageError(source.note or f"{source.label}: holds no runs")
        if source.note:
            print(f"note: {source.note}", file=sys.stderr)
    runs = pd.concat([with_not_run(s, store_path) for s in sources], ignore_index=True)
    if puzzle and puzzle not in set(runs["puzzle"]):
        known = ", ".join(sorted(set(runs["puzzle"])))
        raise UsageError(f"no runs of puzzle {puzzle!r} here (puzzles: {known})")
    return sources, runs[runs["puzzle"] == puzzle] if puzzle else runs


def with_not_run(source: Runs, store_path: str | Path) -> pd.DataFrame:
    """The runs plus, for a run id, the runs its sweep did not run after a timeout on a
    smaller board (``bench.skips``), as ``timeout`` rows at their limit with no times and
    ``not_run`` set: the stop rule assumes they would have timed out, so a PAR-2 or a
    solved count over the planned instances must count them, never leave them out."""
    from bench import skips  # the store's table of runs not run

    runs = source.runs.assign(not_run=False)
    skipped = skips.load(store_path, [source.label])
    if skipped.empty:
        return runs
    solvers = dict(zip(runs["encoding"], runs["solver"], strict=True)) if len(runs) else {}
    if "counters" in runs:
        skipped = skipped.assign(counters=[{} for _ in range(len(skipped))])
    extra = skipped.drop(columns="reason").assign(
        solver=[solvers.get(e, "") for e in skipped["encoding"]],
        status="timeout",
        verified=False,
        error=["not run: " + r for r in skipped["reason"]],
        not_run=True,
    )
    return pd.concat([runs, extra], ignore_index=True)


def _from_file(path: Path) -> Runs:
    environments: dict[str, dict] = {}
    rows: Any = None
    try:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif path.suffix == ".csv":
            frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        else:
            doc = json.loads(path.read_text())
            rows = doc.get("runs", []) if isinstance(doc, dict) else doc
            environments = doc.get("environments", {}) if isinstance(doc, dict) else {}
            frame = pd.DataFrame(rows)
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: cannot read results: {err}") from None
    missing = [f for f in ("puzzle", "instance", "encoding", "status") if f not in frame]
    if missing:
        raise UsageError(f"{path}: not a results file (no column {', '.join(missing)})")
    tabular = path.suffix in (".parquet", ".csv")  # NaN is how these write a missing value
    run_numbers.check_rows(run_numbers.as_rows(frame) if tabular else rows, path, tabular)
    return Runs(path.stem, store.tidy(frame), environments)


def save_baseline(runs: Runs, name: str, reason: str = "") -> Path:
    """Write a committed baseline: the runs (solutions left out), their environments and
    why the baseline was (re)made."""
    frame = runs.runs.assign(solution=None)
    frame["started_at"] = [None if pd.isna(t) else t.isoformat() for t in frame["started_at"]]
    doc = {
        "format": BASELINE_FORMAT,
        "name": name,
        "reason": reason,
        "source_run": runs.label,
        "environments": runs.environments,
        "runs": json.loads(frame.to_json(orient="records")),
    }
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    return write_output(BASELINE_DIR / f"{name}.json", lambda tmp: tmp.write_text(text))


def calibration(runs: Runs) -> float | None:
    """The median calibration figure when every run came from one host; else None."""
    hosts = {e.get("host") for e in runs.environments.values()}
    figures = [e.get("calibration_s") for e in runs.environments.values() if e.get("calibration_s")]
    if len(hosts) != 1 or not figures:
        return None
    return float(sorted(figures)[len(figures) // 2])
