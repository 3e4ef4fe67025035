"""pathsearch-numba: its rules are sound (never a false "infeasible", every cover found
once), its proofs hold, its counters repeat, and ``assume_unique`` never proves anything."""

from __future__ import annotations

import glob
import random

import pytest
from pysat.solvers import Solver

from models import registry
from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits
from models.numberlink.encodings import _pathsearch as ps
from models.numberlink.encodings._common import cycles_without_ends
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.encodings.pathsearch_numba import PathSearch, PathSearchNumba
from models.numberlink.encodings.race_numba_sat import RaceNumbaSat
from models.numberlink.generate import generate
from models.numberlink.rules import Board, parse
from models.numberlink.verify import verify


def _load(spec: str) -> Board:
    return registry.load_instance(spec, "numberlink").instance


def _solve(board: Board, **options) -> tuple[str, dict | None, dict]:
    enc = PathSearchNumba(options)
    enc.build(board, Limits())
    out = enc.solve(Limits(time_limit_s=10))
    return out.status, out.solution, out.counters


def _count_ps(board: Board, cap: int) -> int:
    search, count = PathSearch(board), 0
    while count < cap and search.next_solution(None) == ps.SOLVED:
        assert verify(board, {"paths": search.paths()}) is None
        count += 1
    return count


def _count_sat(board: Board, cap: int) -> int:
    """Full covers by SAT enumeration (degree-sat's clauses, cycles cut, each cover blocked)."""
    enc = DegreeSat({})
    enc.build(board, Limits())
    count = 0
    with Solver(name="glucose4", bootstrap_with=enc.cnf) as sat:
        while count < cap and sat.solve():
            model = sat.get_model()
            used = [i for i, x in enumerate(enc.e) if model[x - 1] > 0]
            cycles = cycles_without_ends(enc.grid, used)
            for cells in cycles:
                for clause in enc._cuts(enc.grid, cells, used):
                    sat.add_clause(clause)
            if not cycles:
                count += 1
                sat.add_clause([-enc.e[i] for i in used])
    return count


