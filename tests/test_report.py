"""Reports, baselines and comparisons on a real store filled with real (tiny) runs."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bench import store
from bench.measure import run_isolated
from bench.record import RunRecord
from bench.task import RunTask
from models import registry
from tests.conftest import main_cli

# 5x5 has no closed tour; 3x10 and 5x6 share 30 cells (one tick, both named); four solved sizes
# let the scaling fit run
SPECS = ["gen:knights_tour:5x5:0", "gen:knights_tour:6x6:0", "gen:knights_tour:5x6:0",
         "gen:knights_tour:3x10:0", "gen:knights_tour:6x8:0"]  # fmt: skip
ENCODINGS = ["circuit-cpsat", "pbeq-z3"]


def _fill(path: Path, run_id: str, repeats: int = 2) -> None:
    with store.connect(path) as conn:
        store.save_environment(conn, run_id, {"host": "test-host", "calibration_s": 0.1})
        for spec in SPECS:
            size = registry.load_instance(spec).size
            for encoding in ENCODINGS:
                for repeat in range(repeats):
                    task = RunTask("knights_tour", spec, encoding, time_limit_s=20)
                    record = RunRecord.assemble(
                        task, run_isolated(task), run_id=run_id, suite="test", case="tiny",
                        started_at=f"2026-11-30T00:00:{repeat:02d}", size=size, repeat=repeat,
                        solver=registry.get_encoding("knights_tour", encoding).solver,
                    )  # fmt: skip
                    store.insert_run(conn, record)


@pytest.fixture(scope="module")
def filled_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "bench.sqlite"
    _fill(path, "base")
    return path


def test_report_writes_markdown_html_and_charts(filled_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = main_cli("report", "base", "--store", str(filled_store), "--out", str(out))
    assert result.returncode == 0, result.stderr
    markdown = (out / "report.md").read_text()
    assert "virtual best" in markdown and "circuit-cpsat" in markdown
    assert "knights_tour: paired comparison" in markdown and "Wilcoxon" in markdown
    for name in ("knights_tour-cactus", "knights_tour-scaling"):
        assert (out / f"{name}.png").stat().st_size > 10_000
    assert not list(out.glob("*.svg"))  # PNG only unless asked
    assert list(out.glob("knights_tour-scatter-*.png"))
    assert list(out.glob("knights_tour-board-*.png"))
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 4  # self-contained
    # Markdown rendered, not shown raw: code spans, tables and lists are HTML
    assert "<code>base</code>" in html and "<table>" in html and "<li>" in html
    assert "`" not in html.split("<body>")[1]
    assert "Main comparison: 2 configurations on the 5 instances they all ran" in markdown
    sizes = markdown.split("knights_tour: model sizes")[1].split("##")[0]
    assert ".0 |" not in sizes and "| circuit-cpsat |" in sizes  # counts as whole numbers
    svg_out = tmp_path / "with-svg"
    result = main_cli("report", "base", "--store", str(filled_store), "--out", str(svg_out),
                      "--svg", "--jobs", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (svg_out / "knights_tour-cactus.svg").stat().st_size > 10_000
    assert main_cli("report", "base", "--store", str(filled_store), "--jobs", "0").returncode == 2


def test_baseline_then_compare_same_runs_passes(
    filled_store: Path, tmp_path: Path, monkeypatch
) -> None:
    result = main_cli("baseline", "save", "base", "--name", "t", "--store", str(filled_store))
    assert result.returncode == 0, result.stderr
    saved = Path("results/baseline/t.json")
    try:
        doc = json.loads(saved.read_text())
        assert doc["format"].startswith("puzzle-bench-baseline")
        assert len(doc["runs"]) == len(SPECS) * len(ENCODINGS) * 2
        same = main_cli("compare", "t", "base", "--store", str(filled_store))
        assert same.returncode == 0, same.stdout + same.stderr
        # the same runs with every counter doubled: a deterministic regression
        for row in doc["runs"]:
            row["counters"] = {k: v * 2 for k, v in (row["counters"] or {}).items()}
        slower = tmp_path / "slower.json"
        slower.write_text(json.dumps(doc))
        worse = main_cli("compare", "t", str(slower), "--store", str(filled_store))
        assert worse.returncode == 1, worse.stdout + worse.stderr
        assert "regression" in worse.stdout
    finally:
        saved.unlink(missing_ok=True)


def test_compare_unknown_run_is_usage_error(filled_store: Path) -> None:
    result = main_cli("compare", "nope", "base", "--store", str(filled_store))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_analysis_never_imports_a_solver() -> None:
    """Every module of bench.analysis, and the commands that only read results."""
    code = (
        "import importlib, pkgutil, sys, bench.analysis;"
        "[importlib.import_module('bench.analysis.' + m.name)"
        " for m in pkgutil.iter_modules(bench.analysis.__path__)];"
        "import bench.commands.report, bench.commands.compare, bench.commands.results, bench.commands.stats, bench.commands.plot;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'ortools','z3','pulp','pysat','highspy'}))"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stats_command_prints_pairs_in_every_format(filled_store: Path, capsys) -> None:
    from bench.cli import main

    base = ["stats", "base", "--store", str(filled_store)]
    assert main(base) == 0
    table = capsys.readouterr().out
    assert "paired comparison" in table and "Wilcoxon" in table
    assert main([*base, "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("| puzzle | A | B |")
    assert main(["stats", "--store", str(filled_store), "--format", "json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert {pair["a"], pair["b"]} == set(ENCODINGS) and pair["common"] == len(SPECS)
    assert main([*base, "--puzzle", "sudoku"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_plot_renders_every_kind_non_blank_with_embedded_fonts(
    filled_store: Path, tmp_path: Path, capsys
) -> None:
    """Every kind of figure as a non-blank one-column PNG, in-process; one PDF with its fonts
    embedded and one SVG with its text (the save path is the same for every kind)."""
    import shutil
    import subprocess

    import matplotlib.image

    from bench.cli import main

    def plot(kind: str, out: Path, *extra: str) -> None:
        args = ["plot", kind, "base", "--store", str(filled_store), "--out", str(out), *extra]
        assert main(args) == 0, kind

    for kind in ("cactus", "scatter", "scaling", "par2", "board"):
        plot(kind, tmp_path / f"{kind}.png", "--width", "single")
        pixels = matplotlib.image.imread(tmp_path / f"{kind}.png")
        rgba = np.ascontiguousarray((pixels * 255).astype(np.uint8)).view(np.uint32)
        assert len(np.unique(rgba)) > 50, f"{kind}: blank-looking PNG"  # distinct colours
        assert pixels.shape[1] == pytest.approx(3.3 * 300, abs=3)  # one column at 300 dpi
    pdf = tmp_path / "scatter.pdf"
    plot("scatter", pdf, "--width", "double")
    data = pdf.read_bytes()
    assert b"/FontFile2" in data and b"/Type3" not in data, "fonts not embedded"
    if shutil.which("pdffonts"):
        rows = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True)
        fonts = rows.stdout.splitlines()[2:]
        assert fonts and all(" yes " in row for row in fonts), rows.stdout
    svg = tmp_path / "scaling.svg"
    assert main(["plot", "scaling", "base", "--store", str(filled_store), "--out", str(svg)]) == 0
    assert "t ~ n^" in svg.read_text() or "x2 every" in svg.read_text()  # the fit's formula
    capsys.readouterr()
    assert main(["plot", "cactus", "base", "--store", str(filled_store), "--out", "x.gif"]) == 2


def test_fits_on_a_real_sweep(filled_store: Path) -> None:
    from bench.analysis import scaling
    from bench.analysis.tables import per_instance, with_config

    instances = per_instance(with_config(store.load(filled_store, ["base"])))
    fits = scaling.fits(instances, "knights_tour", resamples=20)
    assert set(fits) == set(ENCODINGS)  # three cell counts solved by each
    for fit in fits.values():
        # the fitted line, not its reading: on a busy machine, millisecond times of three
        # small boards may not grow with size, and a falling exponential doubles never (inf)
        assert math.isfinite(fit.a) and math.isfinite(fit.slope) and math.isfinite(fit.sigma)
        assert fit.solved == len(SPECS) - 1 and fit.censored == 0


def test_results_as_latex_and_markdown_tables(filled_store: Path, capsys) -> None:
    from bench.cli import main

    base = ["results", "base", "--store", str(filled_store)]
    assert main([*base, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"knights\_tour" in latex
    assert "virtual best" in latex and latex.count(r"\\") == 1 + len(ENCODINGS) + 1
    assert main([*base, "--format", "markdown", "--table", "instances"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    # brackets escaped: a name's `[l](x)` never becomes a link (tests/test_names.py)
    assert rows[0].startswith(r"| puzzle | instance | size | config | status | median \[s\]")
    assert len(rows) == 2 + len(SPECS) * len(ENCODINGS)


def test_history_and_the_report_line_sweeps_up_by_commit(
    filled_store: Path, tmp_path: Path
) -> None:
    """The same runs stored again as a second sweep at another commit: two points per case."""
    import shutil

    path = tmp_path / "two-commits.sqlite"
    shutil.copy(filled_store, path)
    with store.connect(path) as conn:
        conn.execute("DELETE FROM environments")
        for run_id, commit in (("base", "a" * 40), ("next", "b" * 40)):
            store.save_environment(
                conn, run_id, {"host": "h", "git_commit": commit, "git_dirty": False}
            )
    with store.connect(path) as conn:
        copies = [replace(r, run_id="next") for r in store.stored_records(conn, "base")]
        store.insert_runs(conn, copies)
    shown = main_cli("history", "--store", str(path), "--format", "csv", "--case", "*5x6*")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("case,commit") and len(lines) == 1 + 2 * len(ENCODINGS)
    assert {line.split(",")[1] for line in lines[1:]} == {"a" * 10, "b" * 10}
    out = tmp_path / "report"
    made = main_cli("report", "base", "next", "--store", str(path), "--out", str(out))
    assert made.returncode == 0, made.stderr
    assert "Solve time across commits" in (out / "report.md").read_text()
    assert (out / "trend.png").stat().st_size > 10_000


def test_styles_survive_a_wide_option_sweep() -> None:
    """Twelve variants of one encoding (an option sweep of `all`) get valid, distinct styles."""
    import matplotlib.colors as mcolors

    from bench.analysis.style import config_styles

    styles = config_styles([(f"circuit-cpsat[k={i}]", "circuit-cpsat") for i in range(12)])
    colours = [styles[f"circuit-cpsat[k={i}]"]["color"] for i in range(12)]
    assert all(mcolors.is_color_like(c) for c in colours)
    assert len({(s["color"], s["linestyle"]) for s in styles.values()}) == len(styles)


def test_parallel_report_leaves_no_thread_or_process_behind(
    filled_store: Path, tmp_path: Path
) -> None:
    """`run` writes its report in the sweep's own process, which forks runs and must stay
    single-threaded: the drawing pool is shut down, its threads and workers joined."""
    import multiprocessing
    import threading

    from bench.analysis.report import write_report
    from bench.analysis.sources import load_runs

    before = set(threading.enumerate())
    runs = load_runs(["base"], filled_store)[1]
    write_report(runs, tmp_path / "r", [], jobs=2)
    assert set(threading.enumerate()) == before
    assert multiprocessing.active_children() == []
    assert len(list((tmp_path / "r").glob("*.png"))) >= 5
