"""What users see of one real sweep, written by whichever code runs this module (issue 57's
before/after check): the sweep (``tests/benchmarks/scale_templates.json``, the `quick`
suite's 84 runs) is stored run by run through ``bench.store.insert_run``, then each export,
statistic, verdict and report table is written to OUT as the command line writes it.

``python tests/golden/outputs.py OUT`` with the code of a commit on ``sys.path`` first;
``tests/golden/before/`` holds what the code before the store's layout 2 wrote.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from bench import cli, store
from bench.analysis.sources import load_source
from bench.record import RunRecord

TEMPLATES = Path(__file__).resolve().parents[1] / "benchmarks" / "scale_templates.json"
COMMANDS = {
    "results.csv": ["results", "latest", "--format", "csv"],
    "results.json": ["results", "latest", "--format", "json"],
    "results-wide.csv": ["results", "latest", "--format", "csv", "--counters", "wide"],
    "results-long.csv": ["results", "latest", "--format", "csv", "--counters", "long"],
    "results.md": ["results", "latest", "--format", "markdown"],
    "results-instances.tex": ["results", "latest", "--format", "latex", "--table", "instances"],
    "results.tex": ["results", "latest", "--format", "latex"],
    "results-benchmark.json": ["results", "latest", "--format", "pytest-benchmark"],
    "stats.md": ["stats", "latest", "--format", "md"],
    "stats.json": ["stats", "latest", "--format", "json"],
    "compare.md": ["compare", "latest", "latest", "--format", "md"],
    "compare.json": ["compare", "latest", "latest", "--format", "json"],
}


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "store.sqlite"
    path.unlink(missing_ok=True)
    source = load_source(str(TEMPLATES), path)
    frame = source.runs.astype(object).where(source.runs.notna(), None)
    with store.connect(path) as conn:
        run_id = str(frame["run_id"].iloc[0])
        store.start_sweep(conn, run_id, {"suite": "quick", "plan": [], "started_at": "2026"})
        for env_id, env in source.environments.items():
            store.save_environment(conn, env_id, env)
        for row in frame.to_dict("records"):
            row["started_at"] = row["started_at"].isoformat()
            store.insert_run(conn, RunRecord.from_row(row))
        store.finish_sweep(conn, run_id, "2026")
    for name, argv in COMMANDS.items():
        text = io.StringIO()
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
            code = cli.main([*argv, "--store", str(path)])
        (out / name).write_text(f"exit {code}\n{text.getvalue()}")
    report = out / "report"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["report", "latest", "--store", str(path), "--out", str(report)])
    (out / "report.md").write_text((report / "report.md").read_text())
    path.unlink()


if __name__ == "__main__":
    write(Path(sys.argv[1]))
