"""The hosted-CI recipe stays in step with .ci/run, and the committed baseline is usable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _ci_run_steps() -> list[str]:
    """Every command .ci/run chains, except making and entering the venv."""
    lines = [ln for ln in (ROOT / ".ci/run").read_text().splitlines() if not ln.startswith("#")]
    steps = [s.strip() for ln in lines for s in re.split(r"&&", ln) if s.strip()]
    skip = ("set ", "cd ", "python3 -m venv", ". .venv")
    return [s for s in steps if not s.startswith(skip)]


def test_the_workflow_runs_every_step_of_ci_run() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/bench.yml").read_text())
    commands = [
        line.strip()
        for job in workflow["jobs"].values()
        for step in job["steps"]
        for line in str(step.get("run", "")).splitlines()
    ]
    steps = _ci_run_steps()
    assert ".ci/gate" in steps and "pytest -q -m serial" in steps
    assert 'pytest -q -n 2 --dist loadfile -m "not serial"' in steps
    for step in steps:
        assert step in commands, f"{step!r} from .ci/run is missing in bench.yml"


def test_the_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    run = (ROOT / ".ci/run").read_text()
    install = next(ln for ln in run.splitlines() if ln.startswith("python3 -m venv"))
    assert install in readme


def test_the_committed_baseline_holds_the_ci_suite() -> None:
    doc = json.loads((ROOT / "results/baseline/ci.json").read_text())
    assert doc["format"].startswith("puzzle-bench-baseline/")
    assert doc["reason"], "a baseline says why it was made"
    runs = doc["runs"]
    assert runs and {r["suite"] for r in runs} == {"ci"}
    assert not [r for r in runs if r["status"] in ("wrong", "error")]
    (environment,) = doc["environments"].values()
    assert environment["git_commit"] and environment["calibration_s"] > 0


def test_ci_covers_the_promised_python_range_and_the_lower_bounds() -> None:
    """The lowest Python pyproject.toml promises runs with the lowest versions it allows,
    and a newer Python than the pinned job's runs with the newest."""
    text = (ROOT / "pyproject.toml").read_text()
    lowest = re.search(r'requires-python = ">=(3\.\d+)"', text).group(1)
    workflow = yaml.safe_load((ROOT / ".github/workflows/bench.yml").read_text())
    pinned = workflow["jobs"]["gate"]["steps"][1]["with"]["python-version"]
    matrix = workflow["jobs"]["python-range"]["strategy"]["matrix"]["include"]
    runs = {(m["python"], m["resolution"]) for m in matrix}
    assert (lowest, "lowest-direct") in runs
    newest = max((tuple(map(int, p.split("."))) for p, r in runs if r == "highest"), default=())
    assert newest > tuple(map(int, pinned.split(".")))
    steps = workflow["jobs"]["python-range"]["steps"]
    assert any("--resolution ${{ matrix.resolution }}" in str(s.get("run")) for s in steps)
    assert any("pytest -q -m serial" in str(s.get("run")) for s in steps)
