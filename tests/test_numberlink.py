"""Numberlink rules, checker, generator and drawing, and what some encodings do beyond
solving (options, counters, helpers, boards the conformance test does not run)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from models.base import SOLVED, Limits
from models.errors import InstanceError
from models.numberlink import PUZZLE
from models.numberlink.encodings._common import grid_of, join_cycles, paths_from_edges
from models.numberlink.encodings.pathsearch_numba import PathSearchNumba
from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import HEADED, INTEGER, LETTER, format_board, parse, split
from models.numberlink.verify import verify
from models.registry import encodings, generated_spec, load_instance

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.mark.parametrize(
    ("name", "form", "size", "labels", "label", "ends"),
    [
        ("numberlink01.txt", INTEGER, "10x10", "12345678", "1", ((0, 0), (2, 3))),
        ("public/5x5_ha_4c_016.txt", LETTER, "5x5", "ABCD", "B", ((0, 0), (0, 4))),
    ],
)
def test_board_files_parse_and_round_trip(name, form, size, labels, label, ends):
    text = (ROOT / "instances/numberlink" / name).read_text()
    board = parse(text, name)
    assert (board.form, PUZZLE.size_of(board), "".join(board.labels)) == (form, size, labels)
    assert board.ends[label] == ends
    assert format_board(board) == text
    assert parse(format_board(board), "again") == board


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("", None, "empty"),
        ("   \n\n", None, "empty"),
        ("1 0 1\n0 0\n", 2, "ragged"),
        ("1 0 1\n0 x 0\n", 2, "token 2 is not an integer"),  # by place: a file is never quoted
        ("1 0 2\n0 0 0\n0 0 2\n", 1, "number 1 appears once"),
        ("1 0 1\n0 1 0\n2 0 2\n", 2, "number 1 appears 3 times"),
        ("A.A\n.A.\nB.B\n", 2, "the letter in column 2 appears 3 times"),
        ("A.B\n...\nB..\n", 1, "the letter in column 1 appears once"),
        ("AB.\n..\nAB.\n", 2, "ragged"),
        ("0 0\n0 0\n", None, "no endpoints"),
        ("1 -1\n1 0\n", 1, "negative"),
        ("1 0 1\n\n0 0 2\n", 3, "number 2 appears once"),  # blank lines count
    ],
)
def test_parse_errors_name_line_and_problem(text, line, words):
    with pytest.raises(InstanceError) as info:
        parse(text, "bad.txt")
    assert info.value.source == "bad.txt"
    assert info.value.line == line
    assert words in info.value.message


# The headed form of the dedicated solvers' files: SMALL in letters after "WIDTH HEIGHT",
# then a 5-wide, 4-high board, in one collection with comments and blank lines
HEADED_SMALL = "3 3\nABB\n..C\nA.C\n"
COLLECTION = "# two boards\n\n" + HEADED_SMALL + "\n5 4\nA...A\nB....\n.....\n....B\n\n"


def test_headed_form_parses_and_round_trips():
    board = parse(HEADED_SMALL, "headed")
    assert (board.form, PUZZLE.size_of(board), board.labels) == (HEADED, "3x3", ["A", "B", "C"])
    assert board.ends["C"] == ((1, 2), (2, 2))
    assert format_board(board) == HEADED_SMALL
    paths = dict(zip("ABC", SMALL_SOLUTION["paths"].values(), strict=True))
    assert verify(board, {"paths": paths}) is None
    wide = parse("# comment\n5 2\nA...A\nB...B\n", "wide")
    assert (wide.rows, wide.cols, wide.ends["B"]) == (2, 5, ((1, 0), (1, 4)))


def test_collection_files_split_at_each_header():
    entries = split(COLLECTION)
    assert [first for first, _ in entries] == [3, 8]
    boards = [parse(text, "c") for _, text in entries]
    assert [PUZZLE.size_of(b) for b in boards] == ["3x3", "4x5"]
    assert boards[1].ends["B"] == ((1, 0), (3, 4))
    # one board, or another form: the whole text is one entry, as before
    assert split(HEADED_SMALL) == [(1, HEADED_SMALL)]
    assert split(SMALL) == [(1, SMALL)]
    assert split("1 2\n1 2\n") == [(1, "1 2\n1 2\n")]  # a 2-column integer board
    assert parse("1 1\n", "one row").form == INTEGER  # two integers alone: a 1x2 board


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("3 2\nABB\n..C\nA.C\n", 1, "the header says 2 rows"),
        ("3 3\nABB\n..CC\nA.C\n", 3, "4 cells in this row, the header says 3 columns"),
        ("0 3\nABB\n..C\nA.C\n", 1, "must be > 0"),
    ],
)
def test_headed_form_errors_name_line_and_problem(text, line, words):
    with pytest.raises(InstanceError) as info:
        parse(text, "bad.txt")
    assert (info.value.line, words in info.value.message) == (line, True), info.value.message


def test_bench_solves_an_entry_of_a_collection_as_a_user_types_it(tmp_path):
    """The console script on the dedicated solver's file form, output piped into a file."""
    path = tmp_path / "boards.txt"
    path.write_text(COLLECTION)
    bench = str(Path(sys.executable).with_name("bench"))
    out = tmp_path / "out.json"
    with out.open("w") as sink:
        done = subprocess.run(
            [bench, "solve", f"{path}#1", "--puzzle", "numberlink", "--encoding",
             "scanline-numba", "--json"],
            stdout=sink, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(out.read_text())
    assert (answer["status"], answer["verified"]) == ("solved", True)
    assert sorted(answer["solution"]["paths"]) == ["A", "B", "C"]
    whole = subprocess.run(
        [bench, "solve", str(path), "--puzzle", "numberlink", "--encoding", "scanline-numba"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert whole.returncode == 2 and whole.stderr.count("\n") == 1
    assert f"holds 2 puzzles; name one as {path}#N" in whole.stderr


# ---------------------------------------------------------------- verifier


def _paths(**changes):
    return {"paths": {**SMALL_SOLUTION["paths"], **changes}}


CROSS, SHORT, FOREIGN = "1 0 1\n2 0 2\n0 0 0\n", "1 1 0\n2 0 2\n3 0 3\n", "1 2 1\n0 0 0\n0 2 0\n"
SHORT_PATHS = {"1": [[0, 0], [0, 1]], "2": [[1, 0], [1, 1], [1, 2]], "3": [[2, 0], [2, 1], [2, 2]]}
THROUGH_2 = {"1": [[0, 0], [0, 1], [0, 2]], "2": [[0, 1], [1, 1], [2, 1]]}  # 1 crosses 2's end


@pytest.mark.parametrize(
    ("board", "solution", "words"),
    [
        (SMALL, SMALL_SOLUTION, None),  # None: accepted
        (SMALL, _paths(**{"3": [[1, 2], [1, 1], [2, 2]]}), "jumps"),  # a diagonal step
        (SMALL, _paths(**{"3": [[1, 2], [1, 1], [2, 1]]}), "must run from"),  # wrong end
        (SMALL, _paths(**{"3": [[1, 2], [1, 1], [2, 1], [1, 1], [1, 2], [2, 2]]}), "twice"),
        (SMALL, _paths(**{"1": [[0, 0], [2, 0]]}), "jumps"),  # a gap
        (SMALL, {"paths": {"1": [[0, 0], [1, 0], [2, 0]], "2": [[0, 1], [0, 2]]}}, "no path"),
        (SMALL, _paths(**{"9": [[0, 0]]}), "not on the board"),
        (SMALL, {"grid": []}, "solution must be"),
        (SMALL, None, "solution must be"),
        (SMALL, _paths(**{"2": "nope"}), "non-empty list"),
        (SMALL, _paths(**{"2": [[0, 1], [0, "2"]]}), "pair of integers"),
        (SMALL, _paths(**{"2": [[0, 1], [0, 2], [0, 3]]}), "leaves the board"),
        (
            CROSS,
            {
                "paths": {
                    "1": [[0, 0], [0, 1], [0, 2]],
                    "2": [[1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [0, 2], [1, 2]],
                }
            },
            "share",
        ),
        (
            CROSS,
            {
                "paths": {
                    "1": [[0, 0], [1, 0], [1, 1], [0, 1], [0, 2]],
                    "2": [[1, 0], [2, 0], [2, 1], [2, 2], [1, 2]],
                }
            },
            "passes through the end of 2",
        ),
        (FOREIGN, {"paths": THROUGH_2}, "end of 2|share"),
        (FOREIGN, {"paths": dict(reversed(THROUGH_2.items()))}, "end of 2|share"),  # either order
        (SHORT, {"paths": SHORT_PATHS}, "not covered"),
    ],
)
def test_verifier(board, solution, words):
    problem = verify(board_of(board), solution)
    assert problem is None if words is None else re.search(words, problem or ""), problem


def test_verifier_without_fill_allows_uncovered_cells():
    assert verify(board_of(SHORT), {"paths": SHORT_PATHS}, fill=False) is None


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
    params = {"pairs": pairs} if pairs else {}
    assert load_instance(generated_spec("numberlink", rows, cols, 5, **params)).instance == board


def test_generator_letter_form_and_bad_params():
    board, planted = generate_with_solution(6, 6, 1, 5, form="letter")
    assert board.form == LETTER and verify(board, planted) is None
    assert parse(format_board(board), "x") == board
    for bad in ({"pairs": 0}, {"pairs": 19}, {"form": "roman"}):
        with pytest.raises(ValueError):
            PUZZLE.generate(6, 6, 1, **bad)
    with pytest.raises(ValueError):
        PUZZLE.generate(1, 6, 1)


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


def run(name: str, board, **options):
    enc = encodings()["numberlink"][name](options)
    limits = Limits(time_limit_s=30.0, seed=0, threads=1)
    enc.build(board, limits)
    return enc.solve(limits)


def test_all_encodings_registered():
    names = "circuit-cpsat flow-cpsat flow-mip-cbc flow-mip-highs degree-sat degree-z3"
    names += " routes-cpsat frontier-search fill-sat pathsearch-numba race-numba-sat"
    names += " scanline-numba"
    assert set(names.split()) <= set(encodings()["numberlink"])


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


def _touches_itself(path: list[list[int]]) -> bool:
    at = {tuple(c): i for i, c in enumerate(path)}
    return any(
        abs(at.get((r + dr, c + dc), i) - i) > 1
        for i, (r, c) in enumerate(path)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
    )


PUBLISHED_MIX = {  # boards per size of the published set (instances/numberlink/winding/README.md)
    (8, 8): 30, (9, 9): 20, (10, 10): 30, (11, 11): 20, (12, 12): 30, (13, 13): 20,
    (14, 14): 20, (15, 15): 30, (17, 17): 15, (20, 20): 15, (24, 14): 15, (25, 25): 15,
    (36, 20): 10,
}  # fmt: skip


def test_winding_sets_ship_covers_whose_paths_never_touch_themselves():
    """The winding sets (scripts/make_winding_numberlink.py): each board ships its one
    cover, no path of it touches itself, the set keeps to the published size mix, and
    the 8x8 and 9x9 ones are unique by the complete path search (the generator proved
    every board so by SAT; this re-proves the small ones with a search sharing no code
    with that proof; ``BENCH_SLOW_TESTS=1`` re-proves all, tests/test_winding_numberlink.py)."""
    sets = ("winding", "winding-large")
    boards = [p for s in sets for p in sorted((ROOT / "instances/numberlink" / s).glob("*.txt"))]
    sizes: dict[tuple[int, int], int] = {}
    for path in boards:
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None, path.name
        assert not any(_touches_itself(p) for p in solution["paths"].values()), path.name
        if path.parent.name == "winding":
            sizes[board.rows, board.cols] = sizes.get((board.rows, board.cols), 0) + 1
    assert sizes == PUBLISHED_MIX, sizes  # the published set's 270, size by size
    for path in [p for p in boards if p.name.startswith(("w_8x8_", "w_9x9_"))]:
        enc = PathSearchNumba({"untouched_first": False})
        enc.build(parse(path.read_text(), str(path)), Limits())
        assert enc.solve(Limits(time_limit_s=10)).status == SOLVED
        assert enc.check_unique(Limits(time_limit_s=10)) is True, path.name
