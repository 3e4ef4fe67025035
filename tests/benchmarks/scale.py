"""The scale benchmark of issue 57: a realistic store of N runs, and the commands timed on it.

``build`` makes a store from a real sweep (``scale_templates.json``: the `quick` suite's 84
runs, every puzzle and encoding, solved, infeasible and timed-out, their counters and
solutions) by drawing its runs again as a large study would hold them: each template board
becomes ``--boards`` boards (``BOARD~k``), each run is repeated ``--repeats`` times with
seeds, its times and counters scattered (log-normal, sd 0.3) around the real ones, so
groups, medians and verdicts have real work to do. Solutions repeat per board, as they do.

``measure`` runs each command as a user types it, one process each, and records its wall
time and peak memory (``wait4``'s ``ru_maxrss`` of that process and its children):

    python -m tests.benchmarks.scale build --runs 100000 --out /tmp/s100k.sqlite
    python -m tests.benchmarks.scale build --runs 100000 --sweeps 100 --out /tmp/h100k.sqlite
    python -m tests.benchmarks.scale measure --store /tmp/s100k.sqlite \
        --history /tmp/h100k.sqlite --json scale-100k.json

``table`` turns the JSON files of several sizes into the Markdown table of docs/scale.md with
the fitted growth exponent of each command (log time against log runs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench import store
from bench.analysis.sources import load_source
from bench.record import RunRecord

TEMPLATES = Path(__file__).with_name("scale_templates.json")
TIMES = ("build_s", "build_cpu_s", "solve_s", "wall_s", "cpu_s", "overhead_s")
SCATTER = 0.3


def build(out: Path, runs: int, sweeps: int, boards: int, seed: int = 0) -> list[str]:
    """Write ``runs`` runs in ``sweeps`` sweeps into a new store; returns the run ids."""
    source = load_source(str(TEMPLATES), store.DEFAULT_STORE)
    templates = [
        RunRecord.from_row({**row, "started_at": row["started_at"].isoformat()})
        for row in source.runs.astype(object).where(source.runs.notna(), None).to_dict("records")
    ]
    environment = next(iter(source.environments.values()))
    rng = random.Random(seed)
    per_sweep = runs // sweeps
    repeats = max(1, per_sweep // (len(templates) * boards))
    run_ids = []
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    if out.exists():
        raise SystemExit(f"{out} exists: name a new file")
    with store.connect(out) as conn:
        for number in range(sweeps):
            run_id = f"20260101-{number:06d}-{rng.getrandbits(16):04x}"
            run_ids.append(run_id)
            plan = [
                {"case": r.case, "instance": f"{r.instance}~{board}", "repeat": repeat}
                for board in range(boards)
                for repeat in range(repeats)
                for r in templates
            ][:per_sweep]
            store.start_sweep(
                conn,
                run_id,
                {"suite": "quick", "plan": plan, "started_at": start.isoformat()},
            )
            del plan
            commit = f"{number:08x}" + "0" * 32
            store.save_environment(conn, run_id, {**environment, "git_commit": commit})
            drawn = _sweep(templates, run_id, per_sweep, boards, repeats, rng, start)
            while chunk := list(itertools.islice(drawn, 20_000)):
                store.insert_runs(conn, chunk)
            store.finish_sweep(conn, run_id, start.isoformat())
            start += timedelta(hours=1)
    return run_ids


def _sweep(
    templates: list[RunRecord],
    run_id: str,
    size: int,
    boards: int,
    repeats: int,
    rng: random.Random,
    start: datetime,
) -> Iterator[RunRecord]:
    made = 0
    for board in range(boards):
        for repeat in range(repeats):
            for template in templates:
                if made == size:
                    return
                yield _drawn(template, run_id, board, repeat, rng, start + made * _TICK)
                made += 1
    while made < size:  # a remainder: more repeats of the first boards
        yield _drawn(templates[made % len(templates)], run_id, 0, repeats + made, rng, start)
        made += 1


_TICK = timedelta(milliseconds=37)


def _drawn(
    template: RunRecord, run_id: str, board: int, repeat: int, rng: random.Random, at: datetime
) -> RunRecord:
    """One run drawn from a real one: its board, repeat and seed, times and counters
    scattered around the real figures."""
    factor = math.exp(rng.gauss(0.0, SCATTER))
    times = {
        name: None if getattr(template, name) is None else getattr(template, name) * factor
        for name in TIMES
    }
    if template.status == "timeout" and template.time_limit_s:
        times["solve_s"] = template.solve_s  # a timeout stays at its limit
    counters = {
        name: (round(value * factor) if isinstance(value, int) else value * factor)
        for name, value in (template.counters or {}).items()
    }
    return replace(
        template,
        run_id=run_id,
        instance=f"{template.instance}~{board}",
        repeat=repeat,
        seed=repeat % 3,
        started_at=at.isoformat(timespec="milliseconds"),
        counters=counters,
        options=dict(template.options),
        **times,
    )


#: each command as a user types it ({run} the sweep, {out} a fresh path)
COMMANDS: dict[str, list[str]] = {
    "report": ["report", "{run}", "--out", "{out}"],
    "stats": ["stats", "{run}", "--format", "md"],
    "compare": ["compare", "{run}", "{run}", "--format", "md"],
    "results parquet": ["results", "{run}", "--format", "parquet", "--out", "{out}.parquet"],
    "results csv": ["results", "{run}", "--format", "csv", "--out", "{out}.csv"],
    "results json": ["results", "{run}", "--format", "json", "--out", "{out}.json"],
    "results table": ["results", "{run}", "--format", "table", "--out", "{out}.txt"],
    "results markdown": ["results", "{run}", "--format", "markdown", "--out", "{out}.md"],
    "results latex": ["results", "{run}", "--format", "latex", "--out", "{out}.tex"],
}
HISTORY_COMMANDS: dict[str, list[str]] = {
    "history": ["history", "--format", "md", "--store", "{store}"],
    "publish": ["publish", "{store}", "--out", "{out}-site"],
}


def measure(
    store_path: Path, history: Path | None, only: list[str] | None, timeout_s: float
) -> dict:
    """Each command once, in its own process: wall seconds and peak memory (MB)."""
    run_id = store.resolve_run_id(store_path, "latest")
    runs = sum(store.sweep_states(store_path)[r].stored for r in [run_id])
    size = store_path.stat().st_size
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    doc = {
        "runs": runs,
        "store_bytes": size,
        "bytes_per_run": size / max(runs, 1),
        "commit": commit,
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": os.getloadavg()[0],
        "cores": len(os.sched_getaffinity(0)),
        "rows": [],
    }
    jobs = [(name, args, store_path) for name, args in COMMANDS.items()]
    if history is not None:
        jobs += [(name, args, history) for name, args in HISTORY_COMMANDS.items()]
    for name, args, path in jobs:
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as folder:
            argv = [a.format(run=run_id, out=f"{folder}/out", store=path) for a in args]
            if "{store}" not in args:
                argv += ["--store", str(path)]
            wall, peak, code, err = _timed(argv, timeout_s)
        doc["rows"].append(
            {
                "command": name,
                "wall_s": wall,
                "peak_mb": peak,
                "exit": code,
                "load_average": os.getloadavg()[0],
                "stderr": err,
            }
        )
        print(f"{name}: {wall:.1f} s, {peak:.0f} MB, exit {code}", file=sys.stderr)
    return doc


def _timed(argv: list[str], timeout_s: float) -> tuple[float, float, int, str]:
    """Wall seconds, peak MB, exit code (-9: stopped at ``timeout_s``) and stderr's end."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "bench", *argv], stdout=subprocess.DEVNULL, stderr=err
        )
        timer = threading.Timer(timeout_s, child.kill)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    return time.perf_counter() - started, usage.ru_maxrss / 1024, child.returncode, text[-500:]


