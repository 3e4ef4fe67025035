"""Knight's-tour speed goals as pytest-benchmark cases (``--benchmark-enable`` to time them).

Goals: CP-SAT >= 20x faster than Z3 PbEq on 8x8; 50x50 closed < 3 s by CP-SAT; the
constructive reference closes 1000x1000 in < 2 s (build + solve). Goals are reported in
extra_info, never asserted; the 20x ratio is read from the two 8x8 cases side by side.
"""

from __future__ import annotations

import pytest

from models.knights_tour.rules import Board
from models.registry import get_puzzle
from tests.benchmarks.conftest import harness_case

KT = get_puzzle("knights_tour")


@pytest.mark.parametrize("encoding", ["circuit-cpsat", "pbeq-z3"])
def test_closed_8x8(benchmark, encoding: str) -> None:
    harness_case(benchmark, "knights_tour", "gen:knights_tour:8x8:0", encoding)


def test_cpsat_closed_50x50(benchmark) -> None:
    harness_case(benchmark, "knights_tour", "gen:knights_tour:50x50:0", "circuit-cpsat", goal_s=3.0)


def test_reference_closed_1000x1000(benchmark) -> None:
    harness_case(
        benchmark, "knights_tour", "gen:knights_tour:1000x1000:0", "warnsdorff", goal_s=2.0
    )


def test_verifier_1000x1000(benchmark) -> None:
    """The checker alone (it runs in the sweep's parent after every run). Only timed: that
    it accepts a 1000x1000 tour is checked by the harness in the case above."""
    if benchmark.disabled:
        pytest.skip("timing only: run with --benchmark-enable")
    from models.knights_tour.construct import stitched_tour

    board = Board(1000, 1000)
    squares, _ = stitched_tour(1000, 1000)
    solution = {"tour": [[int(s) // 1000, int(s) % 1000] for s in squares]}
    assert benchmark(KT.verify, board, solution) is None
