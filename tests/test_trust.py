"""Measurements and verdicts you can trust (issue 19): one time limit for every solver, limits
and seeds checked where they enter, memory bounded by default and measured as the run's own,
CPU over the wall's window, and a gate that fails on what it cannot see."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bench import store, suites
from bench.analysis.compare import compare_runs
from bench.analysis.history import per_commit
from bench.analysis.stats import instance_status
from bench.commands.solve import default_memory_limit_mb
from bench.measure import KILL_GRACE_S, run_isolated
from bench.record import RunRecord
from bench.task import RunTask
from models.base import MAX_SEED, SOLVED, TIMEOUT
from models.errors import SuiteError
from models.solvers import SEED_RANGES, solver_seed
from tests.conftest import main_cli, run_cli
from tests.stubs import stubs  # noqa: F401  (fixture)
from tests.test_cli import _assert_usage_error

OPEN_5 = "gen:knights_tour:5x5:0:open=1"
SUDOKU_9 = "instances/sudoku/small/easy9.txt"


def _suite(tmp_path: Path, body: str = "", head: str = "", name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(
        f'[suite]\n{head}\n[[cases]]\nname = "c"\npuzzle = "knights_tour"\n'
        f'encodings = ["warnsdorff"]\ninstances = ["{OPEN_5}"]\n{body}\n'
    )
    return path


# --- one limit, enforced alike ---------------------------------------------------------


@pytest.mark.usefixtures("stubs")
def test_an_answer_after_the_limit_is_a_timeout_with_its_time_kept() -> None:
    result = run_isolated(RunTask("knights_tour", OPEN_5, "stub-late", time_limit_s=0.5))
    assert result.status == TIMEOUT and result.solution is None and not result.verified
    assert 0.5 < result.late_answer_s < 0.5 + KILL_GRACE_S, result.late_answer_s
    assert "after the time limit" in result.error
    record = RunRecord.assemble(result)
    assert record.late_answer_s == result.late_answer_s and record.status == TIMEOUT


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("run", "nan"),
        ("run", "inf"),
        ("run", "4294968"),  # Z3's millisecond timeout would wrap to 0.7 s
        ("run", "-1"),
        ("solve", "nan"),
        ("solve", "inf"),
    ],
)
def test_a_time_limit_that_no_solver_takes_alike_is_refused(
    tmp_path: Path, where: str, value: str
) -> None:
    if where == "run":
        args = ["run", "--suite", str(_suite(tmp_path)), "--store", str(tmp_path / "b.sqlite")]
    else:
        args = ["solve", OPEN_5, "--encoding", "warnsdorff"]
    _assert_usage_error(main_cli(*args, "--time-limit", value), "--time-limit")
    assert not (tmp_path / "b.sqlite").exists()


@pytest.mark.parametrize(
    ("head", "body", "fragment"),
    [
        ("time_limit_s = nan", "", "time_limit_s"),
        ("", "time_limit_s = inf", "time_limit_s"),
        ("", "time_limit_s = 4294968", "time_limit_s"),
        ("max_time_limit_s = nan", "", "max_time_limit_s"),
        ("", "memory_limit_mb = nan", "memory_limit_mb"),
        ("", "seeds = [-1]", "seeds"),
        ("", f"seeds = [{MAX_SEED}, 0]", ""),  # the largest seed is fine: no error
    ],
)
def test_suite_limits_and_seeds_are_checked(
    tmp_path: Path, head: str, body: str, fragment: str
) -> None:
    path = _suite(tmp_path, body, head)
    if not fragment:
        assert {r.seed for r in suites.load_suite(str(path)).runs} == {MAX_SEED, 0}
        return
    with pytest.raises(SuiteError, match=fragment):
        suites.load_suite(str(path))


@pytest.mark.parametrize(
    "args",
    [
        ["--seed", "-1"],
        ["--seed", str(MAX_SEED + 1)],
        ["--memory-limit", "nan"],
        ["--memory-limit", "inf"],
    ],
)
def test_solve_seeds_and_memory_limits_are_checked(args: list[str]) -> None:
    _assert_usage_error(main_cli("solve", OPEN_5, "--encoding", "warnsdorff", *args), args[0])


def test_a_generator_seed_out_of_range_is_refused() -> None:
    _assert_usage_error(main_cli("solve", "gen:knights_tour:6x6:-1", "--encoding", "warnsdorff"),
                        "seed")  # fmt: skip


def test_the_largest_seed_is_mapped_into_every_solvers_range() -> None:
    for solver, top in SEED_RANGES.items():
        mapped = solver_seed(solver, MAX_SEED)
        assert 0 <= mapped <= top and mapped == solver_seed(solver, MAX_SEED)
        assert solver_seed(solver, 7) == 7  # a seed in range is handed over as it is
    for encoding in ("alldiff-cpsat", "ilp-highs", "ilp-cbc", "bool-z3"):
        done = run_cli("solve", SUDOKU_9, "--encoding", encoding, "--seed", str(MAX_SEED),
                       "--json", "--time-limit", "60")  # fmt: skip
        doc = json.loads(done.stdout)
        assert (done.returncode, doc["status"]) == (0, SOLVED), (encoding, doc["error"])


# --- memory and size, bounded by default -----------------------------------------------


def test_sweeps_have_a_memory_limit_by_default_and_run_takes_one(tmp_path: Path) -> None:
    suite, db = _suite(tmp_path), tmp_path / "b.sqlite"
    done = run_cli("run", "--suite", str(suite), "--store", str(db), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert set(store.load(db)["memory_limit_mb"]) == {default_memory_limit_mb() / 2}
    done = run_cli("run", "--suite", str(suite), "--store", str(db), "--memory-limit", "300")
    assert done.returncode == 0, done.stderr
    assert set(store.load(db, "latest")["memory_limit_mb"]) == {300.0}


def test_size_caps_hold_for_a_suites_instance_files(tmp_path: Path) -> None:
    board = tmp_path / "huge.txt"
    board.write_text("100000 100000\n")
    path = tmp_path / "huge.toml"
    path.write_text(f'[[cases]]\nname = "huge"\npuzzle = "knights_tour"\n'
                    f'encodings = ["warnsdorff"]\ninstances = ["{board}"]\n')  # fmt: skip
    with pytest.raises(SuiteError, match="10000000000 cells"):
        suites.load_suite(str(path))


@pytest.mark.parametrize("repeats", [1001, 100_000_000])
def test_a_plan_over_its_bound_is_refused_before_it_is_built(tmp_path: Path, repeats: int) -> None:
    with pytest.raises(SuiteError, match="repeats must be at most"):
        suites.load_suite(str(_suite(tmp_path, f"repeats = {repeats}")))
    many = _suite(tmp_path, f"repeats = 1000\nseeds = {list(range(300))}", name="many.toml")
    with pytest.raises(SuiteError, match="over the bound"):
        suites.load_suite(str(many))


def test_run_repeat_over_its_bound_is_refused(tmp_path: Path) -> None:
    args = ["run", "--suite", str(_suite(tmp_path)), "--store", str(tmp_path / "b.sqlite")]
    _assert_usage_error(main_cli(*args, "--repeat", "100000000"), "--repeat")


def test_toml_nested_too_deep_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    result = main_cli("run", "--suite", str(path), "--store", str(tmp_path / "b.sqlite"))
    _assert_usage_error(result, "nested too deep")


# --- the run's own memory and CPU ------------------------------------------------------


@pytest.mark.usefixtures("stubs")
def test_peak_memory_is_the_runs_own_with_the_raw_figure_kept() -> None:
    def run(mb: int):
        task = RunTask("knights_tour", OPEN_5, "stub-alloc", {"mb": mb}, time_limit_s=30)
        result = run_isolated(task)
        assert result.status == SOLVED, result.error
        return result

    small, big = run(0), run(80)
    assert small.peak_rss_mb < 20, small.peak_rss_mb  # not the parent's shared image
    assert small.raw_maxrss_mb > small.peak_rss_mb + 40  # wait4's figure counts that image
    assert 75 <= big.peak_rss_mb - small.peak_rss_mb <= 95, (small.peak_rss_mb, big.peak_rss_mb)


@pytest.mark.usefixtures("stubs")
def test_cpu_and_wall_cover_the_same_window() -> None:
    for _ in range(3):  # one thread: its CPU cannot exceed its wall time in the same window
        result = run_isolated(RunTask("knights_tour", OPEN_5, "stub-ok", time_limit_s=30))
        assert result.status == SOLVED
        assert result.cpu_s <= result.wall_s + 0.001, (result.cpu_s, result.wall_s)


# --- a gate that fails on what it cannot see --------------------------------------------


def _record(run_id: str, instance: str = "a", status: str = SOLVED, **fields) -> RunRecord:
    values = dict(
        run_id=run_id, started_at=f"2026-01-01T00:00:0{run_id[-1]}", suite="ci", case="c",
        puzzle="sudoku", instance=instance, size="9x9", encoding="cnf-sat", solver="pysat",
        solver_version="python-sat 1.0", status=status, verified=status == SOLVED,
        build_s=0.01, build_cpu_s=0.01, solve_s=0.1, wall_s=0.12, cpu_s=0.11,
        time_limit_s=10.0, counters={"conflicts": 100.0, "decisions": 200.0},
    )  # fmt: skip
    values.update(fields)
    return RunRecord(**values)


def _store(
    path: Path,
    sweeps: dict[str, list[RunRecord]],
    unfinished: tuple = (),
    loads: dict | None = None,
) -> Path:
    loads = loads or {}
    with store.connect(path) as conn:
        for i, (run_id, records) in enumerate(sweeps.items()):
            store.start_sweep(conn, run_id, {"suite": "ci", "plan": [{}] * max(1, len(records)),
                                             "started_at": f"2026-01-01T00:00:0{i}"})  # fmt: skip
            env = {"git_commit": f"c{i}", "calibration_s": 0.1, "cores": 2}
            store.save_environment(conn, run_id, env | loads.get(run_id, {}))
            for record in records:
                store.insert_run(conn, record)
            if run_id not in unfinished:
                store.finish_sweep(conn, run_id, f"2026-01-01T00:01:0{i}")
    return path


def _gate(db: Path, base: str, cur: str, *extra: str) -> tuple[int, dict]:
    done = main_cli("compare", base, cur, "--store", str(db), "--format", "json", *extra)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _two(run_id: str, **fields) -> list[RunRecord]:
    return [_record(run_id, "a", **fields), _record(run_id, "b", **fields)]


def test_a_sweep_begun_on_a_busy_machine_is_named_in_the_notes(tmp_path: Path) -> None:
    """The 1-minute load when a sweep began (recorded since 2026-12): past the cores, the
    verdicts' notes say its times are less sure; a quiet sweep or an older one says nothing."""
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": _two("r2"), "r3": _two("r3")},
                loads={"r1": {"load_avg": [0.4, 0.5, 0.5]}, "r2": {"load_avg": [4.4, 3, 2]}})  # fmt: skip
    _, doc = _gate(db, "r1", "r2")
    busy = [n for n in doc["notes"] if "busy" in n]
    assert busy == [
        "the current sweep began at load 4.4 on 2 cores: the machine was busy, so its time "
        "verdicts are less sure (counter verdicts are not affected)"
    ], doc["notes"]
    _, doc = _gate(db, "r1", "r3")
    assert not [n for n in doc["notes"] if "busy" in n], doc["notes"]


