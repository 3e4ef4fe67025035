"""Knight's tour: parsing, the checker against crafted wrong answers, the picture, the
construction, and what encodings do beyond solving (options, counters, timeouts)."""

from __future__ import annotations

import pytest

from models.base import SOLVED, TIMEOUT, Limits
from models.errors import InstanceError
from models.knights_tour import construct
from models.knights_tour.rules import Board
from models.registry import encodings, get_puzzle, load_instance

KT = get_puzzle("knights_tour")


def _squares(order, cols: int) -> list[list[int]]:
    return [[int(u) // cols, int(u) % cols] for u in order]


CLOSED_6 = _squares(construct.stitched_tour(6, 6)[0], 6)
OPEN_5_PATH = _squares(construct.warnsdorff(5, 5, False, 0, None, 100)[0] or [], 5)


# --- parse / format ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "board"),
    [
        ("8 8\n", Board(8, 8, True)),
        ("5 5 open\n", Board(5, 5, False)),
        ("# a comment\n\n  3   4   OPEN  # note\n\n", Board(3, 4, False)),
        ("1000 1000", Board(1000, 1000, True)),
    ],
)
def test_parse_and_round_trip(text: str, board: Board) -> None:
    assert KT.parse(text, "t") == board
    assert KT.parse(KT.format(board), "t") == board
    assert KT.size_of(board) == f"{board.rows}x{board.cols}"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("8 eight\n", 1, "not an integer"),
        ("\n0 8\n", 2, "below 1"),
        ("8 -3\n", 1, "below 1"),
        ("8 8 open extra\n", 1, "extra tokens"),
        ("8 8 closed\n", 1, "unknown word"),
        ("8\n", 1, "ROWS COLS"),
        ("8 8\n6 6\n", 2, "extra line"),
        ("", None, "empty"),
        ("# only a comment\n", None, "empty"),
    ],
)
def test_parse_errors_name_source_and_line(text: str, line: int | None, words: str) -> None:
    with pytest.raises(InstanceError) as err:
        KT.parse(text, "board.txt")
    assert err.value.source == "board.txt"
    assert err.value.line == line
    assert words in err.value.message


def test_generate_is_the_board_and_checks_params() -> None:
    assert KT.generate(6, 7, 3) == Board(6, 7, True)
    assert KT.generate(5, 5, 0, open=1) == Board(5, 5, False)
    assert load_instance("gen:knights_tour:8x10:1").instance == Board(8, 10)
    with pytest.raises(ValueError):
        KT.generate(5, 5, 0, colour=2)
    with pytest.raises(ValueError):
        KT.generate(0, 5, 0)


# --- the checker --------------------------------------------------------------------


def _swapped(tour: list, i: int, j: int) -> list:
    tour = [*tour]
    tour[i], tour[j] = tour[j], tour[i]
    return tour


@pytest.mark.parametrize(
    ("board", "tour", "words"),  # words None: accepted
    [
        (Board(6, 6), CLOSED_6, None),
        (Board(6, 6, closed=False), CLOSED_6, None),  # a closed tour serves open too
        (Board(6, 6), CLOSED_6[5:] + CLOSED_6[:5], None),  # still closed: a rotation is fine
        (Board(6, 6), _swapped(CLOSED_6, 3, 4), "not a knight move"),
        (Board(6, 6), [*CLOSED_6[:-1], CLOSED_6[0]], "twice"),
        (Board(6, 6), CLOSED_6[:-1], "squares"),  # a missing square
        (Board(6, 6), [*CLOSED_6[:-1], [6, 0]], "outside"),
        (Board(6, 6), [[-1, 0], *CLOSED_6[1:]], "outside"),
        (Board(5, 5, closed=False), OPEN_5_PATH, None),
        (Board(5, 5), OPEN_5_PATH, "closed tour required"),
        (Board(1, 1, closed=False), [[0, 0]], None),
        (Board(1, 1), [[0, 0]], "1x1"),
    ],
)
def test_verifier(board: Board, tour: list, words: str | None) -> None:
    problem = KT.verify(board, {"tour": tour})
    assert problem is None if words is None else words in (problem or ""), problem


@pytest.mark.parametrize(
    "solution",
    [
        None,
        [],
        {"paths": {}},
        {"tour": "a1 b3"},
        {"tour": [[0, 0]] * 35 + [[0]]},
        {"tour": [[0, 0]] * 35 + [[0, "1"]]},
        {"tour": [[0, 0]] * 35 + [[0, 1.0]]},
        {"tour": [[0, 0]] * 35 + [[0, 10**30]]},
        {"tour": [[0, 0]] * 35 + [None]},
    ],
)
def test_verifier_reports_malformed_answers_without_raising(solution: object) -> None:
    problem = KT.verify(Board(6, 6), solution)
    assert isinstance(problem, str) and problem


