"""Bad input is refused early with one line and exit 2; solve runs under default limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import cli, store, suites
from models import registry
from tests.conftest import ROOT, main_cli, run_cli
from tests.test_cli import _assert_usage_error, _write


def test_huge_knights_tour_file_is_refused_at_parse_time(tmp_path: Path) -> None:
    board = _write(tmp_path, "knights_tour", "100000 100000\n")
    result = main_cli("solve", board, "--encoding", "circuit-cpsat")
    _assert_usage_error(result, board, "10000000000 cells", "--max-cells")


def test_huge_generated_board_and_suite_are_refused(tmp_path: Path) -> None:
    spec = "gen:knights_tour:100000x100000:0"
    _assert_usage_error(main_cli("solve", spec, "--encoding", "circuit-cpsat"), spec, "cap")
    suite = tmp_path / "huge.toml"
    suite.write_text(
        '[[cases]]\nname = "huge"\npuzzle = "numberlink"\nencodings = ["circuit-cpsat"]\n'
        'generate = { sizes = ["10x10", "5000x5000"], seeds = [1] }\n'
    )
    store = tmp_path / "bench.sqlite"  # refused before any fork: in this process
    _assert_usage_error(main_cli("run", "--suite", str(suite), "--store", str(store)), "5000x5000")
    assert not store.exists()


def test_raised_cap_generates_inside_the_runs_limits() -> None:
    # over the default cap, so it needs --max-cells; the board is made by the run itself,
    # so the memory limit stops it there, and the parent stays small
    result = run_cli(
        "solve", "gen:numberlink:1500x1500:1", "--encoding", "circuit-cpsat", "--json",
        "--max-cells", "3000000", "--time-limit", "20", "--memory-limit", "50",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["status"] == "memout", doc["error"]


def test_solve_has_default_time_and_memory_limits(tmp_path: Path) -> None:
    result = run_cli("solve", "gen:knights_tour:6x6:0", "--encoding", "circuit-cpsat", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["status"] == "solved" and doc["time_limit_s"] == 300.0
    assert 0 < doc["memory_limit_mb"] <= 4096
    assert doc["build_s"] < doc["wall_s"]
    _assert_usage_error(
        main_cli("solve", "gen:knights_tour:6x6:0", "--encoding", "circuit-cpsat",
                 "--time-limit", "0"),
        "--time-limit",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "/tmp/abs", "x..y", ""])
def test_baseline_names_are_plain_names(name: str, capsys: pytest.CaptureFixture) -> None:
    before = sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []
    code = cli.main(["baseline", "save", "latest", "--name", name, "--store", "/nonexistent.db"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "plain name" in err[0], err
    after = sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []
    assert after == before


def test_sweep_makes_big_generated_boards_inside_its_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "big.toml"
    suite.write_text(
        '[[cases]]\nname = "tour"\npuzzle = "knights_tour"\nencodings = ["warnsdorff"]\n'
        'instances = ["gen:knights_tour:110x110:0"]\ntime_limit_s = 30\n\n'
        '[[cases]]\nname = "blow-up"\npuzzle = "numberlink"\nencodings = ["circuit-cpsat"]\n'
        'instances = ["gen:numberlink:1500x1500:1"]\ntime_limit_s = 20\nmemory_limit_mb = 50\n'
    )
    monkeypatch.setenv(registry.MAX_CELLS_ENV, "3000000")
    assert suites.load_suite(str(suite)).instances == {}  # the parent made neither board
    path = tmp_path / "bench.sqlite"
    result = run_cli("run", "--suite", str(suite), "--store", str(path), "--max-cells", "3000000")
    assert result.returncode == 0, result.stderr
    frame = store.load(path).set_index("case")
    tour, blow_up = frame.loc["tour"], frame.loc["blow-up"]
    assert tour["status"] == "solved" and tour["verified"]  # verified against the run's board
    assert tour["size"] == "110x110" and len(tour["instance_hash"]) == 16
    assert blow_up["status"] == "memout" and blow_up["size"] == "1500x1500"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gen:numberlink:-150x-150:0", "at least 1x1"),  # passed the cap: 22,500 cells
        ("gen:numberlink:0x5:0", "at least 1x1"),
        ("gen:numberlink:1x1:0", "at least 2x2"),
        ("gen:numberlink:5x5:0:pairs=99", "pairs must be"),
        ("gen:numberlink:5x5:0:colour=3", "numberlink generator got an unexpected keyword"),
        ("gen:sudoku:10x10:0", "4x4, 9x9"),
        ("gen:sudoku_x:9x9:0:fill=2", "fill must lie in 0..1"),
        ("gen:knights_tour:5x5:0:open=7", "open must be 0 or 1"),
    ],
)
def test_generated_board_the_generator_refuses_is_exit_2(spec: str, fragment: str) -> None:
    """The board is made inside the run, so these were each an `error` record, exit 1."""
    encoding = "circuit-cpsat" if "sudoku" not in spec else "dlx"
    _assert_usage_error(main_cli("solve", spec, "--encoding", encoding), spec, fragment)


def test_a_file_starting_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows editors write a UTF-8 BOM; it was read as a cell ("not an integer: '\\ufeff'")."""
    bom = "\ufeff"
    sudoku = _write(
        tmp_path, "sudoku", bom + (ROOT / "instances/sudoku/small/easy9.txt").read_text()
    )
    letters = _write(tmp_path, "numberlink", bom + "AB\nAB\n")
    collection = _write(
        tmp_path, "sudoku", bom + (ROOT / "instances/sudoku/small/easy9.txt").read_text(), "c.txt"
    )
    for board in (sudoku, letters):
        encoding = "dlx" if "sudoku" in board else "degree-sat"
        result = run_cli("solve", board, "--encoding", encoding, "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["status"] == "solved"
    suite = tmp_path / "bom.toml"
    suite.write_text(
        bom + f'[[cases]]\nname = "bom"\npuzzle = "sudoku"\ninstances = ["{collection}"]\n'
        'encodings = ["dlx"]\n',
        encoding="utf-8",
    )
    path = tmp_path / "bench.sqlite"
    result = run_cli("run", "--suite", str(suite), "--store", str(path))
    assert result.returncode == 0, result.stderr
    assert list(store.load(path)["status"]) == ["solved"]
