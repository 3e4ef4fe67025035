"""The SQLite store: every field round-trips, concurrent writers, loading, and the statistics."""

from __future__ import annotations

import math
import multiprocessing
from pathlib import Path

import pandas as pd
import pytest

import bench
from bench import store
from bench.analysis import stats
from bench.record import FIELD_NAMES, RunRecord


def _record(run_id: str = "r1", repeat: int = 0, **kw) -> RunRecord:
    values = dict(
        run_id=run_id,
        started_at=f"2026-01-01T00:00:0{repeat % 10}",
        suite="s",
        case="c",
        puzzle="knights_tour",
        instance="gen:knights_tour:5x5:0:open=1",
        size="5x5",
        encoding="stub-ok",
        options={"delay": 0.0},
        solver="stub",
        solver_version="1",
        encoding_hash="abc",
        repeat=repeat,
        time_limit_s=5.0,
        status="solved",
        verified=True,
        build_s=0.01,
        solve_s=0.1 + repeat / 100,
        wall_s=0.12 + repeat / 100,
        cpu_s=0.1,
        peak_rss_mb=80.0,
        overhead_s=0.002,
        n_vars=25,
        n_constraints=0,
        counters={"nodes": 25, "conflicts": repeat},
        host="h",
        solution={"tour": [[0, 0]]},
    )
    values.update(kw)
    return RunRecord(**values)


