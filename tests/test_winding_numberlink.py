"""The winding-board generator (scripts/make_winding_numberlink.py) and its proof of
uniqueness (scripts/winding_prove.py), run as a user runs them, and checked against the
complete path search of pathsearch-numba (no code shared with the SAT proof)."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from models.base import SOLVED, Limits
from models.numberlink.encodings.pathsearch_numba import PathSearchNumba
from models.numberlink.encodings.scanline_numba import ScanlineNumba
from models.numberlink.generate import generate_with_solution, hamiltonian_path
from models.numberlink.rules import parse
from models.numberlink.verify import verify

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_winding_numberlink.py"
sys.path.insert(0, str(ROOT / "scripts"))

import make_winding_numberlink  # noqa: E402
from make_unique_numberlink import board_of  # noqa: E402  (scripts, beside the others)
from make_winding_numberlink import board_and_cover, joins, table  # noqa: E402
from winding_moves import _touches, bites  # noqa: E402
from winding_prove import planted_edges, prove_unique, prove_unique_dp  # noqa: E402
from winding_window import other_within, rejoin_within, within  # noqa: E402


def unique_by_path_search(board) -> bool | None:
    enc = PathSearchNumba({"untouched_first": False})
    enc.build(board, Limits())
    assert enc.solve(Limits(time_limit_s=20)).status == SOLVED
    return enc.check_unique(Limits(time_limit_s=20))


def edges(paths) -> set[frozenset]:
    return {frozenset((tuple(a), tuple(b))) for p in paths for a, b in itertools.pairwise(p)}


def test_the_sat_proof_agrees_with_the_complete_path_search() -> None:
    """On planted boards with few pairs (many have other covers) the SAT backbone proof
    says "unique" exactly when the path search exhausts every other cover, and an
    "other" answer is a verified full cover that differs from the planted one."""
    seen = set()
    for seed in range(24):
        size = 5 + seed % 4
        board, planted = generate_with_solution(size, size, seed, pairs=2 + seed % 3)
        paths = [[tuple(c) for c in p] for p in planted["paths"].values()]
        verdict, other, _ = prove_unique(board, paths, first_conflicts=50)
        seen.add(verdict)
        assert verdict == ("unique" if unique_by_path_search(board) else "other"), seed
        if other is not None:  # paths in the board's label order
            cover = {
                label: [list(c) for c in q] for label, q in zip(board.ends, other, strict=True)
            }
            assert verify(board, {"paths": cover}) is None, seed
            assert edges(other) != edges(paths), seed
    assert seen == {"unique", "other"}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_generator_writes_unique_boards_resumes_and_tabulates(tmp_path: Path) -> None:
    """As the README types it: boards written with their one cover, proved unique (the
    path search agrees), no path touching itself; a rerun skips what is on disk;
    ``--table`` counts the files."""
    out = tmp_path / "w"
    made = run("--out", str(out), "8x8:1-2", "9x9:4")
    assert made.returncode == 0, made.stderr
    boards = sorted(out.glob("*.txt"))
    assert [p.name for p in boards] == ["w_8x8_s1.txt", "w_8x8_s2.txt", "w_9x9_s4.txt"]
    assert len(made.stdout.splitlines()) == 3
    for path in boards:
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None
        assert unique_by_path_search(board) is True, path.name
    before = {p.name: p.read_text() for p in out.iterdir()}
    again = run("--out", str(out), "8x8:1-2", "9x9:4")
    assert again.returncode == 0 and again.stdout == ""
    assert {p.name: p.read_text() for p in out.iterdir()} == before
    shown = run("--out", str(out), "--table")
    assert shown.returncode == 0 and shown.stdout == table(out)
    assert "| 8x8 | 2 | 13.0 |" in shown.stdout and "| all | 3 |" in shown.stdout


@pytest.mark.parametrize(("name", "k"), [("w_12x12_s1", 0), ("w_15x15_s8", 0), ("w_17x17_s1", 0)])
def test_the_question_near_the_planted_cover_finds_another_cover_first(name: str, k: int) -> None:
    """A join of a shipped board, as the generator tries them: within 2,000 conflicts the
    search leaning to the planted cover finds another cover (verified, different), where
    the unbiased proof has decided nothing (CaDiCaL's conflicts are deterministic). The
    picks are joins with that property; a board densified later needs a new pick."""
    path = ROOT / "instances/numberlink/winding" / f"{name}.txt"
    board = parse(path.read_text(), str(path))
    planted = json.loads(path.with_suffix(".sol.json").read_text())["paths"].values()
    trial = joins([[tuple(c) for c in p] for p in planted])[k]
    joined = board_of(board.rows, board.cols, trial)
    budget = {"total_conflicts": 2_000}
    assert prove_unique(joined, trial, near_conflicts=0, **budget)[0] == "undecided"
    verdict, other, _ = prove_unique(joined, trial, near_conflicts=2_000, **budget)
    assert verdict == "other" and edges(other) != edges(trial)
    cover = {label: [list(c) for c in q] for label, q in zip(joined.ends, other, strict=True)}
    assert verify(joined, {"paths": cover}) is None


def test_the_generator_proves_by_counting(tmp_path: Path) -> None:
    """``--prover count --sat-first 0``: every check is the exact cover count (no SAT
    first); the boards are unique by the path search too, and the log says how many
    checks the count decided."""
    out = tmp_path / "c"
    made = run("--out", str(out), "--prover", "count", "--sat-first", "0", "8x8:3", "7x9:2")
    assert made.returncode == 0, made.stderr
    for line in made.stdout.splitlines():
        checks = int(line.split("checks ")[1].split(",")[0])
        assert f"counted {checks}," in line, line
    for path in sorted(out.glob("*.txt")):
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None
        assert unique_by_path_search(board) is True, path.name


def test_tube_plants_go_through_the_same_proof(tmp_path: Path) -> None:
    """``--plant tubes --batch 3``: the cover planted by SAT as nested tubes with the
    size's target count of paths, then split until unique and joined in batches; every
    board written is unique by the path search too (no code shared with the SAT proof),
    and no path of it touches itself."""
    out = tmp_path / "t"
    made = run(
        "--out", str(out), "--plant", "tubes", "--sparser", "1.0", "--batch", "3",
        "--improve-s", "5", "8x8:1-3", "9x9:1",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert len(made.stdout.splitlines()) == 4 and "dropped" not in made.stdout
    for line in made.stdout.splitlines():
        size = line.split("_")[1]
        goal = {"8x8": 5, "9x9": 6}[size]  # round(cells / target)
        assert f"planted {goal}," in line, line
    assert_written_unique(out, unique_by_path_search)


def assert_written_unique(out: Path, unique) -> None:
    """Every board in ``out`` ships a verified cover, no path of it touching itself, and
    ``unique(board)`` (an independent judge) says it has no other."""
    for path in sorted(out.glob("*.txt")):
        board = parse(path.read_text(), str(path))
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None
        assert not any(_touches([tuple(c) for c in p]) for p in solution["paths"].values())
        assert unique(board) is True, path.name


def test_composed_plants_go_through_the_same_proof(tmp_path: Path) -> None:
    """``--plant compose --tiles``: four 6x6 boards the generator wrote in a 2x2, split until
    unique and joined in batches; each board written is unique by the exact count of its
    covers (the frontier count, no code shared with the SAT proof), and no path of it
    touches itself. A size that is no 2x2 of the tiles' is one line and exit 2."""
    from winding_compose import plant

    from models.numberlink.frontier_count import count_covers

    tiles, out = tmp_path / "tiles", tmp_path / "c"
    assert run("--out", str(tiles), "6x6:1-6").returncode == 0
    made = run(
        "--out", str(out), "--plant", "compose", "--tiles", str(tiles), "--batch", "3",
        "--improve-s", "5", "12x12:1-3",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    lines = made.stdout.splitlines()
    assert len(lines) == 3 and "dropped" not in made.stdout, made.stdout
    for seed, line in zip((1, 2, 3), lines, strict=True):
        assert f"planted {len(plant(12, 12, seed, tiles))}," in line, line
    assert_written_unique(out, lambda board: count_covers(board)[0] == 1)
    for spec, said in (("15x16:1", "must be even"), ("80x80:1", "found 0")):
        bad = run("--out", str(tmp_path / "bad"), "--plant", "compose", spec)
        assert bad.returncode == 2 and said in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    assert not (tmp_path / "bad").exists()


#: a 4x4 board with more than one cover (the frontier count says so below)
TWO_COVERS = [
    [(0, 0), (1, 0), (1, 1), (0, 1)],
    [(0, 2), (0, 3), (1, 3), (2, 3), (3, 3), (3, 2), (3, 1)],
    [(3, 0), (2, 0), (2, 1), (2, 2), (1, 2)],
]


def test_the_crossing_clause_refutes_only_the_covers_that_use_one_of_its_edges() -> None:
    """``prove_unique(crossing=...)`` (the split loop's seam clause for composed plants):
    for each unplanted edge alone, the verdict is "other" (a cover using that edge) exactly
    when the frontier count, with the edge forced, finds a cover, else "unique"; a crossing
    edge that is planted is refused."""
    from winding_compose import seam_edges

    from models.numberlink.encodings._common import grid_of
    from models.numberlink.frontier_count import count_covers

    board = board_of(4, 4, TWO_COVERS)
    assert count_covers(board)[0] > 1
    grid = grid_of(board)
    index = {ab: i for i, ab in enumerate(grid.edges)}

    def edges(paths: list[list[tuple[int, int]]]) -> set[tuple[int, int]]:
        return {grid.edges[i] for i in planted_edges(board, paths, index)}

    planted = edges(TWO_COVERS)
    verdicts = set()
    for edge in sorted(set(grid.edges) - planted):
        verdict, other, _ = prove_unique(board, TWO_COVERS, crossing=frozenset({edge}))
        some_cover_uses_it = (count_covers(board, forced={edge})[0] or 0) > 0
        assert verdict == ("other" if some_cover_uses_it else "unique"), edge
        if other is not None:
            assert edge in edges(other)
        verdicts.add(verdict)
    assert verdicts == {"other", "unique"}
    seams = {(4, 8), (5, 9), (6, 10), (7, 11), (1, 2), (5, 6), (9, 10), (13, 14)}
    assert seam_edges(4, 4) == seams and (6, 10) in planted
    with pytest.raises(ValueError, match="planted"):
        prove_unique(board, TWO_COVERS, crossing=seam_edges(4, 4))


def test_a_composed_board_is_proved_by_its_quarters_and_its_seams(tmp_path: Path) -> None:
    """``winding_compose.prove_by_quarters`` and its command line: four shipped 8x8 boards
    composed by seed 1 are unique (the backbone proof without the seam clause agrees, in
    test_four_unique_tiles_composed_are_asked_one_seam_question), by seed 2 another cover
    crosses a seam; a quarter with two covers is named; a path across a seam is no
    composed board."""
    from winding_compose import compose, prove_by_quarters

    from models.numberlink.rules import format_board

    tiles = [ROOT / f"instances/numberlink/winding/w_8x8_s{k}.txt" for k in (1, 2, 3, 4)]
    for seed, expected in ((1, "unique"), (2, "other")):
        rows, cols, paths = compose(tiles, seed)
        verdict, how = prove_by_quarters(rows, cols, paths)
        assert verdict == expected and "four quarters unique" in how, how
        board, solution = board_and_cover(rows, cols, paths)
        (tmp_path / f"seed{seed}.txt").write_text(format_board(board))
        (tmp_path / f"seed{seed}.sol.json").write_text(json.dumps(solution))
    twice = [[(r + dr, c + dc) for r, c in p] for dr in (0, 4) for dc in (0, 4) for p in TWO_COVERS]
    verdict, how = prove_by_quarters(8, 8, twice)
    assert verdict == "other" and how.startswith("quarter 0,0: other"), how
    assert prove_by_quarters(4, 4, TWO_COVERS)[0] == "not composed"
    script = ROOT / "scripts/winding_compose.py"
    for name, code, said in (("seed1", 0, "seed1.txt: unique, four quarters unique"),
                             ("seed2", 1, "seed2.txt: other, four quarters unique")):  # fmt: skip
        done = subprocess.run([sys.executable, str(script), str(tmp_path / f"{name}.txt")],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == code and done.stdout.startswith(said), done.stdout + done.stderr


def test_sparser_tiles_give_sparser_plants(tmp_path: Path) -> None:
    """``--tiles-sparser X`` draws only tiles of at least X cells per pair (the shipped
    25x25 winding boards), so every composed 50x50 plant is at least that sparse; a
    threshold that leaves fewer than four tiles is one line and exit 2, before planting."""
    from winding_compose import plant, tile_pool

    folder = ROOT / "instances/numberlink/winding"
    every, sparse = tile_pool(folder, 25, 25), tile_pool(folder, 25, 25, 23.0)
    assert 4 <= len(sparse) < len(every) == 15
    for seed in range(6):
        paths = plant(50, 50, seed, folder, 23.0)
        assert sum(map(len, paths)) == 2500 and 2500 / len(paths) >= 23.0
    bad = run("--out", str(tmp_path / "bad"), "--plant", "compose", "--tiles-sparser", "24.5",
              "50x50:1")  # fmt: skip
    assert bad.returncode == 2, bad.stderr
    assert "four 25x25 tiles of at least 24.5 cells per pair" in bad.stderr, bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "found 1" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_tiles_that_are_not_square_turn_by_halves(tmp_path: Path) -> None:
    """Composing 4x6 tiles (written by the generator) gives a verified 8x12 cover whatever
    the seed's turns and mirrors; a quarter turn of such a tile is refused."""
    from winding_compose import compose, turned

    tiles = tmp_path / "t"
    assert run("--out", str(tiles), "4x6:1-4").returncode == 0
    files = sorted(tiles.glob("*.txt"))
    for seed in range(8):
        rows, cols, paths = compose(files, seed)
        assert (rows, cols) == (8, 12)
        board_and_cover(rows, cols, paths)  # asserts the cover is verified
    with pytest.raises(ValueError, match="halves"):
        turned([[(0, 0), (0, 1)]], 4, 6, 1, False)


@pytest.mark.parametrize("batch", ["0", "3"])
def test_densify_joins_a_proved_board_further(tmp_path: Path, batch: str) -> None:
    """``--densify FROM``: the improve phase alone, from a board written before with no
    improve time, one join a proof or (``--batch``) several joins that pass the local
    test to one proof; the board written has fewer pairs, its one cover, and is unique
    by the path search; a spec with no board in FROM is dropped, not planted, and so is
    a board already at its target (said so, not "no join proved unique")."""
    first, dense = tmp_path / "first", tmp_path / "dense"
    made = run("--out", str(first), "--improve-s", "0", "9x9:3", "8x8:5")
    assert made.returncode == 0, made.stderr
    again = run(
        "--out", str(dense), "--densify", str(first), "--improve-s", "10", "--beyond", "2",
        "--batch", batch, "9x9:3", "8x8:5", "8x8:6",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "w_8x8_s6: dropped (no board)" in again.stdout
    written = sorted(dense.glob("*.txt"))
    assert written, again.stdout
    for path in written:
        board = parse(path.read_text(), str(path))
        before = parse((first / path.name).read_text(), path.name)
        assert len(board.ends) < len(before.ends), path.name
        solution = json.loads(path.with_suffix(".sol.json").read_text())
        assert verify(board, solution) is None
        assert unique_by_path_search(board) is True, path.name
    at_target = tmp_path / "at_target"
    done = run("--out", str(at_target), "--densify", str(first), "--beyond", "0.1", "9x9:3")
    assert "w_9x9_s3: dropped (at its target already)" in done.stdout, done.stdout
    assert not at_target.exists() or not any(at_target.iterdir())


def _load(name: str, folder: Path = ROOT / "instances" / "numberlink" / "winding"):
    rows, cols = map(int, name.split("_")[1].split("x"))
    cover = json.loads((folder / f"{name}.sol.json").read_text())
    return rows, cols, [[tuple(c) for c in p] for p in cover["paths"].values()]


def _is_other_cover(rows: int, cols: int, planted, other) -> None:
    board = board_of(rows, cols, planted)
    by_ends = {frozenset((p[0], p[-1])): p for p in other}
    solution = {"paths": {}}
    for label, (a, b) in board.ends.items():
        solution["paths"][label] = [list(c) for c in by_ends[frozenset((a, b))]]
    assert verify(board, solution) is None
    assert edges(other) != edges(planted)


def test_the_local_question_on_the_whole_board_is_the_whole_question(tmp_path: Path) -> None:
    """``other_within`` with every cell free asks what the backbone proof asks: on every
    join of boards just proved unique (no improve time, so some joins are unique) the
    two agree ("unsat" where the proof says unique), and each other cover it gives is a
    verified full cover unlike the planted one."""
    made = run("--out", str(tmp_path), "--improve-s", "0", "9x9:3", "8x8:5", "10x10:2")
    assert made.returncode == 0, made.stderr
    seen = set()
    for name in ("w_9x9_s3", "w_8x8_s5", "w_10x10_s2"):
        rows, cols, paths = _load(name, tmp_path)
        every = {(r, c) for r in range(rows) for c in range(cols)}
        for trial in joins(paths):
            verdict, _, _ = prove_unique(board_of(rows, cols, trial), trial)
            local, other = other_within(rows, cols, trial, every, 1_000_000)
            assert local == ("unsat" if verdict == "unique" else "other"), name
            seen.add(local)
            if other is not None:
                _is_other_cover(rows, cols, trial, other)
    assert seen == {"unsat", "other"}


def test_the_local_question_keeps_the_board_outside_its_window() -> None:
    """With a window free around the ends a bite or join moves, every other cover
    ``other_within`` gives is a verified full cover that differs from the planted one
    only in the window and the ring around it (a 2x2 swap takes a cycle in there)."""
    rows, cols, paths = _load("w_15x15_s8")
    seen = set()
    for trial in joins(paths) + bites(paths)[::3]:
        ends = {c for p in trial for c in (p[0], p[-1])}
        moved = ends ^ {c for p in paths for c in (p[0], p[-1])}
        free = within(rows, cols, moved, 3)
        verdict, other = other_within(rows, cols, trial, free, 100_000)
        seen.add(verdict)
        if other is not None:
            _is_other_cover(rows, cols, trial, other)
            ring = within(rows, cols, free, 1)
            assert all(ab <= ring for ab in edges(other) ^ edges(trial))
    assert {"unsat", "other"} <= seen


def test_a_rejoin_is_a_verified_join_with_the_rest_of_the_board_kept() -> None:
    """``rejoin_within`` makes two ends one path: every join of neighbouring ends is
    found, each answer is a verified full cover of the board with those two ends gone,
    no path touching itself, equal to the planted cover outside the window and its
    ring; ends an even number of steps apart never (the chessboard argument)."""
    for name in ("w_12x12_s1", "w_12x12_s2", "w_15x15_s8"):
        rows, cols, paths = _load(name)
        ends = {c for p in paths for c in (p[0], p[-1])}
        direct = {frozenset(ends - {c for p in j for c in (p[0], p[-1])}) for j in joins(paths)}
        owner = {c: k for k, p in enumerate(paths) for c in (p[0], p[-1])}
        found = set()
        for a, b in itertools.combinations(sorted(owner), 2):
            steps = abs(a[0] - b[0]) + abs(a[1] - b[1])
            if owner[a] == owner[b] or steps > 4:
                continue
            free = within(rows, cols, {a, b}, 2)
            joined = rejoin_within(rows, cols, paths, a, b, free, 20_000)
            if joined is None:
                continue
            assert steps % 2 == 1, (name, a, b)
            found.add(frozenset((a, b)))
            board = board_of(rows, cols, joined)
            cover = {"paths": {str(k + 1): [list(c) for c in p] for k, p in enumerate(joined)}}
            assert verify(board, cover) is None
            assert len(joined) == len(paths) - 1
            assert {c for p in joined for c in (p[0], p[-1])} == ends - {a, b}
            assert not any(_touches(p) for p in joined)
            ring = within(rows, cols, free, 1)
            assert all(ab <= ring for ab in edges(joined) ^ edges(paths))
        assert direct and direct <= found, name


def test_a_densify_round_tries_the_joins_in_another_order(monkeypatch) -> None:
    """The verdicts are budgeted in conflicts, so a second ``--densify`` over a board left
    as it was would ask the same questions in the same order and fail the same way:
    ``--densify-round`` seeds another order; the same round repeats its order."""

    def joins_of(cover: Path) -> list:
        paths = [[tuple(c) for c in p] for p in json.loads(cover.read_text())["paths"].values()]
        return joins(paths)

    # a board with enough joins for the orders to tell apart (densify rounds change boards)
    seed, cover = next(
        (s, c)
        for s in range(1, 16)
        if len(joins_of(c := ROOT / f"instances/numberlink/winding/w_20x20_s{s}.sol.json")) >= 4
    )

    def first_trials(densify_round: int) -> list:
        asked = []

        def fake_check(rows, cols, trial, args, stats, improving=False):
            stats["checks"] += 1
            asked.append(make_winding_numberlink.board_key(trial))
            stats["cache"][asked[-1]] = ("other", None)
            return "other", None

        monkeypatch.setattr(make_winding_numberlink, "check", fake_check)
        args = argparse.Namespace(
            improve_checks=4, improve_s=60.0, beyond=1.0, densify_round=densify_round, batch=0
        )
        verdict = make_winding_numberlink.densify(20, 20, seed, cover, args)
        assert verdict == "no join proved unique"
        return asked

    assert len(first_trials(0)) == 4
    assert first_trials(0) == first_trials(0)
    assert first_trials(1) != first_trials(0)


@pytest.mark.parametrize(("per_plant", "replants"), [(0, 2), (1, 1)])
def test_undecided_checks_plant_anew_with_replants(monkeypatch, per_plant, replants) -> None:
    """``--replants 2``: a plant with more than ``--undecided-per-plant`` undecided checks
    gives way to a fresh plant from another seed, at most twice; the last one splits as
    before. Here the first two checks answer undecided: with none let pass, each of the
    first two plants is dropped at its first check; with one let pass, the first plant
    splits once and is dropped at the second. Then the real proof: the board written is
    unique by the path search too."""
    real_check = make_winding_numberlink.check
    faked: list = []

    def undecided_first(rows, cols, trial, args, stats, improving=False):
        if len(faked) < 2:
            stats["checks"] += 1
            faked.append(make_winding_numberlink.board_key(trial))
            return "undecided", None
        return real_check(rows, cols, trial, args, stats, improving)

    monkeypatch.setattr(make_winding_numberlink, "check", undecided_first)
    args = argparse.Namespace(
        plant="tubes", sparser=1.0, replants=2, undecided_per_plant=per_plant, quick_nodes=0,
        prover="sat", check_conflicts=200_000, improve_conflicts=300_000,
        backend="cadical195", verbose=False, batch=0, improve_s=0.0, improve_checks=0,
        beyond=1.0, undecided_splits=1, lexmin=(),
    )  # fmt: skip
    board, solution, stats = make_winding_numberlink.make(8, 8, 1, args)
    assert stats["replants"] == replants and stats["undecided"] == 2
    final = make_winding_numberlink.board_key(
        [[tuple(c) for c in p] for p in solution["paths"].values()]
    )
    assert len({*faked, final}) == 3  # two boards refused, then another
    assert verify(board, solution) is None
    assert unique_by_path_search(board) is True


def test_an_undecided_check_splits_the_k_longest_paths(monkeypatch) -> None:
    """``--undecided-splits 3``: the first check (faked undecided) is followed by one with
    three more paths (the longest cut in two, three times over, no edge added); then the
    real proof, whose board is unique by the path search too."""
    real_check = make_winding_numberlink.check
    asked: list[list[list]] = []

    def undecided_first(rows, cols, trial, args, stats, improving=False):
        asked.append([list(p) for p in trial])
        if len(asked) == 1:
            return "undecided", None
        return real_check(rows, cols, trial, args, stats, improving)

    monkeypatch.setattr(make_winding_numberlink, "check", undecided_first)
    args = argparse.Namespace(
        plant="walk", quick_nodes=0, prover="sat", check_conflicts=200_000, backend="cadical195",
        verbose=False, undecided_splits=3, lexmin=(),
    )  # fmt: skip
    stats = {"cache": {}, "checks": 0, "sat": 0, "counted": 0, "splits": 0, "undecided": 0}
    planted = make_winding_numberlink.cut_self_touches(hamiltonian_path(10, 10, random.Random(4)))
    paths = make_winding_numberlink.split_until_unique(10, 10, planted, args, stats)
    first, second = asked[0], asked[1]
    assert len(second) == len(first) + 3 and stats["undecided"] == 1
    assert max(first, key=len) not in second  # cut; its halves keep its edges
    assert make_winding_numberlink.edges_of(second) <= make_winding_numberlink.edges_of(first)
    board, _ = make_winding_numberlink.board_and_cover(10, 10, paths)
    assert unique_by_path_search(board) is True


def test_a_bad_board_spec_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for spec in ("8x8:a", "1x9:1", "eight"):
        bad = run("--out", str(tmp_path), spec)
        assert bad.returncode == 2, spec
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    assert not any(tmp_path.iterdir())


def test_four_unique_tiles_composed_are_asked_one_seam_question() -> None:
    """docs/experiments/compose_tiles.py as the experiments doc types it: four shipped 8x8
    boards in a 2x2, one SAT question decides it (seed 1 unique, seed 2 not: the answer
    depends on how the tiles meet), and so does ``--per-edge`` (the seam edges asked one by
    one, the tiles' uniqueness as clauses; its "other" is a cover). Cross-checked: the
    unique one by the generator's backbone proof, the other by the complete scan search
    finding a second cover."""
    tiles = [str(ROOT / f"instances/numberlink/winding/w_8x8_s{k}.txt") for k in (1, 2, 3, 4)]
    script = ROOT / "docs/experiments/compose_tiles.py"
    sys.path.insert(0, str(script.parent))
    from compose_tiles import compose

    def ask(*options: str) -> str:
        out = subprocess.run(
            [sys.executable, str(script), *options, *tiles],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    for seed, verdict in ((1, "unique"), (2, "a model crosses a seam")):
        one_question = ask(str(seed), "1e6")
        assert f"16x16, 20 pairs (12.8 cells/pair), 32 seam edges: {verdict}," in one_question
        found = "unique" if verdict == "unique" else "a cover crosses a seam"
        assert f"32 seam edges: {found}," in ask("--per-edge", str(seed), "1e6")
        side, _, paths = compose([Path(t) for t in tiles], seed)
        board = board_of(side, side, paths)
        if verdict == "unique":
            assert prove_unique(board, paths, max_conflicts=10**7)[0] == "unique"
        else:
            scan = ScanlineNumba({})
            scan.build(board, Limits())
            assert scan.solve(Limits(time_limit_s=20)).status == SOLVED
            assert scan.check_unique(Limits(time_limit_s=20)) is False


SETS = [ROOT / "instances/numberlink" / s for s in ("winding", "winding-large")]


def test_each_sets_readme_tables_its_files() -> None:
    """The cells-per-pair table of each set's README is the one ``--table`` prints from
    the files (regenerate it with that command after adding boards)."""
    for folder in SETS:
        assert table(folder) in (folder / "README.md").read_text(), folder.name


@pytest.mark.skipif(
    os.environ.get("BENCH_SLOW_TESTS", "0") in ("", "0"),
    reason="opt-in (BENCH_SLOW_TESTS=1): re-proves every winding board (minutes)",
)
@pytest.mark.timeout(4 * 3600)  # about 275 proofs, some minutes each: not the 300 s of one test
def test_every_winding_board_is_proved_unique_again() -> None:
    """The generator's proof (SAT briefly, the exact count, SAT), rerun on every shipped
    board with no SAT budget to speak of; a board whose paths each keep to one quarter
    (a composed plant split until unique) by its quarters and seams, with the window
    clauses it was proved with (``winding_compose.prove_by_quarters``)."""
    from winding_compose import prove_by_quarters

    for folder in SETS:
        for path in sorted(folder.glob("*.txt")):
            board = parse(path.read_text(), str(path))
            solution = json.loads(path.with_suffix(".sol.json").read_text())
            paths = [[tuple(c) for c in p] for p in solution["paths"].values()]
            verdict, how = prove_by_quarters(board.rows, board.cols, paths, lexmin=((2, 3), (3, 2)))
            if verdict != "not composed":
                assert verdict == "unique", (path.name, how)
                continue
            verdict, _, _ = prove_unique_dp(
                board, paths, state_cap=2_000_000, total_conflicts=10**9
            )
            assert verdict == "unique", path.name
