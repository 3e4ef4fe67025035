"""Suite files: expansion of every instance form and sweep axis; every bad suite fails first."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import cli
from bench.plan import PlannedRun, narrow
from bench.suites import load_suite
from models import registry
from models.errors import SuiteError
from tests.stubs import stubs  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("stubs")

ROW = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _suite(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _collection(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "sudoku" / "many.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_text("# a collection\n" + "\n".join([ROW] * count) + "\n")
    return path


def test_expansion_of_instances_sweeps_and_repeats(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        """
[suite]
time_limit_s = 7
seeds = [0, 1]

[[cases]]
name = "kt"
puzzle = "knights_tour"
instances = ["instances/knights_tour/5x5*.txt", "gen:knights_tour:6x6:0"]
generate = { sizes = ["3x4", 8], params = { open = [0, 1] } }
encodings = ["stub-ok", "stub-infeasible"]
repeats = 2
[cases.options.stub-ok]
delay = [0.0, 0.3]
""",
    )
    suite = load_suite(str(path))
    specs = {run.instance for run in suite.runs}
    assert (
        "instances/knights_tour/5x5.txt" in specs and "instances/knights_tour/5x5-open.txt" in specs
    )
    assert "gen:knights_tour:8x8:0:open=1" in specs and "gen:knights_tour:3x4:0:open=0" in specs
    assert len(specs) == 2 + 1 + 4
    # per instance: stub-ok x 2 delays + stub-infeasible, x 2 seeds x 2 repeats
    assert len(suite.runs) == len(specs) * 3 * 2 * 2
    assert {run.time_limit_s for run in suite.runs} == {7.0}
    assert {tuple(sorted(r.options.items())) for r in suite.runs if r.encoding == "stub-ok"} == {
        (("delay", 0.0),),
        (("delay", 0.3),),
    }
    assert len({run.key() for run in suite.runs}) == len(suite.runs)
    assert all((run.puzzle, run.instance) in suite.instances for run in suite.runs)
    assert suite.instances[("knights_tour", "gen:knights_tour:6x6:0")].size == "6x6"


def test_collection_ranges_and_samples(tmp_path: Path) -> None:
    many = _collection(tmp_path, 12)
    path = _suite(
        tmp_path,
        f"""
[[cases]]
name = "range"
puzzle = "sudoku"
instances = ["{many}#2-4,9"]
encodings = ["dlx"]

[[cases]]
name = "all-entries"
puzzle = "sudoku"
instances = ["{many}"]
sample = {{ count = 5, seed = 3 }}
encodings = ["dlx"]
""",
    )
    suite = load_suite(str(path))
    ranged = [r.instance for r in suite.runs if r.case == "range"]
    assert ranged == [f"{many}#{n}" for n in (2, 3, 4, 9)]
    sampled = [r.instance for r in suite.runs if r.case == "all-entries"]
    assert len(sampled) == 5 and len(set(sampled)) == 5
    assert sampled == [r.instance for r in load_suite(str(path)).runs if r.case == "all-entries"]


def test_include_and_cascading_defaults(tmp_path: Path) -> None:
    _suite(
        tmp_path,
        """
[suite]
repeats = 3

[[cases]]
name = "part"
puzzle = "knights_tour"
instances = ["gen:knights_tour:5x5:0:open=1"]
encodings = ["stub-ok"]
""",
        "part.toml",
    )
    path = _suite(
        tmp_path,
        """
[suite]
include = ["part.toml"]
time_limit_s = 3

