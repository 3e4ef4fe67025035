"""`bench ab` typed as a user types it, quick enough to run with the other tests: without
--dir (its stores in a temporary folder), and across a commit whose declared dependencies
differ. A tiny suite (one 9x9 board, ``dlx``) keeps each A/B to a few seconds of sweeps.
Nothing here judges a time: the assertions are about what the command does and says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.ab import declared, pinned
from tests.conftest import commit_all, project_repository

BENCH = str(Path(sys.executable).with_name("bench"))
SUITE = """
[suite]
repeats = 2
time_limit_s = 20
seeds = [0]
threads = [1]
jobs = 1

[[cases]]
name = "tiny"
puzzle = "sudoku"
instances = ["instances/sudoku/small/easy9.txt"]
encodings = ["dlx", "cnf-sat"]
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's tree and the tiny suite, then a commit that changes the declared
    dependencies (pyproject.toml and the lock file), then a neutral one (HEAD)."""
    repo = project_repository(tmp_path_factory.mktemp("abq") / "repo", {"tiny.toml": SUITE})
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text()
    assert '"ortools>=9.15",' in text, "pyproject.toml changed: update this test's edit"
    pyproject.write_text(text.replace('"ortools>=9.15",', '"ortools>=9.99",\n    "requests>=2",'))
    lock = repo / "requirements" / "ci.lock"
    lock.write_text(lock.read_text().replace("\nortools==", "\nortools==99.", 1))
    commit_all(repo, "ortools>=9.99, requests")
    with (repo / "README.md").open("a") as readme:
        readme.write("\nA neutral line.\n")
    commit_all(repo, "neutral: a README line")
    return repo


def _bench(repo: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run([BENCH, *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip


def test_ab_without_dir_judges_and_leaves_nothing(repo: Path, tmp_path: Path) -> None:
    """As typed in the issue (`bench ab HEAD~1 HEAD --suite ... --encoding ... --rounds 2`,
    no --dir): it measured every round, then read the stores after their temporary folder
    was gone and exited 2 with "unknown run id". Now it prints its verdicts and the gate's
    line, and leaves no folder behind."""
    tmp = tmp_path / "tmp"
    done = _bench(repo, tmp, "ab", "HEAD~1", "HEAD", "--suite", "tiny.toml", "--encoding",
                  "dlx", "--rounds", "2")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "unknown run id" not in done.stderr and "error" not in done.stderr, done.stderr
    assert "gate: " in done.stdout and "interleaved rounds A B x" in done.stdout, done.stdout
    assert "dependencies" not in done.stdout + done.stderr  # the two commits declare the same
    assert sorted(p.name for p in tmp.iterdir()) == [], "a temporary folder was left"


def test_ab_across_a_dependency_change_says_so_in_one_line(repo: Path, tmp_path: Path) -> None:
    """A base whose pyproject.toml and lock file declare other dependencies than the head's:
    both sides still run on the installed packages, and the A/B says which packages differ
    and what that means, on stderr as it starts and in the verdicts' notes."""
    done = _bench(repo, tmp_path / "tmp", "ab", "HEAD~2", "HEAD~1", "--suite", "tiny.toml",
                  "--encoding", "dlx", "--rounds", "1", "--format", "json")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    said = [line for line in done.stderr.splitlines() if "dependencies" in line]
    assert len(said) == 1, done.stderr
    line = said[0]
    assert "ortools>=9.15 -> ortools>=9.99" in line, line
    assert "requests (not declared) -> requests>=2" in line, line
    assert "ortools 9.15" in line and "-> 99.9.15" in line and "requirements/ci.lock" in line
    assert "both ran on the installed versions" in line and "one set of dependencies" in line
    notes = json.loads(done.stdout)["notes"]
    assert [n for n in notes if "dependencies" in n] == [line.removeprefix("ab: ")], notes


def test_declared_and_pinned_read_names_as_pip_compares_them() -> None:
    text = '[project]\ndependencies = ["Python_SAT>=1.8", "tomli>=2; python_version < \'3.11\'"]'
    assert declared(text) == {
        "python-sat": "Python_SAT>=1.8",
        "tomli": "tomli>=2; python_version < '3.11'",
    }
    assert declared(None) == {} and declared("not toml [") == {}
    lock = "absl-py==2.5.1 \\\n    --hash=sha256:00\ndask[distributed]==2026.8.0\n# x==1\n"
    assert pinned(lock) == {"absl-py": "2.5.1", "dask": "2026.8.0"}
