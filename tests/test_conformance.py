"""Every registered encoding, on its puzzle's tiny instances, answered and checked through the harness.

A new encoding is tested the day it is added: nothing here names an encoding. Every value
of every option an encoding declares (``option_choices``) runs too, one option varied at a
time from the defaults, on one solvable and one unsolvable tiny board, so an option that
crashes is caught the day it is added (about 10 s for all of them). Each board is loaded
(a ``gen:`` one generated) once for all encodings; the path where a run generates its own
board is tested in test_measure and test_bad_input.
"""

from __future__ import annotations

from functools import cache

import pytest

from bench.measure import run_isolated
from bench.task import RunTask
from models import registry, solvers
from models.base import INFEASIBLE, SOLVED, TIMEOUT

LIMIT_S = 30.0


def _cases(kind: str) -> list:
    cases = []
    for puzzle, rules in registry.puzzles().items():
        for name in registry.encodings().get(puzzle, {}):
            for spec in getattr(rules, kind):
                cases.append(pytest.param(puzzle, name, spec, id=f"{puzzle}-{name}-{spec}"))
    return cases


def _option_cases() -> list:
    cases = []
    for puzzle in registry.puzzles():
        for name, cls in registry.encodings().get(puzzle, {}).items():
            for key, choices in cls.option_choices.items():
                for value in choices[1:]:  # the first is the default, run above
                    cases.append(
                        pytest.param(puzzle, name, key, value, id=f"{puzzle}-{name}-{key}={value}")
                    )
    return cases


@cache
def _board(puzzle: str, spec: str) -> object:
    return registry.load_instance(spec, puzzle).instance


def _run(puzzle: str, spec: str, encoding: str, options: dict | None = None):
    task = RunTask(puzzle, spec, encoding, options or {}, time_limit_s=LIMIT_S)
    return run_isolated(task, _board(puzzle, spec))


def test_every_puzzle_has_tiny_instances_and_encodings() -> None:
    for puzzle, rules in registry.puzzles().items():
        assert rules.tiny, f"{puzzle} lists no tiny instances for the conformance test"
        assert registry.encodings()[puzzle], f"{puzzle} has no encoding"


@pytest.mark.parametrize(("puzzle", "encoding", "spec"), _cases("tiny"))
def test_encoding_solves_tiny_instance(puzzle: str, encoding: str, spec: str) -> None:
    result = _run(puzzle, spec, encoding)
    assert result.status == SOLVED, result.error
    assert result.verified
    assert result.build_s is not None and result.solve_s is not None
    assert result.n_vars is not None and result.n_vars >= 0


@pytest.mark.parametrize(("puzzle", "encoding", "spec"), _cases("tiny_infeasible"))
def test_encoding_never_solves_infeasible_instance(puzzle: str, encoding: str, spec: str) -> None:
    result = _run(puzzle, spec, encoding)
    cls = registry.get_encoding(puzzle, encoding)
    allowed = {INFEASIBLE} if cls.proves_infeasible({}) else {INFEASIBLE, TIMEOUT}
    assert result.status in allowed, result.error
    assert result.solution is None


def test_every_encoding_reports_its_solver_and_version() -> None:
    for puzzle, encodings in registry.encodings().items():
        for name, cls in encodings.items():
            version = solvers.encoding_version(cls)
            assert isinstance(version, str) and version.strip(), f"{puzzle}/{name}"
            assert cls.solver, f"{puzzle}/{name} names no solver"


@pytest.mark.parametrize(("puzzle", "encoding", "key", "value"), _option_cases())
def test_every_option_value_runs(puzzle: str, encoding: str, key: str, value: object) -> None:
    """Each option value answers, and answers right; an option that prunes by an assumption
    (``proves_infeasible`` is False) may give up (timeout) but never claims "no solution"."""
    rules = registry.get_puzzle(puzzle)
    options = {key: value}
    cls = registry.get_encoding(puzzle, encoding)
    sound = cls.proves_infeasible(options)
    solved = _run(puzzle, rules.tiny[0], encoding, options)
    assert solved.status in ({SOLVED} if sound else {SOLVED, TIMEOUT}), solved.error
    assert solved.verified or solved.status != SOLVED
    result = _run(puzzle, rules.tiny_infeasible[0], encoding, options)
    allowed = {INFEASIBLE} if sound and not cls.reference else {INFEASIBLE, TIMEOUT}
    assert result.status in allowed, result.error


#: boards one cell wide (issue 58): `1 2 1 2` in a row or a column has no solution (each
#: path would run through an end of the other pair), `1 0 1` / `A . A` one
ONE_WIDE_INFEASIBLE = (
    "instances/numberlink/infeasible/one_wide_1x4.txt",
    "instances/numberlink/infeasible/one_wide_4x1.txt",
)
ONE_WIDE_SOLVABLE = (
    "instances/numberlink/tiny/one_wide_1x3.txt",
    "instances/numberlink/tiny/one_wide_3x1.txt",
)


@pytest.mark.parametrize("spec", ONE_WIDE_INFEASIBLE + ONE_WIDE_SOLVABLE)
def test_every_numberlink_encoding_agrees_on_one_wide_boards(spec: str) -> None:
    """The flow MIPs had no variable on `1 2 1 2` and stored ``error`` (IndexError) where the
    other ten said ``infeasible``: every encoding, the references too, must give the one
    answer, and a solved one-wide board must pass the checker."""
    want = INFEASIBLE if spec in ONE_WIDE_INFEASIBLE else SOLVED
    answers, said = {}, {}
    for encoding in registry.encodings()["numberlink"]:
        result = _run("numberlink", spec, encoding)
        answers[encoding], said[encoding] = result.status, result.error
        if want == SOLVED:
            assert result.verified, (encoding, result.error)
    assert set(answers.values()) == {want}, (answers, said)
