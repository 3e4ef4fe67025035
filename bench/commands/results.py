"""Show or export the stored runs of a sweep: table, CSV, Parquet, JSON or pytest-benchmark JSON,
or a summary or per-instance table for a paper (LaTeX booktabs or Markdown).

Every format carries every RunRecord field, in the shape ``bench.load`` gives (the terminal
table shows the main ones unless --wide or --out is given). CSV and Parquet hold options,
counters and solution as JSON text, JSON as objects, with the sweep's environments.
``--counters long`` exports the counters as a long table instead (run key, solver, counter,
value: one row per run and counter); ``--counters wide`` adds a counter_NAME column per
counter seen. The pytest-benchmark form groups repeats of one configuration
into one benchmark (time = build + solve of answered runs), so `pytest-benchmark
compare` can read the harness's results.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from bench import store
from bench.analysis.formats import cell, latex_table, markdown_table, missing
from bench.analysis.names import rich_text
from bench.analysis.stats import ANSWERED, options_text, run_time
from bench.analysis.tables import per_instance, summary, with_config
from bench.outputs import check_output, write_output
from models.errors import UnknownRunError, UsageError

FORMATS = ("table", "csv", "parquet", "json", "pytest-benchmark", "latex", "markdown")
TABLES = ("summary", "instances")
RESULTS_FORMAT = "puzzle-bench-results/1"
TERMINAL_COLUMNS = ("case", "puzzle", "instance", "size", "encoding", "seed", "repeat", "status",
                    "build_s", "solve_s", "wall_s", "cpu_s", "peak_rss_mb", "n_vars")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", nargs="?", default="latest", help="a run id, or latest (default)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--wide", action="store_true", help="table: every field")
    parser.add_argument(
        "--table",
        choices=TABLES,
        default="summary",
        help="latex and markdown: per configuration (solved, PAR-2, median) or per instance",
    )
    parser.add_argument(
        "--counters",
        choices=("json", "long", "wide"),
        default="json",
        help="csv, parquet, json: counters as the runs' JSON column (default), as a long"
        " table (one row per run and counter) instead of the runs, or also as one"
        " counter_NAME column per counter",
    )
    parser.add_argument("--store", default=str(store.DEFAULT_STORE), metavar="PATH")


def main(args: argparse.Namespace) -> int:
    if not Path(args.store).is_file():
        raise UnknownRunError(f"{args.store}: no results store here (run a suite first)")
    run_id = store.resolve_run_id(args.store, args.run_id)
    if args.format == "parquet" and not args.out:
        raise UsageError("--format parquet needs --out FILE")
    if args.out:
        check_output(args.out)
    frame = store.load(args.store, [run_id])
    envs = store.environments(args.store, [run_id])
    if args.format == "table":
        wide = args.wide or bool(args.out)
        return _emit(table_chunks(frame, run_id, wide=wide), args.out, len(frame))
    if args.format == "json":
        return _emit(results_json_text(frame, envs, args.counters), args.out, len(frame))
    if args.format == "csv":
        text = flat(frame, args.counters).to_csv(index=False)
    elif args.format in ("latex", "markdown"):
        text = paper_table(frame, run_id, args.format, args.table)
    elif args.format == "pytest-benchmark":
        text = json.dumps(pytest_benchmark_json(frame, envs), indent=1, default=_plain) + "\n"
    if args.format == "parquet":
        write_output(args.out, lambda tmp: flat(frame, args.counters).to_parquet(tmp, index=False))
    elif args.out:
        write_output(args.out, lambda tmp: tmp.write_text(text))
    else:
        sys.stdout.write(text)
        return 0
    print(f"wrote {len(frame)} runs to {args.out}", file=sys.stderr)
    return 0


def paper_table(frame: pd.DataFrame, run_id: str, fmt: str, which: str) -> str:
    """The report's summary (per puzzle x configuration, with the virtual best) or its
    per-instance table, as a booktabs LaTeX table or a Markdown table."""
    instances = per_instance(with_config(frame))
    if which == "summary":
        table = summary(instances).rename(columns={"par2_s": "PAR-2 [s]", "median_s": "median [s]"})
        caption = f"Instances solved, PAR-2 and median time per configuration (run {run_id})."
    else:
        table = instances[
            ["puzzle", "instance", "size", "config", "status", "time_s", "q1_s", "q3_s", "samples"]
        ].rename(columns={"time_s": "median [s]", "q1_s": "q1 [s]", "q3_s": "q3 [s]"})
        caption = f"Median build + solve time per instance and configuration (run {run_id})."
    if fmt == "latex":
        return latex_table(table, caption, f"tab:{which}")
    return markdown_table(table) + "\n"


def flat(frame: pd.DataFrame, counters: str = "json") -> pd.DataFrame:
    """What CSV and Parquet hold: the runs as ``bench.load`` gives them, JSON fields as
    text; ``counters="wide"`` adds a counter_NAME column per counter, ``"long"`` gives the
    counters' long table instead of the runs."""
    if counters == "long":
        return store.counters_long(frame)
    return store.as_json_text(store.flatten(frame) if counters == "wide" else frame)


