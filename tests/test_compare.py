"""Regression verdicts: real slowdowns flagged, noise and unchanged timeouts not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.analysis.compare import compare_runs, unsure
from bench.record import RunRecord


def _runs(
    cases: list[tuple[str, str, list[float]]],
    counters: dict | None = None,
    solver: str = "pysat",
    **fields,
) -> pd.DataFrame:
    """cases: (instance, status, solve times over repeats); a 1 ms build each."""
    rows = []
    for instance, status, times in cases:
        for repeat, t in enumerate(times):
            rows.append(
                RunRecord(
                    run_id="r", puzzle="sudoku", instance=instance, size="9x9", encoding="cnf-sat",
                    solver=solver, solver_version=f"{solver} 1.0", repeat=repeat, status=status,
                    build_s=0.001, build_cpu_s=0.001,
                    solve_s=t if status in ("solved", "infeasible") else None,
                    time_limit_s=10.0, counters=dict(counters or {}),
                ).__dict__
                | fields
            )  # fmt: skip
    return pd.DataFrame(rows)


def _verdict(base: pd.DataFrame, cur: pd.DataFrame, instance: str = "a") -> str:
    table = compare_runs(base, cur, threshold=0.1).table
    return table.set_index("instance").loc[instance, "verdict"]


def _solve_row(table: pd.DataFrame, instance: str = "a") -> pd.Series:
    return table[(table["instance"] == instance) & (table["aspect"] == "solve")].iloc[0]


ONE_S = ("solved", [1.0, 1.02, 0.98, 1.01, 0.99])
TWO_S = ("solved", [2.0, 2.05, 1.97, 2.02, 1.99])
NOISE = list(1 + 0.05 * np.random.default_rng(1).standard_normal(10))
MS_4, MS_8 = ("solved", [0.004, 0.0041, 0.0039]), ("solved", [0.008, 0.0081, 0.0079])
SOLVED, TIMEOUT, WRONG = ("solved", [1.0]), ("timeout", [0]), ("wrong", [0])


@pytest.mark.parametrize(
    ("base", "cur", "verdict"),
    [
        (ONE_S, TWO_S, "regression"),  # a clear slowdown
        (TWO_S, ONE_S, "improvement"),
        (("solved", NOISE[:5]), ("solved", NOISE[5:]), "same"),  # noise within the threshold
        (("solved", [0.5, 1.5, 1.0]), ("solved", [1.2, 0.6, 1.6]), "same"),  # wide spread
        (MS_4, MS_8, "same"),  # tiny time differences are below the noise floor
        (SOLVED, TIMEOUT, "regression"),  # the status rules
        (TIMEOUT, TIMEOUT, "same"),
        (TIMEOUT, SOLVED, "improvement"),
        (SOLVED, WRONG, "regression"),
        (WRONG, SOLVED, "improvement"),
    ],
)
def test_verdict_from_statuses_and_times(base, cur, verdict) -> None:
    assert _verdict(_runs([("a", *base)]), _runs([("a", *cur)])) == verdict


def test_deterministic_counter_change_is_flagged_even_when_times_are_noisy() -> None:
    base = _runs([("a", "solved", [1.0, 0.5, 1.5])], {"conflicts": 1000})
    cur = _runs([("a", "solved", [1.0, 0.5, 1.5])], {"conflicts": 1500})
    row = _solve_row(compare_runs(base, cur).table)
    assert row["verdict"] == "regression"
    assert "conflicts" in row["reason"]


def test_counters_that_do_not_repeat_are_ignored() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])])
    base["counters"] = [{"conflicts": 10}, {"conflicts": 30}]
    cur = _runs([("a", "solved", [1.0, 1.0])])
    cur["counters"] = [{"conflicts": 50}, {"conflicts": 70}]
    assert _verdict(base, cur) == "same"


def test_new_and_missing_cases_are_listed() -> None:
    table = compare_runs(_runs([("a", "solved", [1.0])]), _runs([("b", "solved", [1.0])])).table
    assert dict(zip(table["instance"], table["verdict"], strict=True)) == {
        "a": "missing",
        "b": "new",
    }


def test_calibration_normalises_a_slower_machine() -> None:
    base = _runs([("a", "solved", [1.0, 1.01, 0.99])])
    cur = _runs([("a", "solved", [2.0, 2.02, 1.98])]).assign(build_cpu_s=0.002)
    table = compare_runs(base, cur, calibration=(0.1, 0.2)).table
    assert set(table["verdict"]) == {"same"}


def test_an_edited_instance_is_never_compared_blindly() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])]).assign(instance_hash="aaaa")
    cur = _runs([("a", "solved", [5.0, 5.0])]).assign(instance_hash="bbbb")
    row = _solve_row(compare_runs(base, cur).table)
    assert row["verdict"] == "changed"
    assert "instance" in row["reason"]


def test_same_work_with_noisy_times_is_not_a_regression() -> None:
    """Two identical sweeps on a busy machine: counters equal, times 2x apart."""
    base = _runs([("a", "solved", [0.02, 0.021, 0.019])], {"conflicts": 120})
    cur = _runs([("a", "solved", [0.045, 0.046, 0.044])], {"conflicts": 120})
    row = _solve_row(compare_runs(base, cur).table)
    assert row["verdict"] == "same"
    assert "counters unchanged" in row["reason"]


def test_tiny_time_differences_are_below_the_noise_floor() -> None:
    base = _runs([("a", "solved", [0.004, 0.0041, 0.0039])])
    cur = _runs([("a", "solved", [0.008, 0.0081, 0.0079])])
    assert _verdict(base, cur) == "same"


def _build_row(table: pd.DataFrame) -> pd.Series:
    return table[table["aspect"] == "build"].iloc[0]


def test_slower_build_is_flagged_though_the_solver_did_the_same_work() -> None:
    """The build is the project's own Python: counters never see it, its time decides."""
    cases = [(i, "solved", [0.5, 0.5, 0.5]) for i in "abcd"]
    base = _runs(cases, {"conflicts": 10}).assign(build_cpu_s=0.02)
    cur = _runs(cases, {"conflicts": 10}).assign(build_cpu_s=0.06)
    table = compare_runs(base, cur).table
    assert _solve_row(table)["verdict"] == "same"
    build = _build_row(table)
    assert build["verdict"] == "regression"
    assert build["instance"] == "(build, 4 instances)"
    assert build["ratio"] == pytest.approx(3.0)


