"""Sudoku speed goals as pytest-benchmark cases (``--benchmark-enable`` to time them).

Goals: the best encoding's build+solve on Norvig's hardest well under 12 ms per puzzle
(the top1465 mean is a suite: models/sudoku/suites/sudoku.toml); a 25x25 Sudoku X filled half
or more in < 0.5 s. Goals are reported in extra_info, never asserted.
"""

from __future__ import annotations

import pytest

from models.registry import encodings
from tests.benchmarks.conftest import harness_case

NORVIG = "instances/sudoku/norvig-pytudes/sudoku-hardest.txt"


@pytest.mark.parametrize("encoding", sorted(encodings()["sudoku"]))
def test_norvig_hardest_1(benchmark, encoding: str) -> None:
    harness_case(benchmark, "sudoku", f"{NORVIG}#1", encoding, goal_s=0.012)


@pytest.mark.parametrize("fill", [40, 50, 60])
def test_x25_partly_filled(benchmark, fill: int) -> None:
    spec = f"instances/sudoku_x/25x25/fill{fill}-s1.txt"
    harness_case(benchmark, "sudoku_x", spec, "cnf-sat", goal_s=0.5 if fill >= 50 else None)
