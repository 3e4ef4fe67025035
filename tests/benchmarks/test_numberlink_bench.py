"""Numberlink speed goals as pytest-benchmark cases (``--benchmark-enable`` to time them).

Goals: every encoding solves the brief's board in < 10 s (flow MIP < 5 s); the fastest
encoding solves generated 20x20 boards in < 2 s and 30x30 in < 10 s; issue 23: unique
50x50 boards whose paths wind and never touch themselves in < 10 s complete and < 3 s with
``assume_unique`` (and the same on 50x50 boards planted at people's density, not proved
unique). Whether a run met
its goal is reported in the benchmark's extra_info; the sweeps behind the README's
figures are suites (models/numberlink/suites/).
"""

from __future__ import annotations

import pytest

from tests.benchmarks.conftest import harness_case

SEED_BOARD = "instances/numberlink/numberlink01.txt"


@pytest.mark.parametrize(
    "encoding",
    ["degree-sat", "circuit-cpsat", "routes-cpsat", "degree-z3", "flow-cpsat", "frontier-search"],
)
def test_seed_board(benchmark, encoding: str) -> None:
    harness_case(benchmark, "numberlink", SEED_BOARD, encoding, goal_s=10.0)


@pytest.mark.parametrize("encoding", ["flow-mip-highs", "flow-mip-cbc"])
def test_seed_board_mip(benchmark, encoding: str) -> None:
    harness_case(benchmark, "numberlink", SEED_BOARD, encoding, rounds=1, goal_s=5.0, slow=True)


@pytest.mark.parametrize(
    "spec",
    [
        "instances/numberlink/generated/gen_20x20_p40_s1.txt",
        "instances/numberlink/generated/gen_20x20_p40_s2.txt",
        "gen:numberlink:20x20:3:cut=even",
    ],
)
def test_degree_sat_20x20(benchmark, spec: str) -> None:
    harness_case(benchmark, "numberlink", spec, "degree-sat", goal_s=2.0, colour="binary")


def test_degree_sat_30x30(benchmark) -> None:
    spec = "instances/numberlink/generated/gen_30x30_p90_s1.txt"
    harness_case(benchmark, "numberlink", spec, "degree-sat", rounds=1, goal_s=10.0,
                 limit_s=120.0, slow=True, colour="binary")  # fmt: skip


@pytest.mark.parametrize(
    "spec",
    [
        "instances/numberlink/winding-large/wl_50x50_s1.txt",
        "instances/numberlink/winding-large/wl_50x50_s2.txt",
        "instances/numberlink/planted/p_50x50_s1_d74.txt",
    ],
)
@pytest.mark.parametrize(("assume_unique", "goal_s"), [(False, 10.0), (True, 3.0)])
def test_scanline_50x50(benchmark, spec: str, assume_unique: bool, goal_s: float) -> None:
    harness_case(benchmark, "numberlink", spec, "scanline-numba", goal_s=goal_s,
                 limit_s=20.0, assume_unique=assume_unique)  # fmt: skip
