"""The everyday interface: the ``bench`` console script, ``--version``, help, completion."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import cli
from tests.conftest import ROOT


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The command line in this process (the subprocess start-up is tested once, below)."""
    try:
        code = cli.main(list(args))
    except SystemExit as stop:  # --help and --version end through argparse
        code = int(stop.code or 0)
    return code, capsys.readouterr().out


def test_version_names_the_project_and_its_solvers(capsys) -> None:
    code, out = _main(capsys, "--version")
    assert code == 0 and out.startswith("puzzle-bench ") and "ortools" in out


def test_top_level_help_has_a_description_and_examples(capsys) -> None:
    code, out = _main(capsys, "--help")
    assert code == 0 and "examples:" in out and "run --suite all" in out


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script_is_printed(capsys, shell: str) -> None:
    code, out = _main(capsys, "completion", shell)
    assert code == 0 and "bench" in out and "--suite" in out and "completion" in out


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
