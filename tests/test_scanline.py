"""scanline-numba: the complete search finds every cover once (never a false
"infeasible"), the corner rules keep every cover in which no path touches itself, the
proofs hold, the counters repeat, and ``assume_unique`` never proves anything."""

from __future__ import annotations

import glob
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from models import registry
from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits
from models.errors import UsageError
from models.numberlink.encodings import _scanline as sl
from models.numberlink.encodings._race import Member
from models.numberlink.encodings._scanline_memo import FIRST_ENTRIES
from models.numberlink.encodings.degree_sat import DegreeSat
from models.numberlink.encodings.scanline_numba import (
    BACKUP_AFTER,
    COMPLETE_NODES,
    MEMO_CELLS,
    PARTNER_AFTER,
    RACE_NODES,
    ScanlineNumba,
    ScanSearch,
)
from models.numberlink.generate import generate
from models.numberlink.rules import Board, parse
from models.numberlink.verify import verify
from tests.test_pathsearch import _count_sat, _random_board

ORDERS = ("diagonal", "rows")


def _load(spec: str) -> Board:
    return registry.load_instance(spec, "numberlink").instance


def _solve(board: Board, **options) -> tuple[str, dict | None, dict]:
    enc = ScanlineNumba(options)
    enc.build(board, Limits())
    out = enc.solve(Limits(time_limit_s=10))
    return out.status, out.solution, out.counters


def _covers(
    board: Board, order: str, unique: bool, memo: bool = True, nest: bool = True, cap: int = 40
) -> list:
    search, out = ScanSearch(board, order, unique, memo, nest), []
    while len(out) < cap and search.next_solution(None) == sl.SOLVED:
        paths = search.paths()
        assert verify(board, {"paths": paths}) is None
        out.append(json.dumps(paths, sort_keys=True))
    return out


def _touches(paths: dict) -> bool:
    """Some path has two neighbouring cells that are not consecutive on it."""
    for cells in paths.values():
        index = {tuple(c): i for i, c in enumerate(cells)}
        for (r, c), i in index.items():
            for q in ((r + 1, c), (r, c + 1)):
                if q in index and abs(index[q] - i) != 1:
                    return True
    return False


def _boards(seed: int, count: int) -> list[Board]:
    rng = random.Random(seed)
    return [
        rng.choice([_random_board(rng), generate(rng.randint(3, 5), 5, rng.randrange(99))])
        for _ in range(count)
    ]


@pytest.mark.parametrize("order", ORDERS)
def test_every_cover_found_exactly_once_on_random_small_boards(order: str) -> None:
    for k, board in enumerate(_boards(11, 150)):
        covers = _covers(board, order, False, memo=k % 2 == 0, nest=k % 3 != 0, cap=30)
        assert len(covers) == len(set(covers)) == _count_sat(board, 30), board


@pytest.mark.parametrize("order", ORDERS)
def test_corner_rules_keep_every_cover_without_touches(order: str) -> None:
    """The rules of assume_unique only remove covers in which a path touches itself."""
    kept_some = cut_some = 0
    for board in _boards(5, 150):
        every = _covers(board, order, False)
        if len(every) == 40:
            continue  # too many to list: compare only boards enumerated in full
        kept = set(_covers(board, order, True))
        assert kept <= set(every)
        for cover in every:
            if not _touches(json.loads(cover)):
                assert cover in kept, board
        kept_some += len(kept)
        cut_some += len(every) - len(kept)
    assert kept_some and cut_some  # the test saw the rules keep and cut


def test_infeasible_boards_are_proved_and_public_set_agrees_with_degree_sat() -> None:
    for path in sorted(glob.glob("instances/numberlink/infeasible/*.txt")):
        for options in ({}, {"order": "rows"}, {"untouched_first": False}):
            assert _solve(_load(path), **options)[0] == INFEASIBLE, path
    for path in sorted(glob.glob("instances/numberlink/public/*.txt")):
        board = _load(path)
        sat = DegreeSat({})
        sat.build(board, Limits())
        expected = sat.solve(Limits(time_limit_s=10)).status
        status, solution, _ = _solve(board)
        assert status == expected, path
        if status == SOLVED:
            assert verify(board, solution) is None


