"""Tube plants as the start of the winding generator's uniqueness loop (issue 23).

    python docs/experiments/tube_plant_unique.py split 25x25:27:1 [--improve-s 50]
    python docs/experiments/tube_plant_unique.py prove 25x25:27:1 [--total 2e7]

``RxC:K:S`` plants seed S of an R x C board with K pairs as nested tubes
(``scripts/winding_tubes.py``, ends and paths chosen together). ``split`` then runs
``scripts/make_winding_numberlink.py``'s ``split_until_unique`` with the generator's
budgets (200,000 conflicts a check per 400 cells, the question near the planted cover
first) and, with ``--improve-s``, its batched improve phase; ``prove`` asks ``scripts/winding_prove.py``'s backbone proof once, each
question under at most 2 million conflicts and ``--total`` in all, and prints how many
planted edges it proved to be in every cover. Results in
``docs/experiments/numberlink-frontier.md``, "Tube plants as the start of the uniqueness
loop".
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

import make_winding_numberlink as generator  # noqa: E402
from make_unique_numberlink import board_of  # noqa: E402
from winding_prove import prove_unique  # noqa: E402
from winding_tubes import plant  # noqa: E402


def split(rows: int, cols: int, paths: list, seed: int, improve_s: float) -> None:
    args = argparse.Namespace(
        plant="tubes",
        quick_nodes=0,
        prover="sat",
        check_conflicts=200_000,
        improve_conflicts=300_000,
        backend="cadical195",
        lexmin=(),
        verbose=True,
        batch=12,
        local_radius=10,
        local_conflicts=20_000,
        improve_s=improve_s,
        beyond=1.0,
    )
    began = time.monotonic()
    stats = {"cache": {}, "checks": 0, "sat": 0, "counted": 0, "splits": 0, "undecided": 0}
    unique = generator.split_until_unique(rows, cols, paths, args, stats)
    if unique is None:
        print("no split left")
        return
    print(
        f"unique at {len(unique)} pairs ({rows * cols / len(unique):.1f} cells/pair), "
        f"splits {stats['splits']}, undecided {stats['undecided']}, "
        f"{time.monotonic() - began:.1f} s",
        flush=True,
    )
    if improve_s:
        better = generator.improve_batched(rows, cols, unique, random.Random(seed), args, stats)
        print(
            f"improved to {len(better)} pairs ({rows * cols / len(better):.1f} cells/pair), "
            f"joins {stats['joins']}, {time.monotonic() - began:.1f} s"
        )


def prove(rows: int, cols: int, paths: list, total: int) -> None:
    began, proved = time.monotonic(), set()
    verdict, _other, calls = prove_unique(
        board_of(rows, cols, paths),
        paths,
        max_conflicts=2_000_000,
        total_conflicts=total,
        proved=proved,
    )
    edges = sum(len(p) - 1 for p in paths)
    print(
        f"{verdict}, {calls} calls, proved {len(proved)} of {edges} planted edges, "
        f"{time.monotonic() - began:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("split", "prove"))
    parser.add_argument("spec", help="RxC:PAIRS:SEED")
    parser.add_argument("--improve-s", type=float, default=0.0)
    parser.add_argument("--total", type=float, default=2e7, help="prove: conflicts in all")
    args = parser.parse_args()
    size, pairs, seed = args.spec.split(":")
    rows, cols = map(int, size.split("x"))
    began = time.monotonic()
    paths = plant(rows, cols, int(pairs), int(seed))
    if paths is None:
        print("no plant within the budget")
        return
    print(f"planted {len(paths)} pairs in {time.monotonic() - began:.1f} s", flush=True)
    random.Random(int(seed)).shuffle(paths)
    if args.mode == "split":
        split(rows, cols, paths, int(seed), args.improve_s)
    else:
        prove(rows, cols, paths, int(args.total))


if __name__ == "__main__":
    main()
