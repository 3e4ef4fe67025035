"""A newcomer's puzzle, from a folder of its own: N-Queens completion with two encodings.

The folder (tests/newcomer/, copied to a temporary directory) is all there is: the test
puts it on PYTHONPATH and names it in PUZZLE_BENCH_PLUGINS, as the README's "Adding a
puzzle" says, and the puzzle is then listed, solved, swept by ``quick`` and reported by the
``bench`` console script with no edit anywhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

NEWCOMER = Path(__file__).resolve().parent / "newcomer"
BENCH = str(Path(sys.executable).with_name("bench"))


def test_a_puzzle_from_a_plugin_folder_is_listed_solved_swept_and_reported(tmp_path: Path) -> None:
    shutil.copytree(NEWCOMER, tmp_path / "plugin", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "plugin"), "PUZZLE_BENCH_PLUGINS": "nqueens"}

    def bench(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [BENCH, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stderr
        return done

    listed = json.loads(bench("list", "--json").stdout)
    assert listed["puzzles"]["nqueens"]["encodings"] == ["queens-cpsat", "queens-sat"]
    assert "numberlink" in listed["puzzles"]  # the built-in puzzles stay

    solved = bench("solve", "gen:nqueens:8x8:2:given=3", "--encoding", "queens-sat")
    assert "solved verified" in solved.stdout

    store = tmp_path / "bench.sqlite"
    swept = bench("run", "--suite", "quick", "--puzzle", "nqueens", "--store", str(store))
    assert "3 planned" not in swept.stdout and "6 planned" in swept.stdout, swept.stdout
    run_id = swept.stdout.split("run id: ")[1].split()[0]
    export = json.loads(bench("results", run_id, "--format", "json", "--store", str(store)).stdout)
    rows = export["runs"]
    hashes = export["environments"][run_id]["encoding_hashes"]
    assert hashes["nqueens/queens-cpsat"] != hashes["nqueens/queens-sat"]  # each file hashed
    statuses = sorted((r["encoding"], r["instance"], r["status"]) for r in rows)
    assert [s for _, i, s in statuses if i == "gen:nqueens:3x3:0"] == ["infeasible"] * 2
    assert {s for *_, s in statuses} == {"solved", "infeasible"}
    report = (tmp_path / "reports" / run_id / "report.md").read_text()
    assert "nqueens" in report and "queens-sat" in report
