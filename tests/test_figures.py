"""Figures from runs: the measured cells of the suites table are generated from an export of
stored runs, and each exported run still is the suite as it stands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.suites import load_suite

ROOT = Path(__file__).resolve().parent.parent
EXPORT = ROOT / "bench" / "suites" / "figures.json"


def test_the_suites_table_is_what_the_export_of_its_runs_gives() -> None:
    checked = subprocess.run(
        [sys.executable, "scripts/suite_figures.py", "table", "--check"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr


def test_each_exported_run_is_the_suite_as_it_stands() -> None:
    """A figure names a run of the suite's current plan: a suite that gained or lost runs
    since (quick once said 62 runs and ran 74) fails here until it is measured again."""
    for suite, figures in json.loads(EXPORT.read_text()).items():
        planned = len(load_suite(suite, generate=False).runs)
        assert figures["planned"] == planned, f"{suite}: the export names {figures['planned']}"
        ran = sum(figures["statuses"].values()) + figures["not_run"]
        assert ran == planned, f"{suite}: run {figures['run_id']} did not finish its plan"


def test_an_exported_figure_stands_in_one_file() -> None:
    """The run ids of the export appear in the table and nowhere else the project writes."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    homes = {"bench/suites/README.md", "bench/suites/figures.json"}
    for figures in json.loads(EXPORT.read_text()).values():
        where = [
            name
            for name in tracked
            if (ROOT / name).is_file()
            and name.endswith((".md", ".toml", ".py", ".txt"))
            and figures["run_id"] in (ROOT / name).read_text(errors="ignore")
        ]
        assert set(where) <= homes and "bench/suites/README.md" in where, where
