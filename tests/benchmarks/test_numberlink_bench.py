"""Numberlink speed goals (issue 3) as pytest-benchmark cases; disabled by default.

Run with ``pytest tests/benchmarks/test_numberlink_bench.py --benchmark-enable``.
Goals: every encoding solves the seed board in < 10 s (flow MIP < 5 s); the fastest
encoding solves generated 20x20 boards in < 2 s and 30x30 in < 10 s. The figures
reached are in instances/numberlink/README.md (``scripts``: tests/benchmarks/nl_table.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.base import SOLVED, Limits, Outcome
from models.registry import encodings, get_puzzle, load_instance

NL = get_puzzle("numberlink")
ROOT = Path(__file__).resolve().parents[2]
SEED_BOARD = str(ROOT / "instances/numberlink/numberlink01.txt")


def _solve(encoding: str, spec: str, limit: float = 60.0, **options) -> Outcome:
    board = load_instance(spec, "numberlink").instance
    enc = encodings()["numberlink"][encoding](options)
    limits = Limits(time_limit_s=limit, seed=0, threads=1)
    enc.build(board, limits)
    outcome = enc.solve(limits)
    assert outcome.status == SOLVED, outcome.message
    assert NL.verify(board, outcome.solution) is None
    return outcome


@pytest.mark.parametrize("encoding", ["degree-sat", "circuit-cpsat", "degree-z3", "flow-cpsat"])
def test_seed_board(benchmark, encoding: str) -> None:
    benchmark.pedantic(_solve, args=(encoding, SEED_BOARD), rounds=3, iterations=1)


@pytest.mark.parametrize("encoding", ["flow-mip-highs", "flow-mip-cbc"])
def test_seed_board_mip(benchmark, encoding: str) -> None:
    benchmark.pedantic(_solve, args=(encoding, SEED_BOARD), rounds=1, iterations=1)


@pytest.mark.parametrize(
    "spec",
    [
        "instances/numberlink/generated/gen_20x20_p40_s1.txt",
        "instances/numberlink/generated/gen_20x20_p40_s2.txt",
        "gen:numberlink:20x20:3:cut=even",
    ],
)
def test_degree_sat_20x20(benchmark, spec: str) -> None:
    path = str(ROOT / spec) if not spec.startswith("gen:") else spec
    benchmark.pedantic(_solve, args=("degree-sat", path), rounds=3, iterations=1)
