"""The everyday interface: the ``bench`` console script, ``--version``, help, completion."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli


def test_version_names_the_project_and_its_solvers() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("puzzle-bench ") and "ortools" in result.stdout


def test_top_level_help_has_a_description_and_examples() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "examples:" in result.stdout and "run --suite all" in result.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script_is_printed(shell: str) -> None:
    result = run_cli("completion", shell)
    assert result.returncode == 0, result.stderr
    assert "bench" in result.stdout and "--suite" in result.stdout


def test_console_script_runs_like_python_m_bench() -> None:
    script = shutil.which("bench", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the bench console script is not installed (pip install -e .)")
    ok = subprocess.run([script, "--version"], cwd="/", capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("puzzle-bench "), ok.stderr
    bad = subprocess.run([script, "solve", "nosuch.txt", "--encoding", "x"], cwd=ROOT,
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_license_is_mit() -> None:
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
