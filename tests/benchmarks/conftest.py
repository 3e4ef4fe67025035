"""Benchmarks go through the harness's own run path: a forked, limited, verified run.

``harness_case`` times whole isolated runs (``bench.measure.run_isolated``, as a sweep
does), checks every answer with the puzzle's verifier, and reports build and solve time,
the solver's counters and, where a case has a goal, whether the median met it, in the
benchmark's ``extra_info`` (``--benchmark-json`` keeps it). Goals are reported, never
asserted: speed is data. Slow cases run only with ``--benchmark-enable``.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from bench.measure import run_isolated
from bench.task import Measurement, RunTask
from models.base import SOLVED

ROOT = Path(__file__).resolve().parents[2]


def path(spec: str) -> str:
    return spec if spec.startswith("gen:") else str(ROOT / spec)


def harness_case(
    benchmark,
    puzzle: str,
    spec: str,
    encoding: str,
    *,
    rounds: int = 3,
    goal_s: float | None = None,
    limit_s: float = 60.0,
    slow: bool = False,
    **options,
) -> list[Measurement]:
    """Benchmark ``rounds`` isolated runs; report their medians and the goal in extra_info."""
    if slow and benchmark.disabled:
        pytest.skip("slow benchmark: run with --benchmark-enable")
    task = RunTask(puzzle, path(spec), encoding, options, seed=0, threads=1, time_limit_s=limit_s)
    results: list[Measurement] = []

    def one_run() -> None:
        result = run_isolated(task)
        assert result.status == SOLVED and result.verified, result.error
        results.append(result)

    benchmark.pedantic(one_run, rounds=rounds, iterations=1)
    median = statistics.median(r.build_s + r.solve_s for r in results)
    benchmark.extra_info.update(
        build_s=statistics.median(r.build_s for r in results),
        solve_s=statistics.median(r.solve_s for r in results),
        build_plus_solve_s=median,
        counters=results[-1].counters,
    )
    if goal_s is not None:
        benchmark.extra_info.update(goal_s=goal_s, goal_met=median < goal_s)
    return results
