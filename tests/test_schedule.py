"""Stop at the first timeout, one pinned run per core, and the Dask LocalCluster that
``--executor dask`` starts by itself: real sweeps of stand-in encodings on tiny boards."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

import pytest

from bench import skips, store
from bench.commands.run import default_jobs
from bench.plan import PlannedRun
from bench.schedule import SizeGate
from models.registry import cells_of as cells
from tests.conftest import main_cli, run_cli
from tests.stubs import stub_env

SUITE = """
[suite]
description = "a spinner that hits its limit on its smallest board; a stub that says where it ran"

[[cases]]
name = "where"
puzzle = "knights_tour"
instances = ["gen:knights_tour:6x6:0", "gen:knights_tour:6x6:1", "gen:knights_tour:6x6:2",
             "gen:knights_tour:6x6:3"]  # four boards, not four repeats: a suite runs in rounds
encodings = ["stub-where"]
[cases.options.stub-where]
limit_cells = 0
delay = 0.3

[[cases]]
name = "spin"
puzzle = "knights_tour"
generate = { sizes = ["6x6", "8x8", "10x10"], seeds = [0] }
encodings = ["stub-spin"]
time_limit_s = 0.2
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("schedule")
    (folder / "s.toml").write_text(SUITE)
    path = folder / "bench.sqlite"
    result = run_cli("run", "--suite", str(folder / "s.toml"), "--store", str(path),
                     "--jobs", "2", env=stub_env())  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "2 run(s) not run" in result.stdout
    return path, store.run_ids(path)[-1]


def test_larger_boards_are_skipped_after_a_timeout_not_recorded_as_timeouts(swept) -> None:
    path, run_id = swept
    runs = store.load(path, run_id)
    spin = runs[runs.case == "spin"]
    assert list(spin["status"]) == ["timeout"] and list(spin["size"]) == ["6x6"]
    skipped = skips.load(path, [run_id])
    assert sorted(skipped["size"]) == ["10x10", "8x8"]
    assert skipped["reason"].str.contains("smaller 6x6").all()
    assert not set(skipped["instance"]) & set(runs["instance"][runs.case == "spin"])


def test_resume_does_not_run_skipped_runs(swept) -> None:
    path, run_id = swept
    result = run_cli("run", "--resume", run_id, "--store", str(path), env=stub_env())
    assert result.returncode == 0, result.stderr
    assert "7 planned, 0 to run" in result.stdout and "2 run(s) not run" in result.stdout
    assert len(store.load(path, run_id)) == 5


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_concurrent_runs_are_pinned_to_distinct_cores(swept) -> None:
    path, run_id = swept
    runs = store.load(path, run_id, flatten_counters=True)
    where = runs[runs.case == "where"]
    assert (where["counter_cores"] == 1).all()  # each run may use exactly one core
    spans = [
        (s.timestamp(), w, c)
        for s, w, c in zip(where["started_at"], where["wall_s"], where["counter_core"], strict=True)
    ]
    overlapping = [
        (a, b) for i, a in enumerate(spans) for b in spans[i + 1 :]
        if a[0] < b[0] + b[1] and b[0] < a[0] + a[1]
    ]  # fmt: skip
    assert overlapping, "two slots should have overlapped"
    assert all(a[2] != b[2] for a, b in overlapping)


def test_gate_waits_for_smaller_boards_and_ignores_unsized_or_opted_out_runs() -> None:
    def run(instance: str, stop: bool = True) -> PlannedRun:
        return PlannedRun(case="c", puzzle="knights_tour", instance=instance, encoding="e",
                          stop_at_timeout=stop)  # fmt: skip

    small, big, other = run("a"), run("b"), run("x", stop=False)
    sizes = {("knights_tour", "a"): "6x6", ("knights_tour", "b"): "8x8",
             ("knights_tour", "x"): "9x9"}  # fmt: skip
    gate = SizeGate([big, small, other], sizes)
    queue = deque([big, small, other])
    assert gate.take(queue) == (small, [])  # the 8x8 waits for its 6x6
    assert gate.take(queue) == (other, [])
    gate.finished(small, "timeout")
    chosen, skipped = gate.take(queue)
    assert chosen is None and [r for r, _ in skipped] == [big] and not queue
    assert cells("12x10") == 120 and cells("n/a") is None


