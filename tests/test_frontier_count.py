"""The exact cover count by frontier DP (models/numberlink/frontier_count.py) and the
uniqueness proof built on it (scripts/winding_prove.py, ``prove_unique_dp``), checked
against SAT enumeration (degree-sat's clauses) and the SAT backbone proof."""

from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path

import pytest

from models.numberlink.frontier_count import count_covers
from models.numberlink.generate import generate, generate_with_solution
from models.numberlink.rules import Board, parse
from models.numberlink.verify import verify
from tests.test_pathsearch import _count_sat, _random_board

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from winding_prove import prove_unique, prove_unique_dp  # noqa: E402  (a script)


def _touches(paths) -> bool:
    """Some path has two neighbouring cells that are not consecutive on it."""
    for cells in paths:
        at = {tuple(c): i for i, c in enumerate(cells)}
        for (r, c), i in at.items():
            for q in ((r + 1, c), (r, c + 1)):
                if q in at and abs(at[q] - i) != 1:
                    return True
    return False


def test_the_count_is_the_sat_enumeration_capped_at_two() -> None:
    """300 random boards up to 6x6, in both orientations, with none, one and several
    covers: the count equals the number of covers SAT enumerates, capped at 2."""
    rng = random.Random(5)
    seen = {0: 0, 1: 0, 2: 0}
    for _ in range(300):
        board = rng.choice(
            [_random_board(rng), generate(rng.randint(3, 6), rng.randint(3, 6), rng.randrange(999))]
        )
        found, stats = count_covers(board)
        assert found == min(2, _count_sat(board, 2)), board
        assert stats["widest"] >= 1 and stats["made"] >= stats["widest"]
        seen[found] += 1
    assert min(seen.values()) >= 30, seen


def test_covers_that_touch_themselves_are_counted() -> None:
    """The 2x3 board whose one cover makes a U-turn, and planted covers with paths that
    touch themselves: the count sees them (a count of covers, not of puzzles' paths)."""
    u_turn = parse("1 0 0\n1 0 0\n")
    assert count_covers(u_turn)[0] == 1 == _count_sat(u_turn, 2)
    touching = 0
    for seed in range(40):
        board, planted = generate_with_solution(5, 5, seed, pairs=1 + seed % 2)
        paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
        if not _touches(paths):
            continue
        touching += 1
        assert count_covers(board, paths)[0] == min(2, _count_sat(board, 2)), seed
    assert touching >= 10


def test_the_proof_agrees_with_the_sat_proof_and_finds_the_other_cover() -> None:
    """On planted boards (many with other covers), counting alone (no SAT first, no
    cap) says "unique" exactly when the SAT backbone proof does; each "other" comes
    with a verified full cover that differs from the planted one."""
    verdicts = set()
    for seed in range(60):
        rows, cols = 4 + seed % 4, 4 + (seed // 4) % 4
        board, planted = generate_with_solution(rows, cols, seed, pairs=1 + seed % 3)
        paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
        verdict, other, stats = prove_unique_dp(board, paths, sat_first=0, state_cap=0)
        assert stats["prover"] == "count"
        assert verdict == prove_unique(board, paths)[0], seed
        verdicts.add(verdict)
        if verdict == "other":
            assert other is not None, seed
            cover = {
                label: [list(c) for c in q] for label, q in zip(board.ends, other, strict=True)
            }
            assert verify(board, {"paths": cover}) is None, seed
            mine = {frozenset(e) for p in paths for e in itertools.pairwise(p)}
            assert {frozenset(e) for p in other for e in itertools.pairwise(p)} != mine
    assert verdicts == {"unique", "other"}


def _edges(board: Board, paths) -> set[tuple[int, int]]:
    at = [sorted(r * board.cols + c for r, c in e) for p in paths for e in itertools.pairwise(p)]
    return {(u, v) for u, v in at}


def test_forced_edges_keep_exactly_the_covers_that_use_them() -> None:
    """Forcing the planted cover's own edges leaves it alone (count 1), forcing an edge
    it lacks on a unique board leaves none, on boards wider than tall too (the count
    turns them); forcing the edges SAT proved in every cover keeps the count and
    shrinks the widest layer."""
    for seed in range(40):
        rows, cols = 3 + seed % 4, 4 + seed % 5
        board, planted = generate_with_solution(rows, cols, seed, pairs=1 + seed % 3)
        paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
        mine = _edges(board, paths)
        assert count_covers(board, forced=mine)[0] == 1, seed
        found = count_covers(board)[0]
        proved: set[tuple[int, int]] = set()
        if (
            prove_unique(board, paths, first_conflicts=1, near_conflicts=0, proved=proved)[0]
            == "unique"
        ):
            assert found == 1 and proved <= mine
            every = {(u, u + d) for u in range(board.rows * board.cols) for d in (1, board.cols)}
            every = {(u, v) for u, v in every if v < board.rows * board.cols}
            every -= {
                (u, u + 1) for u in range(board.cols - 1, board.rows * board.cols, board.cols)
            }
            lacks = min(every - mine)
            assert count_covers(board, forced={lacks})[0] == 0, seed
        assert count_covers(board, forced=proved)[0] == found, seed
    path = ROOT / "instances/numberlink/winding/w_12x12_s1.txt"
    board = parse(path.read_text(), str(path))
    paths = [
        [tuple(c) for c in p]
        for p in json.loads(path.with_suffix(".sol.json").read_text())["paths"].values()
    ]
    proved = set()
    assert (
        prove_unique(
            board, paths, first_conflicts=1, near_conflicts=0, total_conflicts=200, proved=proved
        )[0]
        == "undecided"
    )
    assert 10 < len(proved) < len(_edges(board, paths))
    (alone, plain), (helped, fewer) = (
        count_covers(board, paths),
        count_covers(board, paths, forced=proved),
    )
    assert alone == helped == 1 and fewer["widest"] < plain["widest"]


def test_a_capped_count_gives_up_and_the_proof_falls_back_to_sat() -> None:
    board, planted = generate_with_solution(7, 7, 3, pairs=2)
    paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
    assert count_covers(board, paths, state_cap=5)[0] is None
    verdict, _, stats = prove_unique_dp(board, paths, sat_first=0, state_cap=5)
    assert stats["prover"] == "sat" and verdict == prove_unique(board, paths)[0]


def test_paths_that_are_no_cover_are_refused() -> None:
    board, planted = generate_with_solution(5, 5, 1, pairs=2)
    paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
    with pytest.raises(ValueError, match="not a full cover"):
        count_covers(board, [paths[0][:-1], *paths[1:]])
    with pytest.raises(ValueError, match="shorter side"):
        count_covers(Board(70, 70, tuple((None,) * 70 for _ in range(70))))