def test_parity_and_nesting_cut_early() -> None:
    """The chessboard count proves the parity boards at the first cell; the nesting rule
    refutes crossing joins long before the pieces meet (same answer, fewer cells)."""
    for path in sorted(glob.glob("instances/numberlink/infeasible/[ps][ah]*.txt")):
        search = ScanSearch(_load(path), "diagonal", False, True)
        assert search.next_solution(None) == sl.EXHAUSTED
        assert search.counters()["nodes"] == 1, path
    for name in ("w_10x10_s15", "w_10x10_s2"):
        board = _load(f"instances/numberlink/winding/{name}.txt")
        nodes = []
        for nest in (True, False):
            search = ScanSearch(board, "diagonal", False, True, nest)
            assert search.next_solution(None) == sl.SOLVED
            assert verify(board, {"paths": search.paths()}) is None
            nodes.append(search.counters()["nodes"])
        assert 3 * nodes[0] < nodes[1], nodes


def test_assume_unique_never_claims_infeasible() -> None:
    status, _, counters = _solve(
        _load("instances/numberlink/infeasible/crossing_3x3.txt"), assume_unique=True
    )
    assert status == TIMEOUT and counters["exhausted"] == 1
    # unique covers that make a U-turn: the rules cut them, the complete search does not
    for text in ("1.\n1.\n", "1..\n1..\n"):
        board = parse(text)
        assert _solve(board)[0] == SOLVED
        assert _solve(board, untouched_first=False)[0] == SOLVED
        assert _solve(board, assume_unique=True)[0] == TIMEOUT


def test_winding_board_answered_by_the_corner_rules() -> None:
    """On a winding board (paths never touch themselves) the corner rules answer with far
    fewer cells entered than the complete search alone; the default race answers from
    them; both orders."""
    board = _load("instances/numberlink/winding/w_12x12_s1.txt")
    for order in ORDERS:
        status, solution, fast = _solve(board, order=order, assume_unique=True)
        assert status == SOLVED and verify(board, solution) is None
        status, solution, raced = _solve(board, order=order)
        assert status == SOLVED and verify(board, solution) is None
        assert raced["untouched"] == 1
        status, _, alone = _solve(board, order=order, untouched_first=False)
        assert fast["nodes"] * 10 < alone["nodes"] or status == TIMEOUT


def test_no_touch_refused_at_each_cell() -> None:
    """The corner search refuses a cell next to a decided cell of its own path that it is
    not joined to: on a winding 25x25 it enters fewer than half the cells it needed with
    the corner rules alone (13,514), and its cover is a cover without touches."""
    board = _load("tests/boards/winding_25x25_old.txt")  # the winding set's first 25x25
    search = ScanSearch(board, "diagonal", True, False)
    assert search.next_solution(None) == sl.SOLVED
    paths = search.paths()
    assert verify(board, {"paths": paths}) is None and not _touches(paths)
    assert search.counters()["nodes"] < 13_514 // 2


def test_no_touch_checked_as_soon_as_the_edge_is_decided() -> None:
    """A cell's east and south neighbours it is not joined to are checked against its path
    when the cell is decided, not at the neighbour's turn: on a published-style 25x25
    the corner search enters 2,476 cells (4,565 when checked at the neighbour's turn),
    and its cover has no touch."""
    board = _load("instances/numberlink/published-style/p_25x25_s8.txt")
    search = ScanSearch(board, "diagonal", True, False)
    assert search.next_solution(None) == sl.SOLVED
    paths = search.paths()
    assert verify(board, {"paths": paths}) is None and not _touches(paths)
    assert search.counters()["nodes"] < 3_000


