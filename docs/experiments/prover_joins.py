"""The uniqueness proof on boards like those the generator checks: joins of shipped boards.

    python docs/experiments/prover_joins.py [--near-conflicts N] [--joins K] BOARD.txt ...

For each shipped winding board (proved unique, its cover beside it in ``.sol.json``),
K of its joins (two paths whose ends are neighbours made one, seeded shuffle): most
have another cover, as most joins the generator tries do. Each is checked with
``scripts/winding_prove.py``'s ``prove_unique`` (the generator's budget of a check,
1,000,000 conflicts); ``--near-conflicts 0`` leaves out the question asked near the
planted cover, which is the proof as it was before that question. One line per board:
verdict and seconds, then the totals per verdict.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_unique_numberlink import board_of  # noqa: E402
from make_winding_numberlink import joins  # noqa: E402
from winding_prove import prove_unique  # noqa: E402

from models.numberlink.rules import parse  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--near-conflicts", type=int, default=20_000)
    parser.add_argument("--joins", type=int, default=6, help="joins per board")
    parser.add_argument("boards", nargs="+")
    args = parser.parse_args()
    rng = random.Random(1)
    totals: dict[str, list[float]] = defaultdict(list)
    for name in args.boards:
        path = Path(name)
        board = parse(path.read_text(), name)
        cover = json.loads(path.with_suffix(".sol.json").read_text())
        paths = [[tuple(c) for c in p] for p in cover["paths"].values()]
        trials = joins(paths)
        rng.shuffle(trials)
        for k, trial in enumerate(trials[: args.joins]):
            began = time.monotonic()
            verdict = prove_unique(
                board_of(board.rows, board.cols, trial),
                trial,
                near_conflicts=args.near_conflicts,
                total_conflicts=1_000_000,
            )[0]
            took = time.monotonic() - began
            totals[verdict].append(took)
            print(f"{path.stem} join {k}: {verdict}, {took:.2f} s", flush=True)
    for verdict, times in sorted(totals.items()):
        print(f"{verdict}: {len(times)} boards, {sum(times):.1f} s in all, max {max(times):.2f} s")


if __name__ == "__main__":
    main()
