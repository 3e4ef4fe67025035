"""The lex-min window clauses of the uniqueness proof (scripts/winding_lexmin.py): they
never hide another cover (checked against the exact count of covers, which shares no
code with them), they hold for every shipped unique cover, and the generator takes them
as the README types it."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

from models.numberlink.encodings._common import grid_of
from models.numberlink.frontier_count import count_covers
from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import parse
from models.numberlink.verify import verify

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_winding_numberlink.py"
sys.path.insert(0, str(ROOT / "scripts"))

from make_unique_numberlink import board_of  # noqa: E402
from make_winding_numberlink import joins  # noqa: E402
from winding_lexmin import lexmin_clauses, other_in_a_window, parse_shapes  # noqa: E402
from winding_prove import planted_edges, prove_unique  # noqa: E402

SHAPES = parse_shapes("3x3,2x4,4x2,2x3,3x2")


def _edges(paths) -> set[frozenset]:
    return {frozenset((tuple(a), tuple(b))) for p in paths for a, b in itertools.pairwise(p)}


def test_the_lexmin_proof_agrees_with_the_exact_count() -> None:
    """Generated boards 4x4 to 7x7 with few to many pairs: "unique" exactly when the count
    finds one cover; "other" comes with a verified cover that differs from the planted
    one, found by SAT or at once in a window where the planted cover has a twin."""
    seen: dict[str, int] = {"unique": 0, "other": 0}
    by_window = 0
    for seed in range(60):
        rows, cols = 4 + seed % 4, 4 + (seed // 4) % 4
        pairs = 2 + seed % 5 + (rows * cols) // 12
        board, planted = generate_with_solution(rows, cols, seed, pairs=pairs)
        paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
        count, _ = count_covers(board, paths)
        verdict, other, calls = prove_unique(board, paths, lexmin=SHAPES, total_conflicts=10**7)
        assert verdict == ("unique" if count == 1 else "other"), (seed, count)
        seen[verdict] += 1
        if other is not None:
            cover = {
                label: [list(c) for c in q] for label, q in zip(board.ends, other, strict=True)
            }
            assert verify(board, {"paths": cover}) is None, seed
            assert _edges(other) != _edges(paths), seed
            by_window += calls == 0
    assert seen["unique"] >= 5 and seen["other"] >= 5, seen
    assert by_window >= 1


def test_covers_that_differ_beyond_any_window_are_still_found() -> None:
    """Joins of two paths of shipped boards, as the generator tries them: their other
    covers differ from the joined one over more than a window, so SAT has to find them
    with the clauses in place; the exact count agrees every time."""
    for name in ("w_10x10_s3", "w_12x12_s1"):
        path = ROOT / "instances/numberlink/winding" / f"{name}.txt"
        size = int(name.split("_")[1].split("x")[0])
        planted = json.loads(path.with_suffix(".sol.json").read_text())["paths"].values()
        for trial in joins([[tuple(c) for c in p] for p in planted]):
            board = board_of(size, size, trial)
            verdict, other, calls = prove_unique(board, trial, lexmin=SHAPES)
            assert count_covers(board, trial)[0] == 2 and verdict == "other", name
            assert calls > 0 and _edges(other) != _edges(trial), name
            cover = {
                label: [list(c) for c in q] for label, q in zip(board.ends, other, strict=True)
            }
            assert verify(board, {"paths": cover}) is None, name


def test_every_clause_holds_for_shipped_unique_covers() -> None:
    """A shipped cover is proved unique, so it has no twin in any window and satisfies
    every clause (else the clauses would cut the one cover there is)."""
    folder = ROOT / "instances/numberlink/winding"
    for name in ("w_8x8_s1", "w_10x10_s3", "w_12x12_s2", "w_14x14_s5", "w_17x17_s1"):
        path = folder / f"{name}.txt"
        board = parse(path.read_text(), str(path))
        grid = grid_of(board)
        paths = json.loads(path.with_suffix(".sol.json").read_text())["paths"].values()
        index = {ab: i for i, ab in enumerate(grid.edges)}
        used = set(planted_edges(board, [[tuple(c) for c in p] for p in paths], index))
        assert other_in_a_window(grid, used, SHAPES) is None, name
        clauses = lexmin_clauses(grid, list(range(1, len(grid.edges) + 1)), SHAPES)
        assert clauses, name
        assert all(any(abs(lit) - 1 not in used for lit in c) for c in clauses), name


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_generator_proves_with_the_window_clauses(tmp_path: Path) -> None:
    """``--lexmin 3x3,2x4,4x2`` as the README types it: the boards written are unique by
    the exact count; a malformed window is refused with exit 2 before anything is made."""
    out = tmp_path / "lx"
    made = run("--out", str(out), "--lexmin", "3x3,2x4,4x2", "8x8:1", "7x9:2")
    assert made.returncode == 0, made.stderr
    boards = sorted(out.glob("*.txt"))
    assert len(boards) == 2
    for path in boards:
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None
        paths = [[tuple(c) for c in p] for p in solution["paths"].values()]
        assert count_covers(board, paths)[0] == 1, path.name
    bad = run("--out", str(tmp_path / "bad"), "--lexmin", "3x", "8x8:1")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--lexmin" in bad.stderr and not (tmp_path / "bad").exists()
