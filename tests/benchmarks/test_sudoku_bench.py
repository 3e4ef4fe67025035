"""Sudoku speed goals (issue 4) as pytest-benchmark cases; disabled by default.

Run with ``pytest tests/benchmarks/test_sudoku_bench.py --benchmark-enable``.
Goals: the best encoding's mean build+solve on top1465 <= 12 ms (here: a fixed sample of
50, every round solving all 50); a 25x25 partly filled Sudoku X < 0.5 s with the best
encoding. The other cases give each encoding's figure on Norvig's hardest for comparison.
The full tables come from ``python -m models.sudoku.measure`` (see its docstring).
"""

from __future__ import annotations

import random

import pytest

from models.base import SOLVED, Limits
from models.registry import encodings, load_instance

TOP1465 = "instances/sudoku/tdoku-benchmark/puzzles3_magictour_top1465"
NORVIG = "instances/sudoku/norvig-pytudes/sudoku-hardest.txt"
SAMPLE = [
    load_instance(f"{TOP1465}#{i}").instance
    for i in sorted(random.Random(1).sample(range(1, 1466), 50))
]


def _solve(puzzle: str, encoding: str, instance, options=None) -> None:
    enc = encodings()[puzzle][encoding](options)
    limits = Limits(time_limit_s=60, seed=0, threads=1)
    enc.build(instance, limits)
    assert enc.solve(limits).status == SOLVED


def _solve_all(encoding: str) -> None:
    for instance in SAMPLE:
        _solve("sudoku", encoding, instance)


@pytest.mark.parametrize("encoding", ["cnf-sat", "alldiff-cpsat", "dlx"])
def test_top1465_sample_of_50(benchmark, encoding: str) -> None:
    benchmark.pedantic(_solve_all, args=(encoding,), rounds=3, iterations=1)
    if benchmark.enabled and encoding == "cnf-sat":
        assert benchmark.stats.stats.mean / len(SAMPLE) <= 0.012


@pytest.mark.parametrize("encoding", sorted(encodings()["sudoku"]))
def test_norvig_hardest_1(benchmark, encoding: str) -> None:
    instance = load_instance(f"{NORVIG}#1").instance
    benchmark.pedantic(_solve, args=("sudoku", encoding, instance), rounds=3, iterations=1)


@pytest.mark.parametrize("fill", [40, 50, 60])
def test_x25_partly_filled(benchmark, fill: int) -> None:
    instance = load_instance(f"instances/sudoku_x/25x25/fill{fill}-s1.txt").instance
    benchmark.pedantic(_solve, args=("sudoku_x", "cnf-sat", instance), rounds=3, iterations=1)
    if benchmark.enabled and fill >= 50:
        assert benchmark.stats.stats.mean < 0.5