def test_build_noise_is_not_flagged_and_tiny_builds_are_left_out() -> None:
    rng = np.random.default_rng(3)
    cases = [(i, "solved", [0.5, 0.5, 0.5]) for i in "abcd"]
    base = _runs(cases).assign(build_cpu_s=0.02 * (1 + 0.1 * rng.standard_normal(12)))
    cur = _runs(cases).assign(build_cpu_s=0.02 * (1 + 0.1 * rng.standard_normal(12)))
    assert _build_row(compare_runs(base, cur).table)["verdict"] == "same"
    tiny = compare_runs(_runs(cases), _runs(cases).assign(build_cpu_s=0.0015)).table
    assert "under" in _build_row(tiny)["reason"]


@pytest.mark.parametrize(("times", "verdict"), [([1.0], "same"), ([1.0, 1.0], "regression")])
def test_an_undeclared_counter_is_trusted_once_shown_to_repeat(times, verdict) -> None:
    """z3.Solver() does not repeat its rlimit count: one run each side proves nothing."""
    base, cur = (
        _runs([("a", "solved", times)], {"rlimit_count": n}, "z3", options={"z3_solver": "Solver"})
        for n in (1000, 2000)
    )
    row = _solve_row(compare_runs(base, cur).table)
    assert row["verdict"] == verdict
    assert verdict == "regression" or "time" in row["reason"]


def test_declared_repeatable_only_under_its_settings() -> None:
    """CP-SAT's counters repeat with one worker; with two, the times decide."""
    one = [_runs([("a", "solved", [1.0])], {"conflicts": c}, "cp-sat") for c in (100, 200)]
    assert _solve_row(compare_runs(*one).table)["verdict"] == "regression"
    two = [r.assign(threads=2) for r in one]
    assert _solve_row(compare_runs(*two).table)["verdict"] == "same"


def test_clocks_and_memory_are_never_effort_counters() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])], {"time": 0.05, "memory": 20}, "z3")
    cur = _runs([("a", "solved", [1.0, 1.0])], {"time": 0.09, "memory": 40}, "z3")
    assert _solve_row(compare_runs(base, cur).table)["verdict"] == "same"


def test_a_solver_version_change_makes_work_not_comparable_but_judges_status() -> None:
    base = _runs([("a", "solved", [1.0, 1.0, 1.0])], {"conflicts": 100})
    slower = _runs([("a", "solved", [1.0, 1.0, 1.0])], {"conflicts": 900},
                   solver_version="pysat 2.0")  # fmt: skip
    row = _solve_row(compare_runs(base, slower).table)
    assert row["verdict"] == "not comparable"  # counters and times of another program
    assert "pysat 1.0 -> pysat 2.0" in row["reason"]
    cur = _runs([("a", "timeout", [0, 0, 0])], {"conflicts": 900}, solver_version="pysat 2.0")
    row = _solve_row(compare_runs(base, cur).table)
    assert row["verdict"] == "regression"  # a status that got worse, whatever the versions
    assert "pysat 1.0 -> pysat 2.0" in row["reason"]
    across = _solve_row(compare_runs(base, cur, across_versions=True).table)
    assert across["verdict"] == "regression"  # asked for: the status change counts
    wrong = _runs([("a", "wrong", [0])], solver_version="pysat 2.0")
    assert _solve_row(compare_runs(base, wrong).table)["verdict"] == "regression"