def results_json_text(
    frame: pd.DataFrame, environments: dict[str, dict], counters: str = "json"
) -> Iterator[str]:
    """The runs (``"runs"``) or, with ``counters="long"``, the counters' long table
    (``"counters"``), with the sweep's environments: the text ``json.dumps(..., indent=1)``
    gives of that document, made a chunk of runs at a time (a million runs' JSON is never
    one string, nor a million dicts at once)."""
    data = store.counters_long(frame) if counters == "long" else frame
    if counters == "wide":
        data = store.flatten(frame)
    head = {
        "format": RESULTS_FORMAT,
        "run_ids": sorted(set(frame["run_id"])),
        "environments": environments,
    }
    name = "counters" if counters == "long" else "runs"
    text = json.dumps(head, indent=1, default=_plain)
    if data.empty:
        yield text[:-2] + f',\n "{name}": []\n}}\n'
        return
    yield text[:-2] + f',\n "{name}": [\n'
    columns = list(data.columns)
    for start in range(0, len(data), JSON_CHUNK_ROWS):
        chunk = data.iloc[start : start + JSON_CHUNK_ROWS]
        rows = [
            {c: _plain(v) for c, v in zip(columns, values, strict=True)}
            for values in chunk.itertuples(index=False, name=None)
        ]
        items = (
            "  " + json.dumps(row, indent=1, default=_plain).replace("\n", "\n  ") for row in rows
        )
        yield ("" if start == 0 else ",\n") + ",\n".join(items)
    yield "\n ]\n}\n"


#: runs turned into JSON text at a time by ``results_json_text``
JSON_CHUNK_ROWS = 20_000


def _emit(chunks: Iterable[str], out: str | None, runs: int) -> int:
    """Text made a chunk at a time, to stdout or (atomically) to ``out``."""
    if not out:
        sys.stdout.writelines(chunks)
        return 0

    def write(path: Path) -> None:
        with open(path, "w") as file:
            file.writelines(chunks)

    write_output(out, write)
    print(f"wrote {runs} runs to {out}", file=sys.stderr)
    return 0


#: beyond this many runs the table is plain aligned columns: rich measures every cell of
#: every row to draw its boxes, which takes minutes for a study of a hundred thousand runs
BOXED_ROWS = 1_000


def table_chunks(frame: pd.DataFrame, run_id: str, wide: bool) -> Iterator[str]:
    """The table's text: boxed by rich up to BOXED_ROWS runs, else plain aligned columns
    made a chunk of rows at a time."""
    data = flat(frame) if wide else frame
    columns = list(data.columns) if wide else list(TERMINAL_COLUMNS)
    if len(data) > BOXED_ROWS:
        return plain_table(data, columns, f"run {run_id}: {len(frame)} runs")
    return iter([table_text(frame, run_id, wide)])


def table_text(frame: pd.DataFrame, run_id: str, wide: bool) -> str:
    data = flat(frame) if wide else frame
    columns = list(data.columns) if wide else list(TERMINAL_COLUMNS)
    table = Table(title=f"run {run_id}: {len(frame)} runs")
    for name in columns:
        table.add_column(name, overflow="fold")
    for _, row in data.iterrows():
        table.add_row(*(rich_text(_cell(row[c])) for c in columns))  # names are not markup
    width = max(120, 14 * len(columns)) if wide else None
    if width is None and not Console().is_terminal:
        width = 200  # a pipe or a log: do not squeeze the columns into 80 characters
    console = Console(width=width, record=True)
    with console.capture() as capture:
        console.print(table)
    return capture.get()