# --- draw and render ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "closed"), [(6, 6, True), (5, 5, False), (60, 60, True), (160, 160, True)]
)
def test_draw_saves_a_png(tmp_path, rows: int, cols: int, closed: bool) -> None:
    board = Board(rows, cols, closed)
    if closed:
        order = construct.stitched_tour(rows, cols)[0].tolist()
    else:
        order = construct.warnsdorff(rows, cols, False, 0, None, 100)[0]
    figure = KT.draw(board, {"tour": _squares(order, cols)})
    out = tmp_path / "tour.png"
    figure.savefig(out)
    assert out.stat().st_size > 5000
    empty = KT.draw(board, None)
    empty.savefig(tmp_path / "empty.png")
    assert (tmp_path / "empty.png").stat().st_size > 1000


def test_render_numbers_small_boards_and_summarises_big_ones() -> None:
    text = KT.render(Board(6, 6), {"tour": CLOSED_6})
    assert text.splitlines()[1].split()[0] == "0" and "35" in text
    big = construct.stitched_tour(60, 60)[0].tolist()
    summary = KT.render(Board(60, 60), {"tour": _squares(big, 60)})
    assert len(summary.splitlines()) == 1 and "3600 squares" in summary
    assert "no tour" in KT.render(Board(5, 5), None)


# --- the constructive method's pieces ----------------------------------------------------


def test_schwenk_and_open_tour_existence() -> None:
    closed = {
        (m, n) for m in range(1, 11) for n in range(m, 11) if construct.closed_tour_exists(m, n)
    }
    assert (5, 5) not in closed and (4, 10) not in closed and (3, 8) not in closed
    assert {(3, 10), (5, 6), (6, 6), (6, 7), (8, 8)} <= closed
    assert construct.open_tour_exists(3, 4) and not construct.open_tour_exists(4, 4)


@pytest.mark.parametrize(("rows", "cols"), [(5, 6), (11, 12), (13, 20), (26, 17), (40, 40)])
def test_stitched_tours_are_closed_tours(rows: int, cols: int) -> None:
    order, counters = construct.stitched_tour(rows, cols)
    assert KT.verify(Board(rows, cols), {"tour": _squares(order, cols)}) is None
    assert counters["merges"] == counters["blocks"] - 1


# --- encodings: options, counters and timeouts -------------------------------------


def _run(encoding: str, spec: str, time_limit_s: float = 20.0, **options: object):
    cls = encodings()["knights_tour"][encoding]
    enc = cls(options)
    limits = Limits(time_limit_s=time_limit_s, seed=0, threads=1)
    board = load_instance(spec, "knights_tour").instance
    enc.build(board, limits)
    return board, enc.solve(limits)


OPEN_5 = "gen:knights_tour:5x5:0:open=1"


@pytest.mark.parametrize(
    ("encoding", "spec", "options", "least"),  # least: counters' lowest values
    [
        ("pbeq-z3", OPEN_5, {}, {"rlimit_count": 1}),
        ("pbeq-z3", OPEN_5, {"z3_solver": "SimpleSolver"}, {"rlimit_count": 1}),
        ("warnsdorff", "gen:knights_tour:12x12:0", {"method": "warnsdorff"}, {"steps": 143}),
        ("warnsdorff", "instances/knights_tour/4x10-open.txt", {}, {}),  # four-row open
        ("warnsdorff", "gen:knights_tour:100x98:0", {}, {}),  # the stitched construction
    ],
)
def test_solved_with_options_and_counters(encoding, spec, options, least) -> None:
    board, outcome = _run(encoding, spec, **options)
    assert outcome.status == SOLVED and KT.verify(board, outcome.solution) is None
    assert all(outcome.counters[k] >= v for k, v in least.items()), outcome.counters


def test_encodings_report_timeout_when_the_limit_is_tiny() -> None:
    _, outcome = _run("circuit-cpsat", "gen:knights_tour:40x40:0", time_limit_s=0.01)
    assert outcome.status in (TIMEOUT, SOLVED)
    _, outcome = _run("sum-z3", "gen:knights_tour:10x10:0", time_limit_s=0.05)
    assert outcome.status == TIMEOUT
