"""The store at scale (issue 57): small on disk, one solution per board, the group vote
computed for every group at once exactly as the per-group rule does."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import store
from bench.analysis.stats import instance_status, instance_statuses
from models.base import STATUSES
from tests.benchmarks.scale import build
from tests.conftest import run_cli
from tests.stubs import stub_env


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.sampled_from("xyz"), st.sampled_from(STATUSES)),
        min_size=1,
        max_size=40,
    )
)
def test_the_vote_of_every_group_at_once_is_the_vote_of_each(rows: list[tuple]) -> None:
    runs = pd.DataFrame(rows, columns=["puzzle", "instance", "status"])
    each = runs.groupby(["puzzle", "instance"], sort=True)["status"].agg(instance_status)
    assert list(instance_statuses(runs, ["puzzle", "instance"]).items()) == list(each.items())


def test_a_study_store_keeps_under_500_bytes_a_run_and_each_solution_once(tmp_path: Path) -> None:
    path = tmp_path / "study.sqlite"
    (run_id,) = build(path, runs=4000, sweeps=1, boards=8)
    runs = store.load(path, run_id, columns=["instance", "status", "solution"])
    assert len(runs) == 4000
    assert path.stat().st_size / len(runs) <= 500
    with store.connect(path, readonly=True) as conn:
        kept = conn.execute("SELECT COUNT(*) FROM solutions").fetchone()[0]
        boards = conn.execute("SELECT COUNT(DISTINCT instance) FROM run_keys").fetchone()[0]
    solved = runs[runs["solution"].notna()]
    assert 0 < kept <= boards  # a board's repeats share its one solution
    assert len(solved) > kept
    # the view still shows every field of every run, as layout 1's table did
    with store.connect(path, readonly=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs WHERE solution IS NOT NULL").fetchone()[
            0
        ] == len(solved)


def test_a_wrong_answer_is_kept_whatever_its_size(tmp_path: Path) -> None:
    """The checker's refusal is evidence: a ``wrong`` run keeps its answer even past the size
    at which solved runs drop theirs (run_cli with a tiny cap set through the stub's board)."""
    suite = tmp_path / "wrong.toml"
    suite.write_text(
        '[[cases]]\nname = "liar"\npuzzle = "knights_tour"\n'
        'instances = ["gen:knights_tour:30x30:0"]\nencodings = ["stub-wrong"]\n'
    )
    path = tmp_path / "s.sqlite"
    done = run_cli(
        "run", "--suite", str(suite), "--store", str(path), "--no-report",
        env={**stub_env(), "PUZZLE_BENCH_MAX_SOLUTION_CHARS": "100"},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # a wrong answer fails the sweep
    runs = store.load(path, "latest", columns=["status", "solution"])
    assert list(runs["status"]) == ["wrong"]
    assert len(runs["solution"].iloc[0]["tour"]) == 900
