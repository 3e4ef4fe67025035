"""Shared fixtures: the repository root as the working directory, and two CLI runners."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bench  # noqa: F401  (first: keeps numpy and pyarrow from starting threads)
from bench import cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instance specs are repo-relative, as in the suites."""
    monkeypatch.chdir(ROOT)


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """``python -m bench ARGS`` in a subprocess, from the repo root."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def main_cli(*args: str) -> subprocess.CompletedProcess:
    """``bench ARGS`` in this process, reported as ``run_cli`` reports it (exit code, stdout,
    stderr): for what is answered before any run starts, without an interpreter's start-up."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as stop:  # --help, --version and argparse's usage errors
            code = int(stop.code or 0)
    return subprocess.CompletedProcess(["bench", *args], code, out.getvalue(), err.getvalue())


def git(repo: Path, *args: str) -> str:
    """A git command's stdout in ``repo`` (fails the test when git does)."""
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    """Commit every change in ``repo`` (a throw-away author); the new commit's id."""
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def project_repository(dest: Path, extra: dict[str, str]) -> Path:
    """A new git repository at ``dest`` holding this checkout's files as they are (tracked
    and untracked, not ignored) plus ``extra`` (name -> text), committed on ``main``."""
    listed = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for name in listed:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    for name, text in extra.items():
        (dest / name).write_text(text)
    git(dest, "init", "-q", "-b", "main")
    commit_all(dest, "the project as it is")
    return dest