def _random_board(rng: random.Random) -> Board:
    rows, cols = rng.randint(2, 5), rng.randint(2, 5)
    k = rng.randint(1, max(1, rows * cols // 4))
    cells = rng.sample([(r, c) for r in range(rows) for c in range(cols)], 2 * k)
    grid: list[list[str | None]] = [[None] * cols for _ in range(rows)]
    for i, (r, c) in enumerate(cells):
        grid[r][c] = str(i // 2 + 1)
    return Board(rows, cols, tuple(tuple(x) for x in grid))


def test_every_cover_found_exactly_once_on_random_small_boards() -> None:
    rng = random.Random(11)
    for _ in range(150):
        board = rng.choice([_random_board(rng), generate(rng.randint(3, 5), 5, rng.randrange(99))])
        assert _count_ps(board, 30) == _count_sat(board, 30), board


@pytest.mark.parametrize(
    "spec",
    [
        "gen:numberlink:7x7:1:pairs=3",
        "gen:numberlink:8x8:2:pairs=2",
        "gen:numberlink:6x9:3:pairs=1",
    ],
)
def test_boards_with_many_solutions_are_solved(spec: str) -> None:
    board = _load(spec)
    status, solution, _ = _solve(board)
    assert status == SOLVED and verify(board, solution) is None
    assert _count_ps(board, 3) >= 2  # many covers: none may be cut by a rule


def test_infeasible_boards_are_proved() -> None:
    for path in sorted(glob.glob("instances/numberlink/infeasible/*.txt")):
        assert _solve(_load(path))[0] == INFEASIBLE, path


def test_agrees_with_degree_sat_on_the_public_set() -> None:
    for path in sorted(glob.glob("instances/numberlink/public/*.txt")):
        board = _load(path)
        sat = DegreeSat({})
        sat.build(board, Limits())
        expected = sat.solve(Limits(time_limit_s=10)).status
        status, solution, _ = _solve(board)
        assert status == expected, path
        if status == SOLVED:
            assert verify(board, solution) is None


def test_check_unique() -> None:
    small = "instances/numberlink/published-style/p_8x8_s*.txt"
    for path in sorted(glob.glob("instances/numberlink/unique/u_1[02]x*.txt") + glob.glob(small)):
        enc = PathSearchNumba({})
        enc.build(_load(path), Limits())
        assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
        assert enc.check_unique(Limits(time_limit_s=10)) is True, path
    enc = PathSearchNumba({})
    enc.build(_load("gen:numberlink:7x7:1:pairs=3"), Limits())
    assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
    assert enc.check_unique(Limits(time_limit_s=10)) is False


def test_assume_unique_never_claims_infeasible() -> None:
    status, _, counters = _solve(
        _load("instances/numberlink/infeasible/crossing_3x3.txt"), assume_unique=True
    )
    assert status == TIMEOUT and counters["exhausted"] == 1
    # a board whose only covers make a path touch itself: the rule cuts them all
    board = parse("1.\n1.\n")
    assert _solve(board)[0] == SOLVED
    assert _solve(board, assume_unique=True)[0] == TIMEOUT


def test_counters_repeat_whatever_the_chunking() -> None:
    board = _load("instances/numberlink/public/9x9_ha_7c_020.txt")
    whole = PathSearch(board)
    assert whole.next_solution(None) == ps.SOLVED
    chunked = PathSearch(board)
    code = ps.BUDGET
    while code == ps.BUDGET:
        code = chunked.step(7)
    assert code == ps.SOLVED
    assert whole.counters() == chunked.counters()
    assert whole.paths() == chunked.paths()


def test_untouched_first_answers_from_the_rule_and_proves_only_when_complete() -> None:
    """Default ``untouched_first``: on boards whose cover never touches itself the search
    with the rule answers (far fewer decisions than the complete one alone); a board
    whose only cover touches itself is still solved, and boards with no cover are still
    proved infeasible, by the complete search."""
    board = _load("instances/numberlink/published-style/p_12x12_s3.txt")
    status, solution, counters = _solve(board)
    assert status == SOLVED and verify(board, solution) is None
    assert counters["untouched"] == 1
    alone = _solve(board, untouched_first=False)[2]
    assert counters["nodes"] < alone["nodes"]
    status, _, counters = _solve(parse("1.\n1.\n"))
    assert status == SOLVED and counters["untouched"] == 0
    for path in sorted(glob.glob("instances/numberlink/infeasible/*.txt")):
        assert _solve(_load(path))[0] == INFEASIBLE, path


def test_check_unique_after_an_untouched_answer() -> None:
    """The answer came from the search with the rule: uniqueness is still decided by the
    complete search (a board with many covers is not unique)."""
    enc = PathSearchNumba({})
    enc.build(parse("3 0 0 1\n0 0 1 2\n3 2 0 0\n"), Limits())  # several covers
    assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
    assert enc.found is enc.untouched
    assert enc.check_unique(Limits(time_limit_s=10)) is False
    enc = PathSearchNumba({})
    enc.build(_load("instances/numberlink/published-style/p_8x8_s1.txt"), Limits())
    assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
    assert enc.found is enc.untouched
    assert enc.check_unique(Limits(time_limit_s=10)) is True


def test_check_unique_without_an_answer_is_undecided() -> None:
    enc = PathSearchNumba({})
    enc.build(_load("instances/numberlink/infeasible/crossing_3x3.txt"), Limits())
    assert enc.solve(Limits(time_limit_s=10)).status == INFEASIBLE
    assert enc.check_unique(Limits(time_limit_s=10)) is None


def _race(board: Board) -> tuple[str, dict | None, dict]:
    enc = RaceNumbaSat({})
    enc.build(board, Limits())
    out = enc.solve(Limits(time_limit_s=10))
    return out.status, out.solution, out.counters


def test_race_numba_sat_answers_from_whichever_side_is_first_and_repeats() -> None:
    """race-numba-sat: a board the path search answers in its first turn never builds
    the CNF (no conflict); one where it stalls is answered by SAT; counters repeat;
    boards with no cover are proved by either side."""
    board = _load("instances/numberlink/published-style/p_12x12_s3.txt")
    status, solution, counters = _race(board)
    assert status == SOLVED and verify(board, solution) is None
    assert counters["won_by_search"] == 1 and counters["conflicts"] == 0
    board = _load("gen:numberlink:15x15:1:pairs=6")
    status, solution, counters = _race(board)
    assert status == SOLVED and verify(board, solution) is None
    assert counters["won_by_search"] == 0 and counters["conflicts"] > 0
    assert _race(board)[2] == counters
    for path in sorted(glob.glob("instances/numberlink/infeasible/*.txt")):
        assert _race(_load(path))[0] == INFEASIBLE, path