def test_across_versions_ignores_counters_and_judges_time() -> None:
    base = _runs([("a", "solved", [1.0, 1.0, 1.0])], {"conflicts": 100})
    cur = _runs([("a", "solved", [1.0, 1.0, 1.0])], {"conflicts": 900}, solver_version="pysat 2")
    row = _solve_row(compare_runs(base, cur, across_versions=True).table)
    assert row["verdict"] == "same"
    assert "time" in row["reason"]


def test_times_from_another_machine_are_not_compared_but_counters_are() -> None:
    base = _runs([("a", "solved", [1.0, 1.0])], {"conflicts": 100})
    cur = _runs([("a", "solved", [3.0, 3.0])], {"conflicts": 300})
    table = compare_runs(base, cur, times_comparable=False).table
    assert _solve_row(table)["verdict"] == "regression"  # counters travel across machines
    assert _build_row(table)["verdict"] == "not comparable"
    timed = compare_runs(
        _runs([("a", "solved", [1.0, 1.0])], {}, "cp-sat", threads=8),
        _runs([("a", "solved", [3.0, 3.0])], {}, "cp-sat", threads=8),
        times_comparable=False,
    ).table
    assert _solve_row(timed)["verdict"] == "not comparable"


def test_a_machine_slower_at_every_build_is_not_a_build_regression() -> None:
    """Six encodings, all builds 1.7x slower (the machine): same. One of them 2.5x slower
    on top (its code): that one is a regression, the others the same."""
    rng = np.random.default_rng(5)
    names = [f"enc{i}" for i in range(6)]
    cases = [(i, "solved", [0.5, 0.5, 0.5]) for i in "ab"]

    def sweep(factor: dict[str, float]) -> pd.DataFrame:
        return pd.concat(
            _runs(cases, {"conflicts": 10}, encoding=name).assign(
                build_cpu_s=0.02 * factor.get(name, 1.0) * (1 + 0.02 * rng.standard_normal(6))
            )
            for name in names
        )

    base = sweep({})
    builds = lambda table: table[table["aspect"] == "build"].set_index("config")  # noqa: E731
    slow = builds(compare_runs(base, sweep(dict.fromkeys(names, 1.7))).table)
    assert set(slow["verdict"]) == {"same"} and "divided out" in slow["reason"].iloc[0]
    one = builds(compare_runs(base, sweep({**dict.fromkeys(names, 1.7), "enc2": 4.25})).table)
    assert one.loc["enc2", "verdict"] == "regression"
    assert one.loc["enc2", "ratio"] == pytest.approx(2.5, rel=0.05)
    assert set(one.drop(index="enc2")["verdict"]) == {"same"}


def test_same_machine_ab_keeps_a_slowdown_common_to_every_build() -> None:
    """Interleaved A/B on one machine (``bench ab``): the machine cannot drift between the
    sides, so every build 2x slower is the change's doing and each build row says so."""
    rng = np.random.default_rng(7)
    names = [f"enc{i}" for i in range(6)]
    cases = [(i, "solved", [0.5, 0.5, 0.5]) for i in "ab"]

    def sweep(factor: float) -> pd.DataFrame:
        return pd.concat(
            _runs(cases, {"conflicts": 10}, encoding=name).assign(
                build_cpu_s=0.02 * factor * (1 + 0.02 * rng.standard_normal(6))
            )
            for name in names
        )

    base, cur = sweep(1.0), sweep(2.0)
    table = compare_runs(base, cur, divide_drift=False).table
    builds = table[table["aspect"] == "build"]
    assert set(builds["verdict"]) == {"regression"}
    assert builds["ratio"].to_numpy() == pytest.approx(2.0, rel=0.05)
    assert "divided out" not in " ".join(builds["reason"])
    divided = compare_runs(base, cur).table  # across sweeps: the common drift divided out
    assert set(divided[divided["aspect"] == "build"]["verdict"]) == {"same"}