def test_round_trip_of_every_field(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with store.connect(path) as conn:
        assert store.insert_run(conn, _record())
        assert not store.insert_run(conn, _record())  # same key: kept once
        store.save_environment(conn, "r1", {"host": "h", "calibration_s": 0.1})
        store.save_environment(conn, "r1", {"host": "other"})  # the first one stays
        again = store.stored_records(conn, "r1")
    assert again == [_record()]
    frame = bench.load(path)
    assert list(frame.columns) == list(FIELD_NAMES)
    assert len(frame) == 1 and frame["counters"][0] == {"nodes": 25, "conflicts": 0}
    assert frame["verified"].dtype == bool
    wide = store.load(path, "latest", flatten_counters=True, with_environment=True)
    assert wide["counter_nodes"][0] == 25 and wide["env_calibration_s"][0] == 0.1
    assert wide["env_host"][0] == "h"
    text = store.load(path, json_text=True)
    assert text["options"][0] == '{"delay": 0.0}'


def test_run_ids_latest_and_unknown(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with pytest.raises(store.UnknownRunError):
        store.resolve_run_id(path, "latest")
    with store.connect(path) as conn:
        for run_id, started in (("a", "2026-01-01"), ("b", "2026-01-02")):
            store.start_sweep(conn, run_id, {"suite": "s", "plan": [], "started_at": started})
            store.insert_run(conn, _record(run_id))
            store.finish_sweep(conn, run_id, started)
        assert store.sweep(conn, "a")["planned"] == 0
        with pytest.raises(store.UnknownRunError):
            store.sweep(conn, "zzz")
    assert store.run_ids(path) == ["a", "b"]
    assert store.resolve_run_id(path, "latest") == "b"
    with pytest.raises(store.UnknownRunError, match="zzz"):
        store.resolve_run_id(path, "zzz")
    assert set(store.load(path, ["a"])["run_id"]) == {"a"}


def test_mark_wrong_updates_the_stored_row(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    claim = _record(status="infeasible", verified=False, solution=None)
    with store.connect(path) as conn:
        store.insert_run(conn, claim)
        claim.status, claim.error = "wrong", "refuted"
        store.mark_wrong(conn, claim)
    frame = store.load(path)
    assert frame["status"].tolist() == ["wrong"] and frame["error"].tolist() == ["refuted"]


def _writer(path: str, run_id: str, count: int) -> None:
    with store.connect(path) as conn:
        for repeat in range(count):
            store.insert_run(conn, _record(run_id, repeat))


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_writer, args=(path, f"w{i}", 40)) for i in range(3)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(60)
        assert process.exitcode == 0
    frame = store.load(path)
    assert len(frame) == 120 and frame.groupby("run_id").size().tolist() == [40, 40, 40]


def test_statistics_are_pure_functions_of_the_table() -> None:
    rows = [_record(repeat=r) for r in range(4)]
    rows.append(_record(repeat=4, status="timeout", verified=False, build_s=0.01, solve_s=5.0))
    rows.append(_record(repeat=5, status="wrong", verified=False))
    frame = pd.DataFrame([r.to_row() for r in rows])
    times = stats.run_time(frame)
    assert math.isnan(times[4]) and math.isnan(times[5]) and times[0] == pytest.approx(0.11)
    spread = stats.median_iqr(frame).iloc[0]
    assert spread["n"] == 4 and spread["median"] == pytest.approx(0.125)
    assert spread["iqr"] == pytest.approx(spread["q3"] - spread["q1"])
    counts = stats.status_counts(frame).iloc[0]
    assert (counts["solved"], counts["timeout"], counts["wrong"], counts["runs"]) == (4, 1, 1, 6)
    # PAR-2 is per instance: one wrong repeat makes the instance wrong, scored 2 x 5 s
    score = stats.par2(frame).iloc[0]
    assert (score["par2_s"], score["n"]) == (pytest.approx(10.0), 1)
    other = [_record(repeat=r, instance="b") for r in range(3)]  # answered in 0.11, 0.12, 0.13
    other += [_record(repeat=3, instance="c", status="timeout", solve_s=5.0)]
    frame2 = pd.DataFrame([r.to_row() for r in other])
    assert stats.par2(frame2).iloc[0]["par2_s"] == pytest.approx((0.12 + 10.0) / 2)
    table = stats.summary(frame)
    assert {"median_time_s", "time_iqr_s", "par2_s", "median_overhead_s"} <= set(table.columns)


def test_end_of_sweep_table_keeps_option_sweeps_apart_with_the_reports_par2() -> None:
    from rich.console import Console

    from bench.analysis.tables import per_instance, summary, with_config
    from bench.progress import summary_table

    records = [_record(repeat=r, options={"delay": d}) for r in range(2) for d in (0.0, 0.5)]
    records.append(_record(repeat=2, instance="hard", options={"delay": 0.5}, status="timeout"))
    console = Console(width=200, record=True)
    console.print(summary_table(records, "r1"))
    text = console.export_text()
    assert "stub-ok[delay=0.0]" in text and "stub-ok[delay=0.5]" in text
    report = summary(per_instance(with_config(pd.DataFrame([r.to_row() for r in records]))))
    slow = report[report["config"] == "stub-ok[delay=0.5]"].iloc[0]
    assert slow["par2_s"] == pytest.approx((0.115 + 10.0) / 2)  # median of 0.11, 0.12; 2 x 5 s
    assert f"{slow['par2_s']:.3f}" in text  # the same PAR-2 at the end of a sweep


def _store_of_two(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    with store.connect(path) as conn:
        store.insert_run(conn, RunRecord.assemble(_record(repeat=0)))
        store.insert_run(conn, _record(repeat=1, size="3x10", counters={"rlimit_count": 7}))
        store.save_environment(conn, "r1", {"host": "h"})
    return path


def test_load_and_every_export_give_one_shape(tmp_path: Path) -> None:
    """The same columns in the same order, datetimes, cells as numbers beside size, no
    column per counter: from the store, and read back from CSV, Parquet and JSON."""
    from bench.analysis.sources import load_source
    from tests.conftest import main_cli

    path = _store_of_two(tmp_path)
    loaded = bench.load(path, "r1")
    assert list(loaded.columns) == list(FIELD_NAMES)
    assert FIELD_NAMES.index("cells") == FIELD_NAMES.index("size") + 1
    assert list(loaded["cells"]) == [25, 30]  # the second run was stored without it
    assert str(loaded["started_at"].dtype).startswith("datetime64")
    assert loaded["started_at"][1] == pd.Timestamp("2026-01-01T00:00:01", tz="UTC")
    for fmt in ("csv", "parquet", "json"):
        out = tmp_path / f"runs.{fmt}"
        done = main_cli("results", "r1", "--store", str(path), "--format", fmt, "--out", str(out))
        assert done.returncode == 0, done.stderr
        back = load_source(str(out), path).runs
        assert list(back.columns) == list(FIELD_NAMES), fmt
        assert back["cells"].tolist() == [25, 30] and back["counters"][1] == {"rlimit_count": 7}
        assert back["started_at"].equals(loaded["started_at"]), fmt


def test_counters_export_as_a_long_table(tmp_path: Path) -> None:
    from tests.conftest import main_cli

    path = _store_of_two(tmp_path)
    out = tmp_path / "counters.csv"
    args = ("results", "r1", "--store", str(path), "--format", "csv", "--out", str(out))
    assert main_cli(*args, "--counters", "long").returncode == 0
    table = pd.read_csv(out)
    assert list(table.columns[-3:]) == ["solver", "counter", "value"]
    assert sorted(zip(table["repeat"], table["counter"], table["value"], strict=True)) == [
        (0, "conflicts", 0), (0, "nodes", 25), (1, "rlimit_count", 7)
    ]  # fmt: skip
    assert main_cli(*args, "--counters", "wide").returncode == 0
    assert {"counter_nodes", "counter_rlimit_count"} <= set(pd.read_csv(out).columns)


def test_a_field_added_after_a_store_was_written_loads_as_missing(tmp_path: Path) -> None:
    """Read-only loading of a store that lacks a newer column: the value is missing (before:
    SQLite read the quoted unknown name as a string, and every row held the text "cells")."""
    import sqlite3

    path = _store_of_two(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("DROP VIEW runs")  # it names every column
    conn.execute("ALTER TABLE run_details DROP COLUMN cells")
    conn.execute("ALTER TABLE run_rows DROP COLUMN overhead_s")
    conn.commit()
    conn.close()
    runs = bench.load(path, "r1")
    assert list(runs["cells"]) == [25, 30]  # filled in from size
    assert runs["overhead_s"].isna().all()