def table(paths: list[Path]) -> str:
    """The Markdown table of several measurements, with each command's fitted growth."""
    docs = sorted((json.loads(p.read_text()) for p in paths), key=lambda d: d["runs"])
    sizes = [d["runs"] for d in docs]
    head = "| command | " + " | ".join(f"{n:,} runs: s / MB" for n in sizes) + " | growth |"
    lines = [head, "|---|" + "---|" * len(sizes) + "---|"]
    names = list(dict.fromkeys(r["command"] for d in docs for r in d["rows"]))
    for name in names:
        cells, points = [], []
        for doc in docs:
            row = next((r for r in doc["rows"] if r["command"] == name), None)
            if row is None:
                cells.append("not run")
            elif row["exit"] == -9:
                cells.append(f"stopped at {row['wall_s']:.0f} s")
            else:
                cells.append(f"{row['wall_s']:.1f} / {row['peak_mb']:.0f}")
            if row is not None and row["exit"] == 0:
                points.append((math.log(doc["runs"]), math.log(row["wall_s"])))
        largest = next((r for r in docs[-1]["rows"] if r["command"] == name), None)
        growth = _slope(points) if largest is not None and largest["exit"] == 0 else "-"
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | {growth} |")
    per_run = " | ".join(f"{d['bytes_per_run']:.0f}" for d in docs)
    lines.append(f"| store bytes per run | {per_run} | |")
    return "\n".join(lines) + "\n"


def _slope(points: list[tuple[float, float]]) -> str:
    """The exponent of time against runs between the two largest sizes measured."""
    if len(points) < 2:
        return "-"
    (x0, y0), (x1, y1) = points[-2], points[-1]
    return f"{(y1 - y0) / (x1 - x0):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.scale")
    sub = parser.add_subparsers(dest="what", required=True)
    b = sub.add_parser("build")
    b.add_argument("--runs", type=int, required=True)
    b.add_argument("--sweeps", type=int, default=1)
    b.add_argument("--boards", type=int, default=40, help="boards drawn per template board")
    b.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("measure")
    m.add_argument("--store", type=Path, required=True)
    m.add_argument("--history", type=Path)
    m.add_argument("--only", nargs="*")
    m.add_argument("--json", type=Path, required=True)
    m.add_argument("--timeout", type=float, default=900.0, help="seconds a command may take")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.what == "build":
        started = time.perf_counter()
        ids = build(args.out, args.runs, args.sweeps, args.boards)
        print(f"{args.out}: {args.runs} runs in {len(ids)} sweep(s), "
              f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    elif args.what == "measure":
        doc = measure(args.store, args.history, args.only, args.timeout)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    else:
        sys.stdout.write(table(args.files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