def test_counters_repeat_whatever_the_chunking() -> None:
    board = _load("instances/numberlink/public/9x9_ha_7c_020.txt")
    whole = ScanSearch(board)
    assert whole.next_solution(None) == sl.SOLVED
    chunked = ScanSearch(board)
    code = sl.BUDGET
    while code == sl.BUDGET:
        code = chunked.step(7)
    assert code == sl.SOLVED
    assert whole.counters() == chunked.counters()
    assert whole.paths() == chunked.paths()
    assert _solve(board) == _solve(board)
    # the failed-state store grows at a point the search fixes, not the chunking
    board = _load("instances/numberlink/winding/w_13x13_s1.txt")
    whole = ScanSearch(board)
    assert whole.next_solution(None) == sl.SOLVED
    assert whole.counters()["stored"] > FIRST_ENTRIES and len(whole.keys) > FIRST_ENTRIES
    chunked = ScanSearch(board)
    code = sl.BUDGET
    while code == sl.BUDGET:
        code = chunked.step(777)
    assert code == sl.SOLVED and whole.counters() == chunked.counters()


def test_check_unique() -> None:
    paths = sorted(glob.glob("instances/numberlink/winding/w_8x8_s*.txt"))[:6]
    paths += ["instances/numberlink/unique/u_10x10_s1.txt"]
    for path in paths:
        enc = ScanlineNumba({})
        enc.build(_load(path), Limits())
        assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
        assert enc.check_unique(Limits(time_limit_s=10)) is True, path
    for options in ({}, {"untouched_first": False}):
        enc = ScanlineNumba(options)
        enc.build(parse("3 0 0 1\n0 0 1 2\n3 2 0 0\n"), Limits())  # several covers
        assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
        assert enc.check_unique(Limits(time_limit_s=10)) is False


def test_huge_board_runs_without_the_store() -> None:
    """Keys hold positions as int16: a board of more cells runs without the store (an
    overflowing position would merge two states and could cut a cover)."""
    board = parse("1 " + "0 " * (MEMO_CELLS + 8) + "1\n")
    search = ScanSearch(board)
    assert search.meta[sl.MEMO] == 0
    assert search.next_solution(None) == sl.SOLVED
    assert verify(board, {"paths": search.paths()}) is None
    assert ScanSearch(_load("instances/numberlink/winding/w_8x8_s1.txt")).meta[sl.MEMO] == 1


