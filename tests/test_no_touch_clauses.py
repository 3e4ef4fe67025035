"""degree-sat's ``assume_unique``: the corner rules as clauses keep every cover in which no
path touches itself, never prove ``infeasible``, and answer the planted people-density
boards; the planted set is what its script writes."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Limits
from models.numberlink.encodings._common import Grid, grid_of
from models.numberlink.encodings.degree_sat import DegreeSat, no_touch_rules
from models.numberlink.encodings.scanline_numba import ScanSearch
from models.numberlink.rules import Board, parse
from models.numberlink.verify import verify
from tests.test_numberlink import _touches_itself
from tests.test_pathsearch import _random_board

ROOT = Path(__file__).resolve().parents[1]
NUMBERLINK = ROOT / "instances/numberlink"


def _satisfies_rules(grid: Grid, paths: dict) -> bool:
    """Whether a cover's edges satisfy every clause of ``no_touch_rules``."""
    at = {ab: i for i, ab in enumerate(grid.edges)}
    used = set()
    for cells in paths.values():
        for (r1, c1), (r2, c2) in itertools.pairwise(cells):
            a, b = sorted((r1 * grid.cols + c1, r2 * grid.cols + c2))
            used.add(at[a, b])
    clauses = no_touch_rules(grid, list(range(1, len(grid.edges) + 1)))
    return all(any((lit > 0) == (abs(lit) - 1 in used) for lit in clause) for clause in clauses)


def _shipped(folder: str) -> list[tuple[Board, dict]]:
    out = []
    for path in sorted((NUMBERLINK / folder).glob("*.txt")):
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        out.append((parse(path.read_text(), str(path)), solution["paths"]))
    return out


def test_every_shipped_cover_without_touches_satisfies_the_clauses() -> None:
    """The 589 shipped covers in which no path touches itself satisfy every clause; the
    dense covers of unique/, which touch themselves, are cut (the clauses do cut)."""
    seen = 0
    for folder in ("winding", "winding-large", "published-style", "planted"):
        for board, paths in _shipped(folder):
            assert not any(_touches_itself(p) for p in paths.values())
            assert _satisfies_rules(grid_of(board), paths), board
            seen += 1
    assert seen == 270 + 17 + 270 + 24 + 8
    cut = [not _satisfies_rules(grid_of(b), p) for b, p in _shipped("unique")]
    assert len(cut) == 25 and all(cut)


def test_the_clauses_keep_every_cover_without_touches_on_random_small_boards() -> None:
    """Every cover of 200 random boards up to 7x7 (enumerated by the complete scan search,
    capped at 40) in which no path touches itself satisfies the clauses; degree-sat with
    them answers a verified cover whenever such a cover exists, and never infeasible."""
    rng = random.Random(23)
    kept = cut = 0
    for _ in range(200):
        board = _random_board(rng)
        search, covers = ScanSearch(board, "diagonal", False, True, True), []
        while len(covers) < 40 and search.next_solution(None) == 1:
            covers.append(search.paths())
        untouched = [c for c in covers if not any(_touches_itself(p) for p in c.values())]
        for cover in untouched:
            assert _satisfies_rules(grid_of(board), cover), board
        kept += len(untouched)
        cut += sum(not _satisfies_rules(grid_of(board), c) for c in covers)
        enc = DegreeSat({"assume_unique": True})
        enc.build(board, Limits())
        out = enc.solve(Limits(time_limit_s=10))
        assert out.status in (SOLVED, TIMEOUT), board
        if out.status == SOLVED:
            assert verify(board, out.solution) is None
        if untouched:
            assert out.status == SOLVED, board
    assert kept and cut  # the test saw covers kept and cut


def test_assume_unique_never_claims_infeasible() -> None:
    """An unsatisfiable formula under the clauses is no proof: the boards of infeasible/
    (and the dense unique/ ones, whose covers all touch themselves) end in ``timeout``
    saying so, where degree-sat without the option proves the infeasible ones."""
    dense = NUMBERLINK / "unique/u_15x15_s1.txt"
    for path in [*sorted((NUMBERLINK / "infeasible").glob("*.txt")), dense]:
        board = parse(path.read_text(), str(path))
        enc = DegreeSat({"assume_unique": True})
        enc.build(board, Limits())
        out = enc.solve(Limits(time_limit_s=10))
        assert out.status == TIMEOUT and out.counters["exhausted"] == 1, path.name
        assert "no proof" in out.message
    assert DegreeSat.proves_infeasible({"assume_unique": True}) is False
    parity = parse((NUMBERLINK / "infeasible/parity_6x6.txt").read_text())
    plain = DegreeSat({})
    plain.build(parity, Limits())
    assert plain.solve(Limits(time_limit_s=10)).status == INFEASIBLE


def test_planted_people_density_50x50_answered_by_the_clauses() -> None:
    """A 50x50 planted with 65 pairs (38 cells per pair): degree-sat's CNF alone finds no
    cover in 10 s (measured: docs/experiments/numberlink-frontier.md); with the clauses
    it answers in about 10,000 conflicts."""
    board = parse((NUMBERLINK / "planted/p_50x50_s1_d74.txt").read_text())
    enc = DegreeSat({"assume_unique": True})
    enc.build(board, Limits())
    out = enc.solve(Limits(time_limit_s=10))
    assert out.status == SOLVED and verify(board, out.solution) is None
    assert out.counters["conflicts"] < 50_000


@pytest.mark.parametrize(
    ("script", "specs", "names"),
    [
        (
            "plant_numberlink_large.py",
            ["30x30:2-2", "30x80:1-1@26"],
            ["p_30x30_s2", "p_30x80_s1_d26"],
        ),
        ("plant_numberlink_tubes.py", ["30x30:12:2-2"], ["t_30x30_p12_s2"]),
    ],
)
def test_the_planted_set_is_what_its_scripts_write(
    tmp_path: Path, script: str, specs: list[str], names: list[str]
) -> None:
    """instances/numberlink/planted/ comes from two scripts of docs/experiments/
    (deterministic per seed): boards of each made again are the same bytes."""
    path = ROOT / "docs/experiments" / script
    subprocess.run([sys.executable, str(path), str(tmp_path), *specs], check=True, cwd=ROOT)
    for name in names:
        for suffix in (".txt", ".sol.json"):
            made = (tmp_path / name).with_suffix(suffix).read_bytes()
            assert made == (NUMBERLINK / "planted" / name).with_suffix(suffix).read_bytes()
