"""Speed table for the Numberlink goals (issue 3): median build + solve of a few repeats,
each encoding called directly (no harness, no fork), in this process.

    python -m models.numberlink.speed --repeats 3 --limit 60 > table.md

A run stopped by its limit counts as the limit (the median then reads ">= limit").
"""

from __future__ import annotations

import argparse
import statistics
import time

from models.base import SOLVED, Limits
from models.registry import encodings, load_instance

SEED = "instances/numberlink/numberlink01.txt"
GEN = "instances/numberlink/generated/"
CASES: list[tuple[str, str, dict]] = [
    *[(SEED, name, {}) for name in sorted(encodings().get("numberlink", {}))],
    (SEED, "degree-sat", {"colour": "onehot"}),
    *[
        (spec, name, opts)
        for spec in (
            GEN + "gen_20x20_p40_s1.txt",
            GEN + "gen_20x20_p40_s2.txt",
            "gen:numberlink:20x20:3:cut=even",
            GEN + "gen_30x30_p90_s1.txt",
            GEN + "gen_30x30_p90_s2.txt",
            "gen:numberlink:30x30:1:cut=even",
        )
        for name, opts in (
            ("degree-sat", {}),
            ("degree-sat", {"colour": "onehot"}),
            ("routes-cpsat", {}),
            ("frontier-search", {}),
        )
    ],
]


def one(spec: str, name: str, options: dict, limit: float) -> tuple[str, float]:
    board = load_instance(spec, "numberlink").instance
    enc = encodings()["numberlink"][name](options)
    limits = Limits(time_limit_s=limit, seed=0, threads=1)
    start = time.perf_counter()
    enc.build(board, limits)
    outcome = enc.solve(limits)
    return outcome.status, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument(
        "--only",
        default="",
        help="substring filter on 'instance encoding options' (options '-' = defaults)",
    )
    args = parser.parse_args()
    print("| instance | encoding | options | status | median s (build+solve) | runs |")
    print("|---|---|---|---|---|---|")
    for spec, name, options in CASES:
        opts = ",".join(f"{k}={v}" for k, v in options.items()) or "-"
        if args.only not in f"{spec} {name} {opts}":
            continue
        runs = [one(spec, name, options, args.limit) for _ in range(args.repeats)]
        times = [t if s == SOLVED else max(t, args.limit) for s, t in runs]
        statuses = sorted({s for s, _ in runs})
        med = statistics.median(times)
        shown = f">= {args.limit:.0f}" if all(s != SOLVED for s, _ in runs) else f"{med:.2f}"
        label = spec.rsplit("/", 1)[-1]
        spread = " ".join(f"{t:.2f}" for t in sorted(times))
        print(
            f"| {label} | {name} | {opts} | {'/'.join(statuses)} | {shown} | {spread} |", flush=True
        )


if __name__ == "__main__":
    main()
