"""Knight's-tour speed goals (issue 5) as pytest-benchmark cases; disabled by default.

Run with ``pytest tests/benchmarks/test_knights_tour_bench.py --benchmark-enable``.
Goals: CP-SAT >= 20x faster than Z3 PbEq on 8x8; 50x50 closed < 3 s by CP-SAT;
the constructive reference closes 1000x1000 in < 2 s (build + solve).
"""

from __future__ import annotations

import pytest

from models.base import SOLVED, Limits, Outcome
from models.knights_tour.rules import Board
from models.registry import encodings, get_puzzle

KT = get_puzzle("knights_tour")


def _solve(encoding: str, board: Board, limit: float = 120.0) -> Outcome:
    enc = encodings()["knights_tour"][encoding]()
    limits = Limits(time_limit_s=limit, seed=0, threads=1)
    enc.build(board, limits)
    outcome = enc.solve(limits)
    assert outcome.status == SOLVED
    return outcome


@pytest.mark.parametrize("encoding", ["circuit-cpsat", "pbeq-z3"])
def test_closed_8x8(benchmark, encoding: str) -> None:
    outcome = benchmark.pedantic(_solve, args=(encoding, Board(8, 8)), rounds=3, iterations=1)
    assert KT.verify(Board(8, 8), outcome.solution) is None


def test_cpsat_closed_50x50(benchmark) -> None:
    outcome = benchmark.pedantic(_solve, args=("circuit-cpsat", Board(50, 50)), rounds=3)
    assert KT.verify(Board(50, 50), outcome.solution) is None


def test_reference_closed_1000x1000(benchmark) -> None:
    board = Board(1000, 1000)
    outcome = benchmark.pedantic(_solve, args=("warnsdorff", board), rounds=3)
    assert KT.verify(board, outcome.solution) is None


def test_verifier_1000x1000(benchmark) -> None:
    board = Board(1000, 1000)
    outcome = _solve("warnsdorff", board)
    assert benchmark(KT.verify, board, outcome.solution) is None
