"""bitset-numba, the compiled Sudoku reference: every answer passes the puzzle's own checker,
"infeasible" only where no solution exists, and it reaches the larger orders."""

from __future__ import annotations

import glob

import pytest

from models import registry
from models.base import INFEASIBLE, SOLVED, Limits
from models.sudoku.encodings.bitset_numba import BitsetNumba

TOP1465 = "instances/sudoku/tdoku-benchmark/puzzles3_magictour_top1465"
HARDEST = "instances/sudoku/tdoku-benchmark/puzzles6_forum_hardest_1106"


def _solve(spec: str, puzzle: str):
    loaded = registry.load_instance(spec, puzzle).instance
    encoding = BitsetNumba()
    encoding.build(loaded, Limits(time_limit_s=20))
    return loaded, encoding.solve(Limits(time_limit_s=20))


@pytest.mark.parametrize("spec", [f"{TOP1465}#{k}" for k in range(1, 1466, 37)]
                         + [f"{HARDEST}#{k}" for k in range(1, 376, 25)])  # fmt: skip
def test_hard_classic_grids_solved_and_verified(spec: str) -> None:
    loaded, outcome = _solve(spec, "sudoku")
    assert outcome.status == SOLVED
    assert registry.get_puzzle("sudoku").verify(loaded, outcome.solution) is None
    assert outcome.counters["nodes"] >= outcome.counters["backtracks"]


@pytest.mark.parametrize(
    "path",
    sorted(glob.glob("instances/sudoku_x/16x16/*-s1.txt"))
    + [f"instances/sudoku_x/25x25/{name}.txt" for name in ("empty", "fill50-s1", "fill60-s1")],
)
def test_sudoku_x_orders_four_and_five(path: str) -> None:
    """16x16 at every clue share; 25x25 where a plain depth-first search is quick (at 20-40%
    clues it takes tens of seconds, as dlx does: the suites give it its limit there)."""
    loaded, outcome = _solve(path, "sudoku_x")
    assert outcome.status == SOLVED
    assert registry.get_puzzle("sudoku_x").verify(loaded, outcome.solution) is None


@pytest.mark.parametrize(
    ("puzzle", "path"),
    [("sudoku", p) for p in sorted(glob.glob("instances/sudoku/infeasible/*.txt"))]
    + [("sudoku_x", p) for p in sorted(glob.glob("instances/sudoku_x/infeasible/*.txt"))],
)
def test_contradictions_proved_infeasible(puzzle: str, path: str) -> None:
    """Clashing clues, a cell with no candidate, a spoiled unique grid (found only by search)."""
    assert _solve(path, puzzle)[1].status == INFEASIBLE


def test_diagonal_rule_matters() -> None:
    """The classic grid that clashes only on a diagonal is solved as Sudoku, refuted as X."""
    path = "instances/sudoku_x/infeasible/diagonal-clash.txt"
    loaded, outcome = _solve(path, "sudoku")
    assert outcome.status == SOLVED
    assert registry.get_puzzle("sudoku").verify(loaded, outcome.solution) is None
    assert _solve(path, "sudoku_x")[1].status == INFEASIBLE