def test_a_run_without_the_counter_keeps_it_out_of_the_comparison() -> None:
    """Two of three repeats solved (the mode) and one stopped early with no counters: the
    counter is not on every run, so the verdict falls back to time instead of failing."""
    counters = {"conflicts": 10, "decisions": 20}
    base = _runs([("a", "solved", [1.0, 1.0, 1.0])], counters)
    stopped = _runs([("a", "timeout", [0])], {}).assign(repeat=2)
    cur = pd.concat([_runs([("a", "solved", [1.0, 1.01])], counters), stopped])
    row = _solve_row(compare_runs(base, cur, threshold=0.1).table)
    assert row["verdict"] == "same" and "counter" not in row["reason"], row["reason"]


def test_a_build_interval_holds_the_boards_fixed_when_every_repeat_is_its_own_sweep() -> None:
    """Two boards: one built 2x slower, the other 1.25x. Repeats of one sweep share its
    process, so the interval resamples the boards too, and its lower bound falls to the
    milder board's ratio: not flagged. The same times, each repeat a sweep of its own
    (`bench ab`'s rounds, or exports of them read by `bench publish`): the rounds carry the
    noise between sweeps, the boards are held fixed, and the doubling is flagged."""
    jitter = np.array([1.0, 1.02, 0.98, 1.01, 0.99])
    cases = [(i, "solved", [0.5] * 5) for i in "ab"]
    base = _runs(cases, {"conflicts": 10}).assign(build_cpu_s=0.02 * np.tile(jitter, 2))
    cur = _runs(cases, {"conflicts": 10}).assign(
        build_cpu_s=0.02 * np.concatenate([2.0 * jitter[::-1], 1.25 * jitter[::-1]])
    )
    one_sweep = _build_row(compare_runs(base, cur, divide_drift=False).table)
    assert one_sweep["verdict"] == "same" and one_sweep["ratio_low"] < 1.25, one_sweep
    split_base = base.assign(run_id=["b" + str(r) for r in base["repeat"]])
    split_cur = cur.assign(run_id=["c" + str(r) for r in cur["repeat"]])
    rounds = _build_row(compare_runs(split_base, split_cur, divide_drift=False).table)
    assert rounds["verdict"] == "regression", rounds
    assert rounds["ratio"] == pytest.approx(one_sweep["ratio"])
    assert rounds["ratio_low"] > 1.5


def test_unsure_names_time_verdicts_whose_interval_reaches_back_across_the_threshold() -> None:
    """A median ratio past the threshold with an interval down to 1 is unsure; a clear
    regression, plain noise, a counter verdict and the noise floor are not."""
    cases = [(i, "solved", [0.5] * 4) for i in "ab"]
    base = _runs(cases, {"conflicts": 10}).assign(build_cpu_s=0.02)
    split = base.assign(build_cpu_s=0.02 * np.tile([4.0, 1.0, 4.0, 1.0], 2))
    doubled = base.assign(build_cpu_s=0.04 * np.tile([1.0, 1.01, 0.99, 1.0], 2))
    noise = base.assign(build_cpu_s=0.02 * np.tile([1.1, 0.9, 1.05, 0.95], 2))
    found = {
        name: unsure(compare_runs(base, cur, divide_drift=False).table)
        for name, cur in (("split", split), ("doubled", doubled), ("noise", noise))
    }
    assert list(found["split"]["aspect"]) == ["build"], found["split"]
    assert found["split"]["ratio"].iloc[0] == pytest.approx(2.5)
    assert found["doubled"].empty and found["noise"].empty
    faster = unsure(compare_runs(split, base, divide_drift=False).table)
    assert list(faster["aspect"]) == ["build"] and faster["ratio"].iloc[0] < 0.8


def test_publish_marks_a_time_regression_from_a_busy_sweep_as_less_sure() -> None:
    """`bench publish` marks a commit whose build got 3x slower; when a sweep of the two
    commits began at a load past the cores (recorded since 2026-12), the mark says so."""
    from bench.analysis.publish import prepare, regressions

    cases = [(i, "solved", [0.5, 0.5, 0.5]) for i in "abcd"]

    def sweep(commit: str, build: float, load: list[float] | None) -> pd.DataFrame:
        runs = _runs(cases, {"conflicts": 10}, run_id=f"r-{commit}").assign(build_cpu_s=build)
        return runs.assign(env_git_commit=commit, env_cpu_model="cpu", env_cores=2,
                           env_load_avg=[load] * len(runs))  # fmt: skip

    for load, suffix in (([0.5, 0.5, 0.5], ""), ([4.4, 3.0, 2.0], " (a sweep began at load "
                                                  "4.4 on 2 cores: less sure)")):  # fmt: skip
        data = prepare(pd.concat([sweep("aaaa", 0.02, [0.3, 0.3, 0.3]), sweep("bbbb", 0.06, load)]))
        marks = regressions(data, ["aaaa", "bbbb"])
        (reason,) = marks[marks["aspect"] == "build"]["reason"]
        assert reason == "build time x3" + suffix, reason