[[cases]]
name = "own"
puzzle = "knights_tour"
instances = ["gen:knights_tour:6x6:0"]
encodings = ["stub-ok"]
time_limit_s = 9
""",
    )
    suite = load_suite(str(path))
    part = [r for r in suite.runs if r.case == "part"]
    own = [r for r in suite.runs if r.case == "own"]
    assert len(part) == 3 and {r.time_limit_s for r in part} == {3.0}  # includer's limit
    assert len(own) == 1 and own[0].time_limit_s == 9.0


def test_default_encodings_are_all_registered(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        """
[[cases]]
name = "every"
puzzle = "knights_tour"
instances = ["gen:knights_tour:5x5:0:open=1"]
exclude_encodings = ["stub-spin"]
""",
    )
    names = {r.encoding for r in load_suite(str(path)).runs}
    assert names == set(registry.encodings()["knights_tour"]) - {"stub-spin"}


def test_narrow_filters_and_overrides(tmp_path: Path) -> None:
    board = {"case": "c", "puzzle": "knights_tour", "instance": "gen:knights_tour:5x5:0"}
    runs = [PlannedRun(**board, encoding="stub-ok", repeat=r, time_limit_s=5.0) for r in range(3)]
    runs.append(PlannedRun(**board, encoding="stub-wrong"))
    assert len(narrow(runs, encoding="stub-ok")) == 3
    redone = narrow(runs, encoding="stub-ok", repeats=2, time_limit_s=1)
    assert [r.repeat for r in redone] == [0, 1] and {r.time_limit_s for r in redone} == {1.0}
    with pytest.raises(registry.UsageError):
        narrow(runs, encoding="no-such-encoding")


BAD_CASES = {
    "unknown puzzle": ('puzzle = "chess"\ninstances = ["x.txt"]', "unknown puzzle 'chess'"),
    "unknown encoding": (
        'puzzle = "knights_tour"\ninstances = ["gen:knights_tour:5x5:0"]\nencodings = ["nope"]',
        "unknown encoding 'nope'",
    ),
    "missing file": (
        'puzzle = "knights_tour"\ninstances = ["instances/knights_tour/none.txt"]',
        "no such instance file",
    ),
    "empty glob": (
        'puzzle = "knights_tour"\ninstances = ["instances/nothing/*.txt"]',
        "matches no file",
    ),
    "unknown option": (
        'puzzle = "knights_tour"\ninstances = ["gen:knights_tour:5x5:0"]\nencodings = ["stub-ok"]\n'
        "[cases.options.stub-ok]\nspeed = 3",
        "has no option 'speed'",
    ),
    "bad option value": (
        'puzzle = "knights_tour"\ninstances = ["gen:knights_tour:5x5:0"]\nencodings = ["stub-ok"]\n'
        "[cases.options.stub-ok]\ndelay = 7",
        "not one of",
    ),
    "unknown key": ('puzzle = "knights_tour"\ninstancez = ["a"]', "unknown key(s) instancez"),
    "bad generator": (
        'puzzle = "knights_tour"\ngenerate = { sizes = ["5y5"] }',
        "must read ROWSxCOLS",
    ),
}


@pytest.mark.parametrize("problem", sorted(BAD_CASES))
def test_bad_case_is_named(tmp_path: Path, problem: str) -> None:
    body, fragment = BAD_CASES[problem]
    path = _suite(tmp_path, f'[[cases]]\nname = "bad"\n{body}\n')
    with pytest.raises(SuiteError) as err:
        load_suite(str(path))
    assert str(path) in str(err.value) and fragment in str(err.value), str(err.value)


def test_bad_range_and_syntax_error(tmp_path: Path) -> None:
    many = _collection(tmp_path, 3)
    for selector, fragment in (
        ("#2-9", "reaches entry 9"),
        ("#0", "bad entry range"),
        ("#x", "bad entry range"),
    ):
        path = _suite(
            tmp_path,
            f'[[cases]]\nname = "r"\npuzzle = "sudoku"\ninstances = ["{many}{selector}"]\n',
        )
        with pytest.raises(SuiteError, match=fragment):
            load_suite(str(path))
    path = _suite(tmp_path, "[[cases]\nname = 1\n")
    with pytest.raises(SuiteError, match="TOML syntax error"):
        load_suite(str(path))
    with pytest.raises(SuiteError, match="no such suite file"):
        load_suite(str(tmp_path / "absent.toml"))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[[cases]]\nname = "x"\npuzzle = "chess"\ninstances = ["a"]\n', "unknown puzzle"),
        (
            '[[cases]]\nname = "x"\npuzzle = "knights_tour"\ninstances = ["gen:knights_tour:5x5:0"]\n'
            'encodings = ["nope"]\n',
            "unknown encoding",
        ),
        ('[[cases]]\nname = "x"\npuzzle = "knights_tour"\ninstances = ["no.txt"]\n', "no.txt"),
        ("[suite\n", "TOML syntax error"),
    ],
)
def test_cli_rejects_bad_suites_before_running(tmp_path: Path, capsys, text, fragment) -> None:
    """One line, exit 2, nothing stored; in this process, as the suite is refused before any
    fork (exit 2 through a real process: test_interface)."""
    store, path = tmp_path / "store.sqlite", _suite(tmp_path, text)
    assert cli.main(["run", "--suite", str(path), "--store", str(store)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0], lines
    assert not store.exists()  # nothing ran, nothing was stored


@pytest.mark.parametrize("name", ["quick", "ci", "all", "scaling"])
def test_shipped_suites_are_valid(name: str) -> None:
    suite = load_suite(name, generate=name in ("quick", "ci"))  # big generated boards are slow
    assert suite.runs and suite.description


def test_quick_runs_every_encoding_of_every_puzzle() -> None:
    planned = {(run.puzzle, run.encoding) for run in load_suite("quick").runs}
    registered = {
        (puzzle, name)
        for puzzle, encodings in registry.encodings().items()
        for name in encodings
        if not name.startswith("stub-")
    }
    assert registered <= planned, registered - planned
