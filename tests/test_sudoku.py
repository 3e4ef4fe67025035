"""Sudoku and Sudoku X: parsing, the checker, the generator, the picture, and what cnf-sat
does beyond solving (its at-most-one option, its uniqueness check)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from models.base import Limits
from models.errors import InstanceError
from models.registry import encodings, get_puzzle, load_instance
from models.sudoku.encodings.cnf_sat import CnfSat, check_unique
from models.sudoku.generate import count_solutions, first_solution
from models.sudoku.rules import SudokuInstance, format_line

SUDOKU, SUDOKU_X = get_puzzle("sudoku"), get_puzzle("sudoku_x")
NORVIG = "instances/sudoku/norvig-pytudes/sudoku-hardest.txt"
TOP1465 = "instances/sudoku/tdoku-benchmark/puzzles3_magictour_top1465"
LINE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _empty(n: int = 9, diagonal: bool = False) -> SudokuInstance:
    k = {4: 2, 9: 3, 16: 4}[n]
    return SudokuInstance(k, tuple((0,) * n for _ in range(n)), diagonal)


def _solution(diagonal: bool) -> list[list[int]]:
    return first_solution(_empty(9, diagonal))


# --- parse / format ---------------------------------------------------------------


def test_line_form_and_grid_form_agree():
    one = SUDOKU.parse(LINE, "x")
    assert one.order == 3 and one.grid[0][0] == 4 and one.grid[0][1] == 0
    again = SUDOKU.parse(SUDOKU.format(one), "y")
    assert again == one
    assert format_line(one) == LINE
    assert SUDOKU.parse(LINE.replace(".", "0"), "z") == one


def test_round_trip_16x16_and_diagonal_flag():
    inst = SUDOKU_X.generate(16, 16, 4, clues=100)
    assert inst.diagonal and inst.clue_count == 100
    assert SUDOKU_X.parse(SUDOKU_X.format(inst), "f") == inst
    assert SUDOKU.parse(SUDOKU_X.format(inst), "f").diagonal is False


def test_collection_entries_by_path_hash_n(tmp_path):
    path = tmp_path / "sudoku" / "set.txt"
    path.parent.mkdir()
    path.write_text(f"# comment\n\n{LINE}\n{LINE.replace('4', '.', 1)}  # second\n")
    entries = SUDOKU.split(path.read_text())
    assert [line for line, _ in entries] == [3, 4]
    second = load_instance(f"{path}#2")
    assert second.puzzle == "sudoku" and second.size == "9x9"
    assert second.instance.grid[0][0] == 0
    with pytest.raises(InstanceError, match="out of range"):
        load_instance(f"{path}#3")
    with pytest.raises(InstanceError, match="holds 2 puzzles"):
        load_instance(str(path))


def test_public_sets_load():
    assert len(SUDOKU.split(Path(NORVIG).read_text())) == 11
    assert len(SUDOKU.split(Path(TOP1465).read_text())) == 1465
    assert load_instance(f"{TOP1465}#1465").instance.clue_count >= 17


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1 2 3 4\n3 4 1\n0 0 0 0\n0 0 0 0\n", 2, "ragged"),
        ("1 2 3 4\n3 4 x 2\n0 0 0 0\n0 0 0 0\n", 2, "not an integer"),
        ("1 2 0\n0 0 0\n0 0 0\n", None, "not a square number"),
        ("1 2 3 4\n3 4 1 2\n0 0 0 0\n", 3, "must be square"),
        ("1 2 3 4\n3 4 5 2\n0 0 0 0\n0 0 0 0\n", 2, "outside 1..4"),
        ("# hi\n" + LINE[:-1] + "\n", 2, "81 characters"),
        (LINE[:-1] + "x\n", 1, "bad character"),
        ("# nothing\n\n", None, "no puzzle"),
    ],
)
def test_parse_errors_name_line_and_problem(text, line, message):
    with pytest.raises(InstanceError, match=message) as err:
        SUDOKU.parse(text, "bad.txt")
    assert err.value.source == "bad.txt" and err.value.line == line


def test_contradictory_grid_is_not_a_parse_error():
    inst = load_instance("instances/sudoku/infeasible/row-clash.txt").instance
    assert count_solutions(inst) == 0


def test_render_and_size():
    inst = SUDOKU.parse(LINE, "x")
    text = SUDOKU.render(inst, None)
    assert text.count("\n") == 11 and "+" in text and "|" in text
    assert SUDOKU.size_of(inst) == "9x9"


# --- verify -----------------------------------------------------------------------


def test_verifier_accepts_a_real_solution_and_rejects_wrong_ones():
    grid = _solution(False)
    inst = _empty()
    assert SUDOKU.verify(inst, {"grid": grid}) is None
    clue_inst = SudokuInstance(
        3, tuple(tuple(v if c == 0 else 0 for c, v in enumerate(row)) for row in grid)
    )
    changed = copy.deepcopy(grid)
    changed[0][0], changed[0][1] = changed[0][1], changed[0][0]
    assert "clue" in SUDOKU.verify(clue_inst, {"grid": changed})
    row_dup = copy.deepcopy(grid)
    row_dup[0][0] = row_dup[0][1]
    assert "row 0" in SUDOKU.verify(inst, {"grid": row_dup})
    col_dup = copy.deepcopy(grid)  # swap inside a row and a box: only the columns break
    col_dup[0][0], col_dup[0][1] = col_dup[0][1], col_dup[0][0]
    assert "column 0" in SUDOKU.verify(inst, {"grid": col_dup})
    # swap two rows of different bands: rows and columns stay fine, boxes break
    box_bad = copy.deepcopy(grid)
    box_bad[0], box_bad[3] = box_bad[3], box_bad[0]
    assert "box" in SUDOKU.verify(inst, {"grid": box_bad})


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"grid": None},
        {"grid": [[1] * 9] * 8},
        {"grid": [[1] * 8] * 9},
        {"grid": [["1"] * 9] * 9},
        {"grid": [[True] * 9] * 9},
        {"grid": [[0] * 9] * 9},
        {"grid": [[10] * 9] * 9},
    ],
)
def test_verifier_rejects_malformed_answers_without_raising(bad):
    assert isinstance(SUDOKU.verify(_empty(), bad), str)


def test_diagonal_repeat_fails_only_for_sudoku_x():
    # a classic solution (a pattern grid) whose main diagonal repeats a digit
    classic = [[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]
    assert SUDOKU.verify(_empty(), {"grid": classic}) is None
    assert "diagonal" in SUDOKU_X.verify(_empty(diagonal=True), {"grid": classic})
    assert SUDOKU_X.verify(_empty(diagonal=True), {"grid": _solution(True)}) is None


# --- generate / draw --------------------------------------------------------------


def test_generator_is_deterministic_and_counts_clues():
    a = SUDOKU_X.generate(9, 9, 5, clues=30)
    assert a == SUDOKU_X.generate(9, 9, 5, clues=30)
    assert a != SUDOKU_X.generate(9, 9, 6, clues=30)
    assert a.clue_count == 30 and a.diagonal
    assert SUDOKU.generate(16, 16, 1, clues=0).clue_count == 0
    assert SUDOKU.generate(16, 16, 1, fill=0.3).clue_count == round(0.3 * 256)
    full = SUDOKU_X.generate(25, 25, 1, fill=1.0)
    assert SUDOKU_X.verify(full, {"grid": [list(row) for row in full.grid]}) is None


@pytest.mark.parametrize("puzzle", [SUDOKU, SUDOKU_X])
def test_unique_generation_is_unique_and_minimal(puzzle):
    inst = puzzle.generate(9, 9, 2, unique=1)
    assert count_solutions(inst, 2) == 1
    grid = [list(row) for row in inst.grid]
    for r, c in [(r, c) for r in range(9) for c in range(9) if grid[r][c]][:6]:
        value, grid[r][c] = grid[r][c], 0
        relaxed = SudokuInstance(3, tuple(map(tuple, grid)), inst.diagonal)
        assert count_solutions(relaxed, 2) == 2  # every clue is needed
        grid[r][c] = value


@pytest.mark.parametrize(
    ("n", "params"),
    [
        (9, {"clues": -1}),
        (9, {"clues": 82}),
        (9, {"fill": 1.5}),
        (9, {"unique": 2}),
        (9, {"clues": 1, "fill": 0.1}),
        (10, {}),
        (16, {"unique": 1}),
    ],
)
def test_generator_rejects_bad_params(n, params):
    with pytest.raises(ValueError):
        SUDOKU.generate(n, n, 1, **params)


def test_draw_saves_a_png(tmp_path):
    inst = load_instance("instances/sudoku_x/medium-9x9.txt").instance
    fig = SUDOKU_X.draw(inst, {"grid": _solution(True)})
    out = tmp_path / "x.png"
    fig.savefig(out)
    assert out.stat().st_size > 5000
    SUDOKU.draw(SUDOKU.generate(16, 16, 1), None).savefig(tmp_path / "y.png")


# --- encodings --------------------------------------------------------------------


def test_same_encodings_serve_both_puzzles():
    assert set(encodings()["sudoku"]) == set(encodings()["sudoku_x"])
    assert {
        "ilp-cbc",
        "ilp-highs",
        "alldiff-cpsat",
        "bool-cpsat",
        "distinct-z3",
        "bool-z3",
        "cnf-sat",
        "dlx",
    } <= set(encodings()["sudoku"])
    assert encodings()["sudoku"]["dlx"].reference


@pytest.mark.parametrize(
    ("variant", "backend"),  # every value of each at least once, not the product
    [
        ("minimal", "cadical153"),
        ("extended", "glucose4"),
        ("minimal", "cadical195"),
        ("extended", "glucose42"),
        ("minimal", "minisat22"),
    ],
)
def test_cnf_sat_solves_hard_boards_and_checks_uniqueness(variant, backend):
    for spec, expected, unique in [
        (f"{NORVIG}#1", "solved", True),
        ("instances/sudoku_x/small/order2.txt", "solved", False),
        ("instances/sudoku/infeasible/no-candidate.txt", "infeasible", None),
    ]:
        loaded = load_instance(spec)
        enc = CnfSat({"variant": variant, "backend": backend})
        enc.build(loaded.instance, Limits())
        outcome = enc.solve(Limits(time_limit_s=20))
        assert outcome.status == expected
        if expected == "solved":
            assert get_puzzle(loaded.puzzle).verify(loaded.instance, outcome.solution) is None
            assert check_unique(enc) is unique


def test_cnf_sequential_at_most_one():
    for spec, expected in [
        ("gen:sudoku_x:16x16:2:fill=0.3", "solved"),
        ("instances/sudoku_x/infeasible/spoiled-unique.txt", "infeasible"),
    ]:
        loaded = load_instance(spec, "sudoku_x")
        pairwise, sequential = CnfSat(), CnfSat({"amo": "sequential"})
        size_p = pairwise.build(loaded.instance, Limits())
        size_s = sequential.build(loaded.instance, Limits())
        assert size_s.n_constraints < size_p.n_constraints and size_s.n_vars > size_p.n_vars
        outcome = sequential.solve(Limits(time_limit_s=20))
        assert outcome.status == expected
        if expected == "solved":
            assert SUDOKU_X.verify(loaded.instance, outcome.solution) is None
