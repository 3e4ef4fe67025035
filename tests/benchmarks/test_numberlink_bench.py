"""Numberlink speed goals (issue 3) as pytest-benchmark cases; disabled by default.

Run with ``pytest tests/benchmarks/test_numberlink_bench.py --benchmark-enable``.
Goals: every encoding solves the seed board in < 10 s (flow MIP < 5 s); the fastest
encoding solves generated 20x20 boards in < 2 s and 30x30 in < 10 s. The figures
reached are in instances/numberlink/README.md (``python -m models.numberlink.speed``).
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


def _slow(benchmark) -> None:
    """Cases of a minute or more run only with --benchmark-enable, not in plain pytest."""
    if benchmark.disabled:
        pytest.skip("slow benchmark: run with --benchmark-enable")


@pytest.mark.parametrize(
    "encoding",
    ["degree-sat", "circuit-cpsat", "routes-cpsat", "degree-z3", "flow-cpsat", "frontier-search"],
)
def test_seed_board(benchmark, encoding: str) -> None:
    benchmark.pedantic(_solve, args=(encoding, SEED_BOARD), rounds=3, iterations=1)


@pytest.mark.parametrize(
    "encoding",
    [
        "flow-mip-highs",
        pytest.param(
            "flow-mip-cbc", marks=pytest.mark.xfail(reason="CBC: over 60 s on the seed board")
        ),
    ],
)
def test_seed_board_mip(benchmark, encoding: str) -> None:
    _slow(benchmark)
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
    benchmark.pedantic(
        _solve, args=("degree-sat", path), kwargs={"colour": "binary"}, rounds=3, iterations=1
    )


@pytest.mark.xfail(reason="goal < 10 s not met: 25-40 s or more (README)", strict=False)
def test_degree_sat_30x30(benchmark) -> None:
    _slow(benchmark)
    spec = str(ROOT / "instances/numberlink/generated/gen_30x30_p90_s1.txt")
    outcome = benchmark.pedantic(
        _solve, args=("degree-sat", spec, 120.0), kwargs={"colour": "binary"}, rounds=1
    )
    assert benchmark.stats.stats.median < 10, outcome
