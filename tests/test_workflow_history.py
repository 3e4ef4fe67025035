"""The hosted workflow's step that keeps the sweep of main in the ``bench-results`` branch,
run as GitHub runs it (its own ``run:`` text, with ``bash -eo pipefail``) on two fresh clones
of a repository whose ``origin`` is a local bare repository: the first push makes the branch
(an orphan holding only ``history/``), the second adds to it, and ``bench history`` reads the
branch back as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, commit_all, git, project_repository

pytestmark = pytest.mark.timeout(300)
WORKFLOW = ROOT / ".github" / "workflows" / "bench.yml"
STEP = "Keep the sweep of main in the bench-results branch"
SUITE = """
[suite]
repeats = 1
time_limit_s = 20
jobs = 1

[[cases]]
name = "one"
puzzle = "sudoku_x"
instances = ["instances/sudoku_x/medium-9x9.txt"]
encodings = ["cnf-sat"]
"""


def _step_script() -> str:
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["gate"]["steps"]
    (step,) = [s for s in steps if s.get("name") == STEP]
    return step["run"]


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository holding this project's tree (and a tiny suite) as ``main``."""
    top = tmp_path_factory.mktemp("wf")
    work = project_repository(top / "seed", {"one.toml": SUITE})
    bare = top / "origin.git"
    git(top, "init", "-q", "--bare", "-b", "main", str(bare))
    git(work, "push", "-q", str(bare), "main")
    return bare


def _job_on_main(origin: Path, where: Path, edit: str | None = None) -> str:
    """One CI job of a push to main: a fresh clone, maybe a new commit pushed first, a sweep
    into results/bench.sqlite, then the workflow's step, as written. The commit swept."""
    clone = where / "checkout"
    git(where, "clone", "-q", str(origin), str(clone))
    if edit:
        with (clone / "README.md").open("a") as readme:
            readme.write(edit)
        commit_all(clone, "a neutral line")
        git(clone, "push", "-q", "origin", "main")
    (clone / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(clone)}
    done = subprocess.run([sys.executable, "-m", "bench", "run", "--suite", "one.toml",
                           "--no-report"], cwd=clone, env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    sha = git(clone, "rev-parse", "HEAD")
    env["GITHUB_SHA"] = sha
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step_script()],
                          cwd=clone, env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return sha


def test_the_workflow_keeps_each_sweep_of_main_in_the_results_branch(origin, tmp_path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first = _job_on_main(origin, tmp_path / "one")
    second = _job_on_main(origin, tmp_path / "two", edit="\nA neutral line.\n")
    files = git(origin, "ls-tree", "-r", "--name-only", "bench-results").splitlines()
    assert len(files) == 2 and all(f.startswith("history/") for f in files), files
    assert sorted(Path(f).name for f in files) == sorted(f"{c[:12]}.json" for c in (first, second))
    log = git(origin, "log", "--format=%s", "bench-results").splitlines()
    assert log == [f"history: {c[:10]} on {os.uname().machine}" for c in (second, first)], log
    apart = subprocess.run(["git", "merge-base", "main", "bench-results"], cwd=origin)
    assert apart.returncode == 1  # an orphan: no history shared with main
    results = tmp_path / "results"
    git(tmp_path, "clone", "-q", "--branch", "bench-results", str(origin), str(results))
    done = subprocess.run([sys.executable, "-m", "bench", "history", "--store",
                           str(results / "history"), "--format", "csv"],
                          cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
    assert [row[1] for row in rows] == [first[:10], second[:10]], done.stdout
