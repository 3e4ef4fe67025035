"""A generator's whole check, then the exact count with what it proved forced.

    python docs/experiments/full_check_then_count.py ROWS COLS PAIRS SEED [--total N] [--cap N] [--lexmin 2x3,3x2]

Plants a tube cover (``scripts/winding_tubes.py``: ``PAIRS`` paths, drawn by ``SEED``),
runs ``winding_prove.prove_unique`` within ``--total`` conflicts (the generator's check
at 30x30 is 450,000), and, if that is undecided, ``count_covers`` with every planted
edge the proof showed to be in every cover forced, capped at ``--cap`` frontiers a
step. The question: does a whole undecided check prove enough edges for the count to
finish where it gives up after the generator's short SAT pass (``--prover count``)?
Results in ``docs/experiments/numberlink-frontier.md``, "30x30 tube plants at the target".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_unique_numberlink import board_of  # noqa: E402
from winding_lexmin import parse_shapes  # noqa: E402
from winding_prove import prove_unique  # noqa: E402
from winding_tubes import plant  # noqa: E402

from models.numberlink.frontier_count import count_covers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("rows", "cols", "pairs", "seed"):
        parser.add_argument(name, type=int)
    parser.add_argument("--total", type=float, default=450_000, help="the check's conflicts")
    parser.add_argument("--cap", type=float, default=3_000_000, help="frontiers a step")
    parser.add_argument("--lexmin", type=parse_shapes, default=(), help="window shapes")
    args = parser.parse_args()
    began = time.monotonic()
    paths = plant(args.rows, args.cols, args.pairs, args.seed)
    if paths is None:
        sys.exit("no tube plant within its budget")
    print(f"plant: {len(paths)} paths, {time.monotonic() - began:.1f} s", flush=True)
    board = board_of(args.rows, args.cols, paths)
    proved: set[tuple[int, int]] = set()
    began = time.monotonic()
    verdict, _, calls = prove_unique(
        board, paths, total_conflicts=int(args.total), proved=proved, lexmin=args.lexmin
    )
    edges = sum(len(p) - 1 for p in paths)
    took = time.monotonic() - began
    print(
        f"check: {verdict}, {calls} calls, {len(proved)} of {edges} planted edges proved, {took:.1f} s"
    )
    if verdict == "undecided":
        count, stats = count_covers(board, paths, int(args.cap), forced=proved)
        print(f"count: {'gave up' if count is None else count}, {stats}")


if __name__ == "__main__":
    main()