@pytest.mark.parametrize("option", [[], ["--option", "assume_unique=true"]])
def test_bench_solve_command(option: list[str]) -> None:
    """As a user types it: the console script, JSON out, the answer verified; a boolean
    option spelled as in TOML and JSON (``true``)."""
    out = subprocess.run(
        [
            str(Path(sys.executable).with_name("bench")),  # this venv's console script
            "solve",
            "instances/numberlink/winding/w_14x14_s1.txt",
            "--encoding",
            "scanline-numba",
            "--time-limit",
            "10",
            "--json",
            *option,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["status"] == SOLVED and record["verified"] is True
    assert record["counters"]["nodes"] > 0
    assert record["options"]["assume_unique"] is bool(option)


def test_boolean_options_match_true_and_false_in_any_case() -> None:
    for typed, meant in (("true", True), ("TRUE", True), ("False", False), ("false", False)):
        assert ScanlineNumba.match_option("assume_unique", typed) is meant
    with pytest.raises(UsageError, match="not one of"):
        ScanlineNumba.match_option("assume_unique", "yes")


def test_dense_touching_board_answered_by_the_backup() -> None:
    """On a dense 25x25 whose cover touches itself the corner rules find nothing and the
    complete scan search alone runs out of 10 s; pathsearch's complete search, joining
    the turns once the scan searches stall, answers in a few hundred decisions."""
    board = _load("instances/numberlink/unique/u_25x25_s1.txt")
    status, solution, counters = _solve(board)
    assert status == SOLVED and verify(board, solution) is None
    assert counters["backup"] == 1 and counters["backup_nodes"] < 2_000
    turn = RACE_NODES + COMPLETE_NODES  # one turn each of the two scan searches
    assert counters["nodes"] <= turn + BACKUP_AFTER  # it joined after BACKUP_AFTER cells


def test_the_complete_search_takes_short_turns_beside_the_corner_search() -> None:
    """The race's turns are about equal in time, not in cells: on the proved-unique
    50x50 of winding-large the corner search (without its partner, the clauses) answers
    after 432,674 cells, and the complete scan search spends a quarter of that beside it
    (1,250 cells a turn against 5,000), not as much again; the backup, joined after
    BACKUP_AFTER cells, never answers."""
    board = _load("instances/numberlink/winding-large/wl_50x50_s1.txt")
    enc = ScanlineNumba({})
    enc.build(board, Limits())
    enc.make_partners = None
    out = enc.solve(Limits(time_limit_s=20))
    assert out.status == SOLVED and verify(board, out.solution) is None
    assert out.counters["untouched"] == 1 and out.counters["backup"] == 0
    assert out.counters["nodes"] == 432_674 + 432_674 // RACE_NODES * COMPLETE_NODES


@pytest.mark.parametrize("assume_unique", [False, True])
def test_the_corner_rules_as_clauses_answer_where_the_corner_search_thrashes(
    assume_unique: bool,
) -> None:
    """On a board planted at people's density (50x50, 65 pairs) the corner search is
    stuck on parallel strands that can only turn together; its partner, degree-sat's CNF
    with the same rules as clauses, joins after PARTNER_AFTER cells and answers in about
    10,000 conflicts, in both modes (its cover is a full cover either way)."""
    board = _load("instances/numberlink/planted/p_50x50_s1_d74.txt")
    status, solution, counters = _solve(board, assume_unique=assume_unique)
    assert status == SOLVED and verify(board, solution) is None
    assert counters["corner_sat"] == 1 and counters["corner_sat_conflicts"] < 50_000
    assert counters.get("untouched", 0) == 0 and counters["nodes"] >= PARTNER_AFTER


def _member(enc: ScanlineNumba, name: str):
    return next(m.search for m in enc.backups if m.name == name)


def test_backups_prove_and_enumerate_soundly() -> None:
    """The backup and the CNF are complete: with them joining at once, boards with no
    cover are proved infeasible, and check_unique continues the complete search that
    answered (the path search) or enumerates with the scan search (after the CNF's or the
    local fill's cover)."""

    def raced(board: Board) -> ScanlineNumba:
        enc = ScanlineNumba({})
        enc.build(board, Limits())
        enc.backup_after = 0
        return enc

    for path in sorted(glob.glob("instances/numberlink/infeasible/*.txt")):
        enc = raced(_load(path))
        assert enc.solve(Limits(time_limit_s=10)).status == INFEASIBLE, path
    several = raced(parse("3 0 0 1\n0 0 1 2\n3 2 0 0\n"))
    several.race_nodes = several.search_nodes = 1  # the scan searches crawl: a backup answers
    assert several.solve(Limits(time_limit_s=10)).status == SOLVED
    assert several.found in [m.search for m in several.backups]
    assert several.check_unique(Limits(time_limit_s=10)) is False
    answered = set()
    for path in sorted(glob.glob("instances/numberlink/unique/u_1[05]x*.txt")):
        enc = raced(_load(path))
        enc.race_nodes = enc.search_nodes = 1  # the scan searches crawl: a backup answers
        out = enc.solve(Limits(time_limit_s=10))
        assert out.status == SOLVED and verify(_load(path), out.solution) is None
        answered |= {m.name for m in enc.backups if m.search is enc.found}
        assert enc.check_unique(Limits(time_limit_s=10)) is True, path
    assert answered


SEVERAL = "3 0 0 1\n0 0 1 2\n3 2 0 0\n"  # a board with several covers
ONE = "instances/numberlink/winding/w_8x8_s1.txt"  # proved unique


@pytest.mark.parametrize(
    ("name", "board", "unique"),
    [
        ("backup", SEVERAL, False),
        ("backup", ONE, True),
        ("sat", SEVERAL, False),
        ("sat", ONE, True),
        ("fill", SEVERAL, False),  # (the fill gives up on the unique board: no cover)
        ("corner_sat", "0 0 0 0\n0 1 1 0\n0 0 0 0\n", False),  # (SEVERAL's covers all touch)
        ("corner_sat", ONE, True),
    ],
)
def test_check_unique_after_each_member_answered(name: str, board: str, unique: bool) -> None:
    """Whichever member found the cover (the others left out, the scan searches
    crawling), check_unique tells a board with several covers from one with a single
    cover: it continues the path search, or enumerates with the scan search and compares
    covers path by path (a member may walk a path from its other end)."""
    enc = ScanlineNumba({})
    enc.build(_load(board) if board.endswith(".txt") else parse(board), Limits())
    backups, partners = enc.make_backups, enc.make_partners
    enc.make_backups = lambda: [m for m in backups() if m.name == name]
    enc.make_partners = lambda: [m for m in partners() if m.name == name]
    enc.backup_after = enc.partner_after = 0
    enc.race_nodes = enc.search_nodes = 1
    out = enc.solve(Limits(time_limit_s=10))
    assert out.status == SOLVED and out.counters[name] == 1, out.counters
    assert enc.check_unique(Limits(time_limit_s=10)) is unique


class _GivesUp:
    """A race member that is out of moves at once (as the local fill is on a board it
    cannot fill)."""

    def step(self, budget: int) -> int:
        return sl.EXHAUSTED

    def counters(self) -> dict[str, float]:
        return {}


def test_an_incomplete_member_giving_up_is_no_proof() -> None:
    """Only a complete search's exhaustion proves infeasible: an incomplete member that
    gives up leaves the race, and the answer comes from the others."""
    board = _load("instances/numberlink/winding/w_10x10_s1.txt")
    enc = ScanlineNumba({})
    enc.build(board, Limits())
    enc.backup_after = 0
    enc.race_nodes = enc.search_nodes = 1  # the quitter's turn comes before any answer
    enc.make_backups = lambda: [Member("quitter", _GivesUp(), 1, False)]
    out = enc.solve(Limits(time_limit_s=10))
    assert out.status == SOLVED and verify(board, out.solution) is None
    assert out.counters["quitter"] == 0 and out.counters["nodes"] > 2  # it ran on
    proving = ScanlineNumba({})
    proving.build(board, Limits())
    proving.backup_after = 0
    proving.race_nodes = proving.search_nodes = 1
    proving.make_backups = lambda: [Member("quitter", _GivesUp(), 1, True)]
    assert proving.solve(Limits(time_limit_s=10)).status == INFEASIBLE  # what "complete" means


@pytest.mark.parametrize(
    ("spec", "member"),
    [
        ("gen:numberlink:20x20:2:pairs=8", "fill"),  # few long paths: the local fill
        ("instances/numberlink/unique/u_50x50_s1.txt", "sat"),  # dense, touching: the CNF
    ],
)
def test_boards_the_scan_searches_cannot_answer_go_to_a_backup(spec: str, member: str) -> None:
    """Covers that touch themselves leave the corner rules nothing to find and the
    complete scan search thrashes: on a generated 20x20 with eight pairs the local fill
    finds a cover, on the dense 50x50 of unique/ the CNF (both 0.2-1 s here, out of time
    before they joined the race)."""
    board = _load(spec)
    status, solution, counters = _solve(board)
    assert status == SOLVED and verify(board, solution) is None
    assert counters[member] == 1 and counters["untouched"] == 0
