"""The command line as users and scripts see it: JSON forms, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import main_cli, run_cli

NORVIG_FIRST = "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."


def _assert_usage_error(result, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def _write(tmp_path: Path, puzzle: str, text: str, name: str = "board.txt") -> str:
    folder = tmp_path / puzzle
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text)
    return str(path)


def test_list_json_has_contract_shape() -> None:
    result = main_cli("list", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) == {"puzzles", "suites"}
    assert {"numberlink", "sudoku", "sudoku_x", "knights_tour"} <= set(doc["puzzles"])
    assert "circuit-cpsat" in doc["puzzles"]["numberlink"]["encodings"]
    assert "ilp-cbc" in doc["puzzles"]["sudoku_x"]["encodings"]
    assert "pbeq-z3" in doc["puzzles"]["knights_tour"]["encodings"]
    assert {"quick", "all"} <= set(doc["suites"])
    # what the README promises beside the contract's names: solver, version, options
    degree_sat = doc["puzzles"]["numberlink"]["details"]["degree-sat"]
    assert degree_sat["solver"] == "pysat" and degree_sat["version"].startswith("python-sat")
    assert "glucose4" in degree_sat["options"]["backend"]
    assert doc["puzzles"]["numberlink"]["max_cells"] == 40_000


def test_list_table() -> None:
    result = main_cli("list")
    assert result.returncode == 0, result.stderr
    assert "circuit-cpsat" in result.stdout


def test_solve_seed_numberlink_board_json() -> None:
    result = run_cli(
        "solve", "instances/numberlink/numberlink01.txt", "--encoding", "circuit-cpsat", "--json"
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    expected_keys = {
        "puzzle", "instance", "encoding", "solver", "status", "verified", "solution", "build_s",
        "solve_s", "wall_s", "cpu_s", "peak_rss_mb", "model_size", "counters",
    }  # fmt: skip
    assert expected_keys <= set(doc)
    assert doc["status"] == "solved" and doc["verified"] is True
    assert set(doc["solution"]["paths"]) == {str(n) for n in range(1, 9)}
    assert doc["wall_s"] >= doc["build_s"] + doc["solve_s"]


def test_solve_closed_8x8_tour_with_pbeq(tmp_path: Path) -> None:
    board = _write(tmp_path, "knights_tour", "8 8\n")
    result = run_cli("solve", board, "--encoding", "pbeq-z3", "--json", "--time-limit", "100")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["status"] == "solved" and doc["verified"] is True
    assert len(doc["solution"]["tour"]) == 64


@pytest.mark.parametrize("puzzle", ["sudoku", "sudoku_x"])
def test_solve_sudoku_with_ilp_cbc_text_and_picture(tmp_path: Path, puzzle: str) -> None:
    spec = (
        _write(tmp_path, "sudoku", NORVIG_FIRST + "\n")
        if puzzle == "sudoku"
        else ("gen:sudoku_x:9x9:7:clues=30")
    )
    picture = tmp_path / "board.png"
    result = run_cli("solve", spec, "--encoding", "ilp-cbc", "--draw", str(picture))
    assert result.returncode == 0, result.stderr
    assert "solved verified" in result.stdout
    assert picture.stat().st_size > 5000


def test_infeasible_is_exit_0_and_timeout_is_exit_1(tmp_path: Path) -> None:
    board = _write(tmp_path, "knights_tour", "5 5\n")
    proved = run_cli("solve", board, "--encoding", "circuit-cpsat", "--json", "--time-limit", "30")
    assert proved.returncode == 0, proved.stderr
    assert json.loads(proved.stdout)["status"] == "infeasible"
    big = _write(tmp_path, "knights_tour", "4 30\n", "unknown.txt")
    stopped = run_cli("solve", big, "--encoding", "pbeq-z3", "--json", "--time-limit", "0.5")
    assert stopped.returncode == 1
    doc = json.loads(stopped.stdout)
    assert doc["status"] == "timeout" and doc["solution"] is None


BAD_FILES = [
    ("numberlink", "", "empty"),
    ("numberlink", "1 0 0\n0 0\n0 0 1\n", ":2"),  # ragged row, named by line
    ("numberlink", "1 0 x\n0 0 0\n0 0 1\n", ":1"),  # non-integer token
    ("numberlink", "1 0 0\n0 2 0\n0 0 1\n", "2"),  # a number that appears once
    ("numberlink", "1 0 1\n0 0 0\n0 0 1\n", "1"),  # a number that appears three times
    ("sudoku", "\n".join(" ".join(["0"] * 5) for _ in range(5)) + "\n", "square"),
    (
        "sudoku",
        "\n".join(" ".join(["10" if r == 0 else "0"] + ["0"] * 8) for r in range(9)),
        ":1",
    ),
    ("knights_tour", "0 8\n", ":1"),
    ("knights_tour", "8 eight\n", ":1"),
]


@pytest.mark.parametrize(("puzzle", "text", "fragment"), BAD_FILES)
def test_malformed_file_is_one_line_and_exit_2(
    tmp_path: Path, puzzle: str, text: str, fragment: str
) -> None:
    path = _write(tmp_path, puzzle, text)
    encoding = {"numberlink": "circuit-cpsat", "sudoku": "ilp-cbc", "knights_tour": "pbeq-z3"}[
        puzzle
    ]
    _assert_usage_error(main_cli("solve", path, "--encoding", encoding), path, fragment)


def test_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "numberlink" / "nope.txt")
    _assert_usage_error(main_cli("solve", missing, "--encoding", "circuit-cpsat"), missing)


def test_collection_entry_out_of_range(tmp_path: Path) -> None:
    path = _write(tmp_path, "sudoku", f"# two puzzles\n{NORVIG_FIRST}\n{NORVIG_FIRST}\n")
    ok = run_cli("solve", f"{path}#2", "--encoding", "ilp-cbc", "--json")
    assert ok.returncode == 0, ok.stderr
    _assert_usage_error(main_cli("solve", f"{path}#3", "--encoding", "ilp-cbc"), "#3", "range")


def test_unknown_puzzle_and_encoding(tmp_path: Path) -> None:
    path = _write(tmp_path, "numberlink", "1 0 1\n0 0 0\n2 0 2\n")
    _assert_usage_error(
        main_cli("solve", path, "--puzzle", "nonogram", "--encoding", "x"), "nonogram"
    )
    _assert_usage_error(
        main_cli("solve", path, "--encoding", "no-such-encoding"), "no-such-encoding"
    )


def test_usage_error_from_argparse_is_exit_2() -> None:
    result = main_cli("solve")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_check_unique() -> None:
    unique = run_cli(
        "solve", "instances/sudoku_x/x9-unique-minimal.txt#1", "--encoding", "cnf-sat",
        "--check-unique", "--json",
    )  # fmt: skip
    assert unique.returncode == 0, unique.stderr
    assert json.loads(unique.stdout)["unique"] is True
    sparse = run_cli(
        "solve", "gen:sudoku:9x9:3:clues=20", "--encoding", "cnf-sat", "--check-unique", "--json"
    )
    assert json.loads(sparse.stdout)["unique"] is False
    _assert_usage_error(
        main_cli("solve", "gen:sudoku:9x9:3:clues=20", "--encoding", "dlx", "--check-unique"), "dlx"
    )
