"""The backbone proof with and without the lex-min window clauses, side by side.

    python docs/experiments/lexmin_prover.py [--shapes 3x3,2x4,4x2] [--total N] COVER.sol.json...
    python docs/experiments/lexmin_prover.py --compose SEED T1.txt T2.txt T3.txt T4.txt
    python docs/experiments/lexmin_prover.py --check-random N     # soundness against the count

For each board (a shipped cover, or four proved tiles composed as the generator's
``--plant compose`` does), ``winding_prove.prove_unique`` plain and with
``lexmin=SHAPES`` (the clauses and their proof: ``scripts/winding_lexmin.py``): the
verdict, the seconds, the conflicts of every solver it made, and the clauses added.
``--check-random`` compares the lex-min verdict with the exact count of covers
(``models.numberlink.frontier_count``) on small generated boards. Results in
``docs/experiments/numberlink-frontier.md``, "Locally least covers".
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

import winding_prove  # noqa: E402
from winding_lexmin import parse_shapes  # noqa: E402

from models.numberlink.rules import parse  # noqa: E402


def prove(board, paths, shapes, **options) -> tuple[str, float, int, int]:
    """(verdict, seconds, clauses added, conflicts of every solver made)."""
    began = time.monotonic()
    conflicts: dict[int, int] = {}  # solver -> its conflicts so far
    solve = winding_prove.solve_sat_conflicts

    def counted(sat, budget, assume=()):
        answer = solve(sat, budget, assume)
        conflicts[id(sat)] = sat.accum_stats().get("conflicts", 0)
        return answer

    added = [0]
    clauses = winding_prove.lexmin_clauses

    def kept(grid, e, windows):
        out = clauses(grid, e, windows)
        added[0] = len(out)
        return out

    winding_prove.solve_sat_conflicts, winding_prove.lexmin_clauses = counted, kept
    try:
        verdict, _, _ = winding_prove.prove_unique(board, paths, lexmin=shapes, **options)
    finally:
        winding_prove.solve_sat_conflicts, winding_prove.lexmin_clauses = solve, clauses
    return verdict, time.monotonic() - began, added[0], sum(conflicts.values())


def _load(path: Path):
    board_path = Path(str(path).replace(".sol.json", ".txt"))
    board = parse(board_path.read_text(), str(board_path))
    paths = [[tuple(c) for c in p] for p in json.loads(path.read_text())["paths"].values()]
    return board, paths


def check_random(n: int, shapes) -> None:
    """The prover against the exact count on small generated boards."""
    from models.numberlink.frontier_count import count_covers
    from models.numberlink.generate import generate_with_solution

    rng = random.Random(5)
    seen = {"unique": 0, "other": 0}
    for k in range(n):
        rows, cols = rng.randint(3, 7), rng.randint(3, 7)
        pairs = rng.randint(1, max(1, rows * cols // 5))
        board, sol = generate_with_solution(rows, cols, rng.randrange(10**6), pairs)
        paths = [[tuple(c) for c in p] for p in sol["paths"].values()]
        count, _ = count_covers(board, paths)
        verdict, *_ = prove(board, paths, shapes, total_conflicts=10**7, max_conflicts=10**7)
        truth = "unique" if count == 1 else "other"
        assert verdict == truth, (k, board, count, verdict)
        seen[truth] += 1
    print(f"{n} boards agree with the count: {seen}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("covers", nargs="*", type=Path)
    parser.add_argument("--shapes", default="3x3,2x4,4x2")
    parser.add_argument("--total", type=float, default=1e6, help="conflicts a proof")
    parser.add_argument("--max", type=float, default=2e5, help="conflicts a question")
    parser.add_argument("--check-random", type=int, default=0)
    parser.add_argument("--compose", nargs=5, metavar=("SEED", "T1", "T2", "T3", "T4"))
    parser.add_argument("--only", choices=("both", "plain", "lexmin"), default="both")
    args = parser.parse_args()
    shapes = parse_shapes(args.shapes)
    if args.check_random:
        check_random(args.check_random, shapes)
    jobs = [(path.name, *_load(path)) for path in args.covers]
    if args.compose:
        from make_winding_numberlink import board_and_cover
        from winding_compose import compose

        rows, cols, paths = compose([Path(t) for t in args.compose[1:]], int(args.compose[0]))
        jobs.append((f"composed {rows}x{cols}", board_and_cover(rows, cols, paths)[0], paths))
    for name_of, board, paths in jobs:
        cpp = board.rows * board.cols / len(paths)
        for name, sh in (("plain", ()), ("lexmin", shapes)):
            if args.only not in ("both", name):
                continue
            verdict, secs, added, spent = prove(
                board, paths, sh, total_conflicts=int(args.total), max_conflicts=int(args.max)
            )
            print(
                f"{name_of} ({cpp:.1f} cells/pair) {name}: {verdict}, {secs:.1f} s,"
                f" {spent} conflicts, {added} clauses added",
                flush=True,
            )


if __name__ == "__main__":
    main()