def pytest_benchmark_json(frame: pd.DataFrame, environments: dict[str, dict]) -> dict[str, Any]:
    """The JSON that pytest-benchmark saves (machine_info, commit_info, benchmarks, ...)."""
    env = next(iter(environments.values()), {})
    data = frame.assign(
        time_s=run_time(frame) if len(frame) else [],
        options_text=[options_text(o) for o in frame["options"]],
    )
    benchmarks = []
    keys = ["case", "puzzle", "instance", "encoding", "options_text", "seed", "threads"]
    for values, group in data.groupby(keys, sort=True):
        case, puzzle, instance, encoding, options, seed, threads = values
        times = sorted(float(t) for t in group["time_s"] if not missing(t))
        if not times:
            continue  # no answered repeat: nothing to time (statuses go in the summary)
        label = encoding + ("" if options == "{}" else options)
        name = f"{puzzle}[{instance}-{label}-seed{seed}-t{threads}]"
        benchmarks.append(
            {
                "group": f"{case}:{puzzle}",
                "name": name,
                "fullname": f"{case}::{name}",
                "params": {"instance": instance, "encoding": encoding, "seed": int(seed)},
                "param": f"{instance}-{label}-seed{seed}-t{threads}",
                "extra_info": {
                    "time": "build_s + solve_s of answered runs",
                    "statuses": sorted(set(group["status"])),
                    "answered": int(group["status"].isin(ANSWERED).sum()),
                    "runs": len(group),
                    "solver": group["solver"].iloc[0],
                    "solver_version": group["solver_version"].iloc[0],
                    "encoding_hash": group["encoding_hash"].iloc[0],
                    "options": json.loads(options),
                    "threads": int(threads),
                },
                "options": {
                    "timer": "time.perf_counter",
                    "disable_gc": False,
                    "warmup": False,
                    "min_rounds": 1,
                    "max_time": 0,
                    "min_time": 0,
                },
                "stats": _stats(times),
            }
        )
    return {
        "machine_info": {
            "node": env.get("host", ""),
            "processor": env.get("cpu_model", ""),
            "machine": env.get("platform", ""),
            "python_implementation": env.get("python_implementation", ""),
            "python_version": env.get("python", ""),
            "system": env.get("os", ""),
            "cpu": {"brand_raw": env.get("cpu_model", ""), "count": env.get("cores")},
            "calibration_s": env.get("calibration_s"),
        },
        "commit_info": {
            "id": env.get("git_commit", ""),
            "dirty": bool(env.get("git_dirty", False)),
            "project": "puzzle-bench",
            "branch": env.get("git_branch", ""),
        },
        "benchmarks": benchmarks,
        "datetime": datetime.now(timezone.utc).isoformat(),
        "version": "5.1.0",
    }


def _stats(times: list[float]) -> dict[str, Any]:
    """pytest-benchmark's Stats fields over one configuration's repeats."""
    series = pd.Series(times)
    n = len(times)
    mean = float(series.mean())
    stddev = float(series.std()) if n > 1 else 0.0
    q1, q3 = float(series.quantile(0.25)), float(series.quantile(0.75))
    iqr = q3 - q1
    low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = [t for t in times if low <= t <= high] or times
    iqr_out = sum(1 for t in times if t < low or t > high)
    std_out = sum(1 for t in times if abs(t - mean) > stddev) if n > 1 else 0
    return {
        "min": times[0],
        "max": times[-1],
        "mean": mean,
        "stddev": stddev,
        "rounds": n,
        "median": float(series.median()),
        "iqr": iqr,
        "q1": q1,
        "q3": q3,
        "iqr_outliers": iqr_out,
        "stddev_outliers": std_out,
        "outliers": f"{std_out};{iqr_out}",
        "ld15iqr": min(inside),
        "hd15iqr": max(inside),
        "ops": (1.0 / mean) if mean > 0 else 0.0,
        "total": float(sum(times)),
        "data": times,
        "iterations": 1,
    }


def _plain(value: Any) -> Any:
    """JSON-safe values: numpy scalars to Python, NaN and NA to null, datetimes to ISO text."""
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if hasattr(value, "item") and not isinstance(value, (dict, list, str)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def plain_table(data: pd.DataFrame, columns: list[str], title: str) -> Iterator[str]:
    """The table as aligned plain columns (two spaces apart), the cells as the boxed table
    writes them; a chunk of rows at a time, so only one chunk's cells are ever text."""
    widths = {c: len(c) for c in columns}
    for start in range(0, len(data), 50_000):
        chunk = data.iloc[start : start + 50_000]
        for c in columns:
            widths[c] = max(widths[c], max(len(_cell(v)) for v in chunk[c]))
    yield title + "\n" + "  ".join(c.ljust(widths[c]) for c in columns).rstrip() + "\n"
    for start in range(0, len(data), 50_000):
        chunk = data.iloc[start : start + 50_000]
        cells = [[_cell(v).ljust(widths[c]) for v in chunk[c]] for c in columns]
        yield "".join("  ".join(row).rstrip() + "\n" for row in zip(*cells, strict=True))


def _cell(value: Any) -> str:
    return "-" if missing(value) else cell(value, 4)