def test_different_suites_fail_the_gate(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": _two("r2", suite="other")})
    code, doc = _gate(db, "r1", "r2")
    assert code == 1 and doc["gate"] == "suites differ", doc


def test_missing_cases_fail_the_gate(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": [_record("r2", "a")]})
    code, doc = _gate(db, "r1", "r2")
    assert code == 1 and doc["gate"] == "missing" and doc["counts"]["missing"] == 1, doc


def test_an_empty_or_unfinished_current_sweep_fails_the_gate(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": [], "r3": _two("r3")},
                unfinished=("r3",))  # fmt: skip
    code, doc = _gate(db, "r1", "r2")
    assert code == 1 and doc["gate"] == "empty", doc
    code, doc = _gate(db, "r1", "r3")
    assert code == 1 and doc["gate"] == "unfinished", doc
    code, doc = _gate(db, "r1", "latest")  # latest is r1 itself: neither r2 nor r3
    assert code == 0 and doc["current"] == "r1" and doc["gate"] == "pass", doc


def test_a_failed_or_empty_sweep_is_never_latest_and_says_so(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": [], "r3": [_record("r3")]},
                unfinished=("r3",))  # fmt: skip
    assert store.resolve_run_id(db, "latest") == "r1"
    for command in (["report", "r2", "--out", str(tmp_path / "rep")], ["stats", "r2"]):
        _assert_usage_error(main_cli(*command, "--store", str(db)), "r2", "no runs")
    done = main_cli("history", "--store", str(db), "--format", "csv")
    assert done.returncode == 0 and "r2, r3" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "c2" not in done.stdout
    done = main_cli("stats", "r3", "--store", str(db), "--format", "md")
    assert "r3 did not finish" in done.stderr


def test_a_worse_status_is_a_regression_whatever_the_versions(tmp_path: Path) -> None:
    cur = _two("r2", solver_version="python-sat 2.0")
    cur[1] = _record("r2", "b", TIMEOUT, solver_version="python-sat 2.0", solve_s=None)
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": cur})
    code, doc = _gate(db, "r1", "r2", "--all")
    verdicts = {v["instance"]: v["verdict"] for v in doc["verdicts"] if v["aspect"] == "solve"}
    assert verdicts == {"a": "not comparable", "b": "regression"} and code == 1, doc


def test_an_unknown_status_fails_the_gate(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1", status="bogus"), "r2": _two("r2")})
    code, doc = _gate(db, "r1", "r2")
    assert code == 1 and doc["gate"] == "unknown status", doc
    assert "improvement" not in doc["counts"]


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf"])
@pytest.mark.parametrize("flag", ["--threshold", "--time-threshold"])
def test_thresholds_are_checked(tmp_path: Path, flag: str, value: str) -> None:
    db = _store(tmp_path / "s.sqlite", {"r1": _two("r1"), "r2": _two("r2")})
    _assert_usage_error(main_cli("compare", "r1", "r2", "--store", str(db), flag, value), flag)


def test_piped_tables_are_not_cut(tmp_path: Path) -> None:
    folder = "instances/sudoku/" + "x" * 60
    base = [_record("r1", f"{folder}/board-{i}.txt") for i in range(2)]
    cur = [_record("r2", r.instance, counters={"conflicts": 900.0, "decisions": 1800.0})
           for r in base]  # fmt: skip
    db = _store(tmp_path / "s.sqlite", {"r1": base, "r2": cur})
    done = run_cli("compare", "r1", "r2", "--store", str(db))  # stdout is a pipe
    assert done.returncode == 1, done.stderr
    rows = [line for line in done.stdout.splitlines() if "board-0.txt" in line]
    assert rows and f"{folder}/board-0.txt" in rows[0] and "regression" in rows[0], done.stdout
    assert "…" not in done.stdout
    assert "gate: FAIL (regression)" in done.stdout


def test_a_cases_status_over_its_repeats_has_one_rule() -> None:
    statuses = [SOLVED, SOLVED, TIMEOUT, TIMEOUT]
    rows = [_record("r1", status=s, repeat=i, seed=0) for i, s in enumerate(statuses)]
    runs = pd.DataFrame([r.__dict__ for r in rows])
    rule = instance_status(runs["status"])
    table = compare_runs(runs, runs).table
    assert set(table.loc[table["aspect"] == "solve", "base_status"]) == {rule}
    history = per_commit(runs.assign(env_git_commit="c", env_git_dirty=False))
    assert set(history["status"]) == {rule}
    assert rule == TIMEOUT  # half the repeats answered: not "most" of them