@pytest.mark.parametrize(
    ("wall_s", "stops"), [(0.001, False), (9.0, True), (10.5, True), (None, True)]
)
def test_a_timeout_that_gave_up_early_does_not_stop_the_size_sweep(wall_s, stops: bool) -> None:
    """warnsdorff gives up at once on a 4x4 with no closed tour (status timeout): its
    solvable 5x5 and 3x10 must still run, not be skipped as if it had hit its limit."""
    small, big = (
        PlannedRun(case="c", puzzle="knights_tour", instance=i, encoding="e", time_limit_s=10.0)
        for i in ("a", "b")
    )
    gate = SizeGate([small, big], {("knights_tour", "a"): "4x4", ("knights_tour", "b"): "5x5"})
    queue = deque([small, big])
    assert gate.take(queue) == (small, [])
    gate.finished(small, "timeout", wall_s=wall_s)
    chosen, skipped = gate.take(queue)
    assert (chosen is None and [r for r, _ in skipped] == [big]) if stops else chosen == big


@pytest.mark.skipif(pytest.importorskip("distributed") is None, reason="needs distributed")
def test_executor_dask_alone_starts_a_local_cluster(tmp_path: Path) -> None:
    suite = tmp_path / "tiny.toml"
    suite.write_text(
        '[[cases]]\nname = "local"\npuzzle = "knights_tour"\n'
        'instances = ["gen:knights_tour:6x6:0", "gen:knights_tour:5x5:0"]\n'
        'encodings = ["stub-ok"]\n'
    )
    path = tmp_path / "bench.sqlite"
    result = run_cli("run", "--suite", str(suite), "--store", str(path), "--executor", "dask",
                     env=stub_env())  # fmt: skip
    assert result.returncode == 0, result.stderr
    frame = store.load(path)
    assert sorted(frame["status"]) == ["infeasible", "solved"]
    workers = store.environments(path)[frame["run_id"][0]]["workers"]
    assert len(workers) == default_jobs()
    assert all(address.startswith("tcp://127.0.0.1:") for address in workers)


def test_a_suite_caps_the_limits_of_what_it_includes(tmp_path: Path) -> None:
    from bench.suites import load_suite

    (tmp_path / "part.toml").write_text(
        '[suite]\ntime_limit_s = 30\n\n[[cases]]\nname = "p"\npuzzle = "knights_tour"\n'
        'instances = ["instances/knights_tour/6x6.txt"]\nencodings = ["warnsdorff"]\n'
        "time_limit_s = 60\n"
    )
    (tmp_path / "top.toml").write_text(
        '[suite]\ninclude = ["part.toml"]\nmax_time_limit_s = 5\nreport = true\n'
        "stop_at_timeout = false\njobs = 1\n"
    )
    suite = load_suite(str(tmp_path / "top.toml"))
    assert suite.report and suite.jobs == 1 and [r.time_limit_s for r in suite.runs] == [5.0]
    assert not suite.runs[0].stop_at_timeout
    assert not load_suite(str(tmp_path / "part.toml")).report


def test_the_report_counts_runs_not_run_as_timeouts(swept, tmp_path: Path) -> None:
    """The stop rule assumes a skipped run would have timed out: PAR-2 and the solved
    counts must include it, or a configuration that stopped early would look better."""
    from bench.analysis.sources import load_source, with_not_run

    path, run_id = swept
    runs = with_not_run(load_source(run_id, path), path)
    spin = runs[runs["case"] == "spin"]
    assert sorted(spin["status"]) == ["timeout"] * 3 and int(spin["not_run"].sum()) == 2
    out = tmp_path / "report"
    made = main_cli("report", run_id, "--store", str(path), "--out", str(out))
    assert made.returncode == 0, made.stderr
    assert "2 planned runs were not run" in (out / "report.md").read_text()


def test_waiting_runs_are_parked_and_come_back_first_when_their_smaller_board_ends() -> None:
    """A plan with its large boards first: each waiting run is looked at once, not again at
    every run taken (a 100,000-run sweep scanned its waiting runs per run)."""

    def run(instance: str, seed: int) -> PlannedRun:
        return PlannedRun(case="c", puzzle="knights_tour", instance=instance, encoding="e",
                          seed=seed)  # fmt: skip

    bigs, smalls = [run("b", s) for s in range(3)], [run("a", s) for s in range(3)]
    gate = SizeGate([*bigs, *smalls], {("knights_tour", "a"): "4x4", ("knights_tour", "b"): "6x6"})
    queue = deque([*bigs, *smalls])
    assert gate.take(queue) == (smalls[0], [])
    assert gate.parked == 3 and list(queue) == smalls[1:]
    gate.finished(smalls[0], "solved")  # seed 0's big board need not wait any more
    assert gate.parked == 2 and list(queue) == [bigs[0], *smalls[1:]]
    assert gate.take(queue) == (bigs[0], [])
    assert gate.take(queue) == (smalls[1], [])
    gate.finished(smalls[1], "timeout")  # seed 1 hit its limit: its big board is skipped
    chosen, skipped = gate.take(queue)
    assert chosen == smalls[2] and [r for r, _ in skipped] == [bigs[1]] and gate.parked == 1
