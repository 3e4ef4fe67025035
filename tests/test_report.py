"""Reports, baselines and comparisons on a real store filled with real (tiny) runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import store
from bench.measure import RunTask, run_isolated
from bench.record import RunRecord
from models import registry
from tests.conftest import run_cli

SPECS = ["gen:knights_tour:5x5:0", "gen:knights_tour:6x6:0", "gen:knights_tour:5x6:0"]
ENCODINGS = ["circuit-cpsat", "pbeq-z3"]


def _fill(path: Path, run_id: str, repeats: int = 2) -> None:
    with store.connect(path) as conn:
        store.save_environment(conn, run_id, {"host": "test-host", "calibration_s": 0.1})
        for spec in SPECS:
            size = registry.load_instance(spec).size
            for encoding in ENCODINGS:
                for repeat in range(repeats):
                    m = run_isolated(RunTask("knights_tour", spec, encoding, time_limit_s=20))
                    record = RunRecord(
                        run_id=run_id, started_at=f"2026-11-30T00:00:{repeat:02d}", suite="test",
                        case="tiny", puzzle="knights_tour", instance=spec, size=size,
                        encoding=encoding, repeat=repeat, time_limit_s=20, status=m.status,
                        verified=m.verified, build_s=m.build_s, solve_s=m.solve_s, wall_s=m.wall_s,
                        cpu_s=m.cpu_s, peak_rss_mb=m.peak_rss_mb, n_vars=m.n_vars,
                        n_constraints=m.n_constraints, counters=m.counters, solution=m.solution,
                    )  # fmt: skip
                    store.insert_run(conn, record)


@pytest.fixture(scope="module")
def filled_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "bench.sqlite"
    _fill(path, "base")
    return path


def test_report_writes_markdown_html_and_charts(filled_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = run_cli("report", "base", "--store", str(filled_store), "--out", str(out))
    assert result.returncode == 0, result.stderr
    markdown = (out / "report.md").read_text()
    assert "virtual best" in markdown and "circuit-cpsat" in markdown
    assert "knights_tour: paired comparison" in markdown and "Wilcoxon" in markdown
    for name in ("knights_tour-cactus", "knights_tour-scaling"):
        assert (out / f"{name}.png").stat().st_size > 10_000
        assert (out / f"{name}.svg").stat().st_size > 10_000
    assert list(out.glob("knights_tour-scatter-*.png"))
    assert list(out.glob("knights_tour-board-*.png"))
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 4  # self-contained


def test_baseline_then_compare_same_runs_passes(
    filled_store: Path, tmp_path: Path, monkeypatch
) -> None:
    result = run_cli("baseline", "save", "base", "--name", "t", "--store", str(filled_store))
    assert result.returncode == 0, result.stderr
    saved = Path("results/baseline/t.json")
    try:
        doc = json.loads(saved.read_text())
        assert doc["format"].startswith("puzzle-bench-baseline")
        assert len(doc["runs"]) == len(SPECS) * len(ENCODINGS) * 2
        same = run_cli("compare", "t", "base", "--store", str(filled_store))
        assert same.returncode == 0, same.stdout + same.stderr
        # the same runs with every counter doubled: a deterministic regression
        for row in doc["runs"]:
            row["counters"] = {k: v * 2 for k, v in (row["counters"] or {}).items()}
        slower = tmp_path / "slower.json"
        slower.write_text(json.dumps(doc))
        worse = run_cli("compare", "t", str(slower), "--store", str(filled_store))
        assert worse.returncode == 1, worse.stdout + worse.stderr
        assert "regression" in worse.stdout
    finally:
        saved.unlink(missing_ok=True)


def test_compare_unknown_run_is_usage_error(filled_store: Path) -> None:
    result = run_cli("compare", "nope", "base", "--store", str(filled_store))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_analysis_never_imports_a_solver() -> None:
    """Every module of bench.analysis, and the commands that only read results."""
    code = (
        "import importlib, pkgutil, sys, bench.analysis;"
        "[importlib.import_module('bench.analysis.' + m.name)"
        " for m in pkgutil.iter_modules(bench.analysis.__path__)];"
        "import bench.commands.report, bench.commands.compare, bench.commands.results, bench.commands.stats;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'ortools','z3','pulp','pysat','highspy'}))"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stats_command_prints_pairs_in_every_format(filled_store: Path) -> None:
    table = run_cli("stats", "base", "--store", str(filled_store))
    assert table.returncode == 0, table.stderr
    assert "paired comparison" in table.stdout and "Wilcoxon" in table.stdout
    md = run_cli("stats", "base", "--store", str(filled_store), "--format", "md")
    assert md.stdout.startswith("| puzzle | A | B |")
    doc = json.loads(run_cli("stats", "--store", str(filled_store), "--format", "json").stdout)
    (pair,) = doc["pairs"]
    assert {pair["a"], pair["b"]} == set(ENCODINGS) and pair["common"] == len(SPECS)
    bad = run_cli("stats", "base", "--store", str(filled_store), "--puzzle", "sudoku")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
