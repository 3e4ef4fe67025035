"""Numberlink rules, checker, generator, drawing and every encoding on small boards."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest

from models.base import InstanceError, Limits
from models.numberlink import PUZZLE
from models.numberlink.encodings._common import grid_of, join_cycles, paths_from_edges
from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import LETTER, format_board, parse
from models.numberlink.verify import verify
from models.registry import encodings, load_instance

ROOT = Path(__file__).resolve().parents[1]
SEED_BOARD = ROOT / "instances/numberlink/numberlink01.txt"
PUBLIC = ROOT / "instances/numberlink/public"

# 3x3 with three pairs and one right answer
SMALL = "1 2 2\n0 0 3\n1 0 3\n"
SMALL_SOLUTION = {
    "paths": {
        "1": [[0, 0], [1, 0], [2, 0]],
        "2": [[0, 1], [0, 2]],
        "3": [[1, 2], [1, 1], [2, 1], [2, 2]],
    }
}


def board_of(text: str):
    return parse(text, "test")


# ---------------------------------------------------------------- parsing


def test_seed_board_parses_and_round_trips():
    text = SEED_BOARD.read_text()
    board = parse(text, str(SEED_BOARD))
    assert (board.rows, board.cols, len(board.ends)) == (10, 10, 8)
    assert board.ends["1"] == ((0, 0), (2, 3))
    assert format_board(board) == text
    assert parse(format_board(board), "again") == board


def test_letter_form_parses_and_round_trips():
    text = (PUBLIC / "5x5_ha_4c_016.txt").read_text()
    board = parse(text, "gym")
    assert board.form == LETTER
    assert board.labels == ["A", "B", "C", "D"]
    assert board.ends["B"] == ((0, 0), (0, 4))
    assert format_board(board) == text
    assert parse(format_board(board), "again") == board


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("", None, "empty"),
        ("   \n\n", None, "empty"),
        ("1 0 1\n0 0\n", 2, "ragged"),
        ("1 0 1\n0 x 0\n", 2, "non-integer token 'x'"),
        ("1 0 2\n0 0 0\n0 0 2\n", 1, "number 1 appears once"),
        ("1 0 1\n0 1 0\n2 0 2\n", 2, "number 1 appears 3 times"),
        ("A.A\n.A.\nB.B\n", 2, "letter 'A' appears 3 times"),
        ("A.B\n...\nB..\n", 1, "letter 'A' appears once"),
        ("AB.\n..\nAB.\n", 2, "ragged"),
        ("0 0\n0 0\n", None, "no endpoints"),
        ("1 -1\n1 0\n", 1, "negative"),
    ],
)
def test_parse_errors_name_line_and_problem(text, line, words):
    with pytest.raises(InstanceError) as info:
        parse(text, "bad.txt")
    assert info.value.source == "bad.txt"
    assert info.value.line == line
    assert words in info.value.message


def test_parse_error_line_counts_blank_lines():
    with pytest.raises(InstanceError) as info:
        parse("1 0 1\n\n0 0 2\n", "f")
    assert info.value.line == 3


# ---------------------------------------------------------------- verifier


def test_verifier_accepts_a_right_answer():
    assert verify(board_of(SMALL), SMALL_SOLUTION) is None


def _broken(**changes):
    sol = copy.deepcopy(SMALL_SOLUTION)
    sol["paths"].update(changes)
    return sol


@pytest.mark.parametrize(
    "solution, words",
    [
        (_broken(**{"3": [[1, 2], [1, 1], [2, 2]]}), "jumps"),  # a diagonal step
        (_broken(**{"3": [[1, 2], [1, 1], [2, 1]]}), "must run from"),  # wrong end
        (_broken(**{"3": [[1, 2], [1, 1], [2, 1], [1, 1], [1, 2], [2, 2]]}), "twice"),  # branch
        (_broken(**{"1": [[0, 0], [2, 0]]}), "jumps"),  # a gap
        ({"paths": {"1": [[0, 0], [1, 0], [2, 0]], "2": [[0, 1], [0, 2]]}}, "no path"),
        ({"paths": {**SMALL_SOLUTION["paths"], "9": [[0, 0]]}}, "not on the board"),
        ({"grid": []}, "solution must be"),
        (None, "solution must be"),
        (_broken(**{"2": "nope"}), "non-empty list"),
        (_broken(**{"2": [[0, 1], [0, "2"]]}), "pair of integers"),
        (_broken(**{"2": [[0, 1], [0, 2], [0, 3]]}), "leaves the board"),
    ],
)
def test_verifier_rejects_wrong_answers(solution, words):
    problem = verify(board_of(SMALL), solution)
    assert problem is not None and words in problem


def test_verifier_rejects_crossing_foreign_end_and_uncovered_cell():
    board = board_of("1 0 1\n2 0 2\n0 0 0\n")
    crossing = {
        "paths": {
            "1": [[0, 0], [0, 1], [0, 2]],
            "2": [[1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [0, 2], [1, 2]],
        }
    }
    assert "share" in verify(board, crossing)
    through_end = {
        "paths": {
            "1": [[0, 0], [1, 0], [1, 1], [0, 1], [0, 2]],
            "2": [[1, 0], [2, 0], [2, 1], [2, 2], [1, 2]],
        }
    }
    assert "passes through the end of 2" in verify(board, through_end)
    board3 = board_of("1 1 0\n2 0 2\n3 0 3\n")
    short = {
        "paths": {
            "1": [[0, 0], [0, 1]],
            "2": [[1, 0], [1, 1], [1, 2]],
            "3": [[2, 0], [2, 1], [2, 2]],
        }
    }
    assert "not covered" in verify(board3, short)
    assert verify(board3, short, fill=False) is None


def test_verifier_rejects_passing_through_a_foreign_end():
    board = board_of("1 2 1\n0 0 0\n0 2 0\n")
    # 1 runs straight through 2's end at (0, 1)
    sol = {
        "paths": {
            "1": [[0, 0], [0, 1], [0, 2]],
            "2": [[0, 1], [1, 1], [2, 1]],
        }
    }
    assert "end of 2" in verify(board, sol) or "share" in verify(board, sol)
    sol2 = {"paths": {"2": [[0, 1], [1, 1], [2, 1]], "1": [[0, 0], [0, 1], [0, 2]]}}
    assert "end of 2" in verify(board, sol2) or "share" in verify(board, sol2)


# ---------------------------------------------------------------- generator


@pytest.mark.parametrize("rows, cols, pairs", [(3, 3, None), (5, 7, 4), (10, 10, 8), (12, 9, 25)])
def test_generator_is_deterministic_and_planted_solution_verifies(rows, cols, pairs):
    board, planted = generate_with_solution(rows, cols, 5, pairs)
    again, planted_again = generate_with_solution(rows, cols, 5, pairs)
    assert board == again and planted == planted_again
    assert (board.rows, board.cols) == (rows, cols)
    if pairs:
        assert len(board.ends) == pairs
    assert verify(board, planted) is None
    assert generate_with_solution(rows, cols, 6, pairs)[0] != board
    assert PUZZLE.generate(rows, cols, 5, pairs=pairs) == board


def test_generator_letter_form_and_bad_params():
    board, planted = generate_with_solution(6, 6, 1, 5, form="letter")
    assert board.form == LETTER and verify(board, planted) is None
    assert parse(format_board(board), "x") == board
    for bad in ({"pairs": 0}, {"pairs": 19}, {"form": "roman"}):
        with pytest.raises(ValueError):
            PUZZLE.generate(6, 6, 1, **bad)
    with pytest.raises(ValueError):
        PUZZLE.generate(1, 6, 1)


def test_generator_spec_through_the_registry():
    loaded = load_instance("gen:numberlink:7x7:2:pairs=6")
    assert loaded.size == "7x7" and len(loaded.instance.ends) == 6


# ---------------------------------------------------------------- pictures


def test_draw_saves_a_png_and_render_shows_labels(tmp_path):
    board, planted = generate_with_solution(8, 8, 3, 7)
    fig = PUZZLE.draw(board, planted)
    out = tmp_path / "board.png"
    fig.savefig(out)
    assert out.stat().st_size > 1000
    PUZZLE.draw(board, None).savefig(tmp_path / "empty.png")
    text = PUZZLE.render(board, planted)
    assert len(text.splitlines()) == 8 and "." not in text
    assert "." in PUZZLE.render(board, None)
    assert PUZZLE.size_of(board) == "8x8"


# ---------------------------------------------------------------- encodings

ENCODINGS = sorted(encodings()["numberlink"])


def run(name: str, board, limit: float = 30.0, **options):
    enc = encodings()["numberlink"][name](options)
    limits = Limits(time_limit_s=limit, seed=0, threads=1)
    enc.build(board, limits)
    return enc.solve(limits)


def test_all_encodings_registered():
    assert {
        "circuit-cpsat",
        "flow-cpsat",
        "flow-mip-cbc",
        "flow-mip-highs",
        "degree-sat",
        "degree-z3",
        "routes-cpsat",
        "frontier-search",
        "fill-sat",
    } <= set(ENCODINGS)


@pytest.mark.parametrize("backend", ["cadical153", "glucose4"])
def test_degree_sat_backends(backend):
    board = board_of((ROOT / "instances/numberlink/tiny/tiny_5x5.txt").read_text())
    outcome = run("degree-sat", board, backend=backend)
    assert outcome.status == "solved" and verify(board, outcome.solution) is None
    assert outcome.counters["rounds"] >= 1


@pytest.mark.parametrize("options", [{"blocks": "2x2"}, {"linearization_level": 0}])
def test_routes_cpsat_options_solve_and_prove(options):
    board = load_instance("instances/numberlink/numberlink01.txt").instance
    outcome = run("routes-cpsat", board, **options)
    assert outcome.status == "solved" and verify(board, outcome.solution) is None
    parity = load_instance("instances/numberlink/infeasible/parity_6x6.txt").instance
    assert run("routes-cpsat", parity, **options).status == "infeasible"


# the "ra" boards: eight have no full-cover solution, two have one (README.md)
RA_SOLVABLE = {"8x8_ra_6c_019", "8x8_ra_6c_029"}


@pytest.mark.parametrize("name", ["degree-sat", "routes-cpsat"])
def test_ra_boards_full_cover_status(name):
    """Two complete encodings on two solvers agree on every ra board."""
    boards = sorted(PUBLIC.glob("*_ra_*.txt"))
    assert len(boards) == 10
    for path in boards:
        board = parse(path.read_text(), str(path))
        outcome = run(name, board)
        if path.stem in RA_SOLVABLE:
            assert outcome.status == "solved" and verify(board, outcome.solution) is None
        else:
            assert outcome.status == "infeasible", path.name


def test_ha_reference_solutions_verify():
    for path in sorted(PUBLIC.glob("*_ha_*.txt")):
        board = parse(path.read_text(), str(path))
        paths = json.loads(path.with_suffix(".sol.json").read_text())
        by_label = {}
        for cells in paths:
            start = tuple(cells[0])
            label = next(k for k, ends in board.ends.items() if start in ends)
            by_label[label] = cells
        assert verify(board, {"paths": by_label}) is None, path.name


def _edges_of(grid, cell_paths):
    index = {pair: i for i, pair in enumerate(grid.edges)}
    out = set()
    for cells in cell_paths:
        ids = [r * grid.cols + c for r, c in cells]
        out |= {index[min(a, b), max(a, b)] for a, b in itertools.pairwise(ids)}
    return out


def test_join_cycles_makes_a_detached_ring_a_detour_of_the_path():
    board = board_of("1 0 0 1\n0 0 0 0\n0 0 0 0\n")
    grid = grid_of(board)
    top = [(0, 0), (0, 1), (0, 2), (0, 3)]
    ring = [(1, 0), (1, 1), (1, 2), (1, 3), (2, 3), (2, 2), (2, 1), (2, 0), (1, 0)]
    joined = join_cycles(grid, _edges_of(grid, [top, ring]))
    assert joined is not None and len(joined) == 11
    assert verify(board, {"paths": paths_from_edges(grid, joined)}) is None


def test_join_cycles_gives_up_when_no_parallel_edge_touches_the_cycle():
    board = board_of("0 0 1 1\n0 0 2 2\n")
    grid = grid_of(board)
    square = [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)]
    assert join_cycles(grid, _edges_of(grid, [square, [(0, 2), (0, 3)], [(1, 2), (1, 3)]])) is None


@pytest.mark.parametrize("name", ["degree-sat", "degree-z3"])
def test_repair_join_only_shortens_the_cut_loop(name):
    """The board's first model has detached cycles that all join a path: one round with
    repair=join, more without; both answers verify."""
    board = load_instance("gen:numberlink:8x8:3:pairs=3").instance
    joined, plain = run(name, board), run(name, board, repair="none")
    for outcome in (joined, plain):
        assert outcome.status == "solved" and verify(board, outcome.solution) is None
    assert joined.counters["rounds"] == 1 < plain.counters["rounds"]


def test_fill_sat_fills_long_paths_by_local_search_and_repeats():
    """A 20x20 board with 8 long paths is filled without a SAT call, with the same
    counters for the same seed; an unbalanced board goes to the SAT proof at once."""
    board = load_instance("gen:numberlink:20x20:1:pairs=8").instance
    first, again = run("fill-sat", board), run("fill-sat", board)
    assert first.status == "solved" and verify(board, first.solution) is None
    assert first.counters["steps"] > 0 and first.counters["conflicts"] == 0
    assert first.counters == again.counters
    parity = load_instance("instances/numberlink/infeasible/parity_6x6.txt").instance
    outcome = run("fill-sat", parity)
    assert outcome.status == "infeasible"
    assert outcome.counters["attempts"] == 1 and outcome.counters["steps"] == 0


def test_published_style_solutions_verify():
    """Each board of the published-style set ships the one cover its generator planted."""
    boards = sorted((ROOT / "instances/numberlink/published-style").glob("*.txt"))
    assert len(boards) == 270
    for path in boards:
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None, path.name
