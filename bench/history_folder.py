"""History that outlives a CI job: one small JSON file per commit and machine, as asv keeps.

A hosted runner starts every job with an empty store, so a sweep of ``main`` is exported
to ``DIR/MACHINE/COMMIT.json`` (MACHINE: CPU model and core count, which make times
comparable; the host name does not, CI containers get a new one each time) and DIR is
kept in a results branch the workflow pushes. A file holds the sweep's runs without their
solutions (the rows ``bench compare`` and ``bench history`` read), the environment, and
the commit's date and subject. A commit swept again on the same machine adds its runs to
the same file. ``load`` reads a folder into the columns ``store.load(...,
with_environment=True)`` gives, so history and publish read a folder like a store.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd

from bench import store
from bench.analysis.compare import machine
from bench.record import FIELD_NAMES, JSON_FIELDS
from models.errors import UsageError

FORMAT = "puzzle-bench-history/1"
#: the record fields an export keeps (solutions and error texts stay in the store)
DROPPED = ("solution", "error", "host")


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "unknown"


def commit_facts(commit: str, repo: Path) -> dict[str, str]:
    """The commit's date (ISO) and subject from git, empty where git cannot tell."""
    try:
        done = subprocess.run(
            ["git", "show", "-s", "--format=%cI%n%s", commit], cwd=repo, capture_output=True,
            text=True, timeout=30, check=False,
        )  # fmt: skip
    except OSError:
        return {"commit_date": "", "subject": ""}
    lines = done.stdout.splitlines() if done.returncode == 0 else []
    return {"commit_date": lines[0] if lines else "", "subject": lines[1] if len(lines) > 1 else ""}


def export(store_path: str | Path, run_id: str, folder: Path, repo: Path | None = None) -> Path:
    """Write (or extend) the file of the sweep's commit and machine; its path."""
    run_id = store.resolve_run_id(store_path, run_id)
    environment = store.environments(store_path, [run_id]).get(run_id, {})
    commit = str(environment.get("git_commit") or "")
    if not commit:
        raise UsageError(f"run {run_id} records no git commit: nothing to file it under")
    runs = store.load(store_path, run_id).drop(columns=list(DROPPED))
    rows = json.loads(runs.to_json(orient="records", date_format="iso"))
    path = folder / slug(machine(environment)) / f"{commit[:12]}.json"
    doc: dict[str, Any] = {"format": FORMAT, "commit": commit,
                           "dirty": bool(environment.get("git_dirty")),
                           **commit_facts(commit, repo or Path.cwd()),
                           "machine": machine(environment), "environments": {}, "runs": []}  # fmt: skip
    if path.is_file():
        doc = _read(path)
    doc["environments"][run_id] = environment
    doc["runs"] = [r for r in doc["runs"] if r.get("run_id") != run_id] + rows
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n")
    temporary.replace(path)  # a killed export never leaves half a file
    return path


def _read(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: not a history export: {err}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise UsageError(f"{path}: not a history export (format {FORMAT} expected)")
    return doc


def load(folder: Path) -> pd.DataFrame:
    """Every exported run under ``folder`` with ``env_*`` columns (git commit, dirty flag,
    commit date and subject, machine, calibration, load), as ``store.load`` gives them."""
    files = sorted(folder.rglob("*.json"))
    if not files:
        raise UsageError(f"{folder}: no history exports (*.json) here")
    frames = []
    for path in files:
        doc = _read(path)
        frame = pd.DataFrame(doc["runs"])
        if frame.empty:
            continue
        environments = doc.get("environments", {})
        for key in ("cpu_model", "cores", "calibration_s", "host", "load_avg"):
            frame[f"env_{key}"] = [environments.get(r, {}).get(key) for r in frame["run_id"]]
        frame = frame.assign(env_git_commit=doc["commit"], env_git_dirty=doc.get("dirty", False),
                             env_commit_date=doc.get("commit_date", ""),
                             env_subject=doc.get("subject", ""), env_machine=doc.get("machine", ""))  # fmt: skip
        frames.append(frame)
    runs = pd.concat(frames, ignore_index=True)
    for name in FIELD_NAMES:
        if name not in runs:
            runs[name] = None
    for name in JSON_FIELDS:
        runs[name] = [json.loads(v) if isinstance(v, str) else v for v in runs[name]]
    runs["started_at"] = pd.to_datetime(runs["started_at"], utc=True, format="ISO8601")
    return runs


#: what history and publish read of a store's runs: a case's key, its times, status and
#: counters (a hundred sweeps of a study are a million runs: no solution, hash or host)
HISTORY_FIELDS = (
    "run_id",
    "started_at",
    "suite",
    "case",
    "puzzle",
    "instance",
    "size",
    "cells",
    "encoding",
    "options",
    "solver",
    "repeat",
    "seed",
    "threads",
    "time_limit_s",
    "status",
    "build_s",
    "build_cpu_s",
    "solve_s",
    "wall_s",
    "cpu_s",
    "counters",
)


def load_any(source: str | Path, suite: str | None = None) -> pd.DataFrame:
    """Runs with their environment from a history folder or a results store."""
    path = Path(source)
    if path.is_dir():
        runs = load(path)
    elif path.is_file():
        runs = store.load(path, columns=HISTORY_FIELDS, with_environment=True)
    else:
        raise UsageError(f"{source}: no results store or history folder here yet")
    return runs[runs["suite"] == suite] if suite else runs
