"""The everyday interface: the ``bench`` console script, ``--version``, help, completion."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, main_cli


def test_version_names_the_project_and_its_solvers() -> None:
    shown = main_cli("--version")  # the subprocess start-up is tested once, below
    assert shown.returncode == 0 and shown.stdout.startswith("puzzle-bench ")
    assert "ortools" in shown.stdout


def test_top_level_help_has_a_description_and_examples() -> None:
    shown = main_cli("--help")
    assert shown.returncode == 0 and "examples:" in shown.stdout
    assert "run --suite all" in shown.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script_is_printed(shell: str) -> None:
    shown = main_cli("completion", shell)
    assert shown.returncode == 0 and "bench" in shown.stdout
    assert "--suite" in shown.stdout and "completion" in shown.stdout


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
