"""The non-solver reference ``frontier-search``: real runs on small boards, checked by the
independent verifier and against ``degree-sat``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from models.base import Limits
from models.numberlink.rules import parse
from models.numberlink.verify import verify
from models.registry import encodings, load_instance

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "instances/numberlink/public"
INFEASIBLE = ROOT / "instances/numberlink/infeasible"
NAME = "frontier-search"


def run(board, limit: float | None = 20.0, **options):
    enc = encodings()["numberlink"][NAME](options)
    limits = Limits(time_limit_s=limit)
    enc.build(board, limits)
    return enc.solve(limits)


def test_registered_as_a_python_reference():
    cls = encodings()["numberlink"][NAME]
    assert cls.reference and cls.solver == "python"
    assert "Python" in cls.solver_version()


@pytest.mark.parametrize(
    "spec",
    [
        "instances/numberlink/generated/gen_10x10_p10_s1.txt",
        "gen:numberlink:6x9:2:pairs=5",
        "gen:numberlink:9x5:4:pairs=4",
        "gen:numberlink:3x400:1:pairs=12",  # 1200 cells deep: the recursion limit holds
    ],
)
def test_solves_and_verifies(spec):
    board = load_instance(spec, "numberlink").instance
    outcome = run(board)
    assert outcome.status == "solved", outcome.message
    assert verify(board, outcome.solution) is None
    assert outcome.counters["nodes"] > 0
    assert all(isinstance(v, (int, float)) for v in outcome.counters.values())


@pytest.mark.parametrize("name", ["crossing_3x3", "walled_5x5", "parity_4x4", "parity_6x6"])
def test_proves_infeasible(name):
    board = parse((INFEASIBLE / f"{name}.txt").read_text(), name)
    outcome = run(board)
    assert outcome.status == "infeasible", outcome.message
    assert outcome.solution is None


@pytest.mark.parametrize(
    "options",
    [{"memo": False}, {"nest": False}, {"scan": "cols"}, {"restart": 0}, {"restart": 1000}],
)
def test_options_keep_the_answers(options):
    board = parse((INFEASIBLE / "parity_6x6.txt").read_text(), "p")
    assert run(board, **options).status == "infeasible"
    board = parse((PUBLIC / "8x8_ra_6c_019.txt").read_text(), "p")
    outcome = run(board, **options)
    assert outcome.status == "solved" and verify(board, outcome.solution) is None


def test_agrees_with_degree_sat_on_the_public_set():
    boards = sorted(PUBLIC.glob("*.txt"))
    assert len(boards) == 20
    for path in boards:
        board = parse(path.read_text(), str(path))
        ours, theirs = run(board), run_other(board)
        assert ours.status == theirs.status, path.name
        if ours.status == "solved":
            assert verify(board, ours.solution) is None, path.name


def test_pruning_never_changes_the_answer():
    """The nesting rule against no rule, on small generated boards with one end moved
    (about half have no full cover)."""
    import random

    from models.numberlink.encodings._frontier import FrontierSearch
    from models.numberlink.generate import generate

    rng = random.Random(7)
    answers = set()
    for seed in range(60):
        rows, cols = rng.randint(4, 7), rng.randint(4, 7)
        board = generate(rows, cols, seed, pairs=rng.randint(2, rows * cols // 8))
        colour = [0] * (rows * cols)
        for k, ends in enumerate(board.ends.values()):
            for r, c in ends:
                colour[r * cols + c] = k + 1
        if seed % 2:
            end = rng.choice([v for v, k in enumerate(colour) if k])
            free = rng.choice([v for v, k in enumerate(colour) if not k])
            colour[free], colour[end] = colour[end], 0
        with_rule = FrontierSearch(rows, cols, colour, restart=0).run(None)
        without = FrontierSearch(rows, cols, colour, nest=False, restart=0).run(None)
        assert with_rule == without, (seed, colour)
        answers.add(with_rule)
    assert answers == {True, False}


def run_other(board):
    enc = encodings()["numberlink"]["degree-sat"]()
    limits = Limits(time_limit_s=20.0)
    enc.build(board, limits)
    return enc.solve(limits)


def test_seed_board_solves_with_the_same_counters_twice():
    board = load_instance("instances/numberlink/numberlink01.txt").instance
    first = run(board)
    assert first.status == "solved" and verify(board, first.solution) is None
    assert first.counters == run(board).counters
    assert first.counters["restarts"] >= 1  # the default restarts do happen on this board


def test_time_limit_is_honoured_on_a_big_board():
    board = load_instance("instances/numberlink/generated/gen_30x30_p18_s1.txt").instance
    start = time.monotonic()
    outcome = run(board, limit=0.3)
    elapsed = time.monotonic() - start
    assert outcome.status in ("timeout", "solved")
    if outcome.status == "solved":
        assert verify(board, outcome.solution) is None
    else:
        assert outcome.solution is None and outcome.counters["nodes"] > 0
    assert elapsed < 3.3  # the limit plus 3 s of slack
