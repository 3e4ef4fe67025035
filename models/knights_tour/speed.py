"""Speed table for issue 5: build and solve times (medians of repeats) per encoding and board.

    python -m models.knights_tour.speed [--repeats 3] [--only 8x8,50x50] [--quick]

Runs in one process, one run at a time (build then solve, timed separately, as the
harness does); a run slower than ``SLOW_S`` is not repeated. Every answer is checked
with the puzzle's verifier. The closing note of issue 5 quotes its output.
"""

from __future__ import annotations

import argparse
import statistics
import time

from models.base import Limits
from models.registry import encodings, get_puzzle, load_instance

SLOW_S = 10.0
Z3 = ("pbeq-z3", "sum-z3")
CASES: list[tuple[str, tuple[str, ...], float]] = [
    ("8x8", ("circuit-cpsat", *Z3, "warnsdorff"), 120),
    ("10x10", ("circuit-cpsat", *Z3, "warnsdorff"), 120),
    ("12x12", ("circuit-cpsat", *Z3, "warnsdorff"), 120),
    ("16x16", ("circuit-cpsat", "warnsdorff"), 60),
    ("20x20", ("circuit-cpsat", "warnsdorff"), 60),
    ("30x30", ("circuit-cpsat", "warnsdorff"), 60),
    ("50x50", ("circuit-cpsat", "warnsdorff"), 60),
    ("100x100", ("circuit-cpsat", "warnsdorff"), 300),
    ("1000x1000", ("warnsdorff",), 60),
    ("5x5", ("circuit-cpsat", *Z3, "warnsdorff"), 20),
    ("7x7", ("circuit-cpsat", *Z3, "warnsdorff"), 20),
    ("3x8", ("circuit-cpsat", *Z3, "warnsdorff"), 20),
    ("4x10", ("circuit-cpsat", *Z3, "warnsdorff"), 20),
    ("4x30", ("circuit-cpsat", *Z3, "warnsdorff"), 20),
]


def run_once(encoding: str, spec: str, limit: float, options: dict) -> tuple[str, float, float]:
    puzzle = get_puzzle("knights_tour")
    board = load_instance(spec, "knights_tour").instance
    enc = encodings()["knights_tour"][encoding](options)
    limits = Limits(time_limit_s=limit, seed=0, threads=1)
    t0 = time.perf_counter()
    enc.build(board, limits)
    t1 = time.perf_counter()
    outcome = enc.solve(limits)
    t2 = time.perf_counter()
    status = outcome.status
    if outcome.solution is not None and puzzle.verify(board, outcome.solution) is not None:
        status = "wrong"
    return status, t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated board sizes")
    parser.add_argument("--encodings", default="", help="comma-separated encodings")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    chosen = set(filter(None, args.encodings.split(",")))
    print("| board | encoding | status | build s (median) | solve s (median) | solve s runs |")
    print("|---|---|---|---|---|---|")
    for size, names, limit in CASES:
        if only and size not in only:
            continue
        spec = f"instances/knights_tour/{size}.txt"
        for name in names:
            if chosen and name not in chosen:
                continue
            runs = []
            for _ in range(args.repeats):
                runs.append(run_once(name, spec, limit, {}))
                if runs[-1][2] > SLOW_S:
                    break
            statuses = sorted({r[0] for r in runs})
            build = statistics.median(r[1] for r in runs)
            solve = statistics.median(r[2] for r in runs)
            each = " ".join(f"{r[2]:.3f}" for r in runs)
            print(
                f"| {size} | {name} | {'/'.join(statuses)} | {build:.3f} | {solve:.3f} | {each} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
