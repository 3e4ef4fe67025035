"""Quick in-process speed table for Sudoku encodings: build and solve called directly.

Not the harness (no fork per run, no verification of wall/CPU): a warm process runs
every (encoding, instance) once in turn and prints mean / median / max of build+solve.
Each answer is still checked with the puzzle's verifier.

    python -m models.sudoku.measure --puzzle sudoku \
        --instances instances/sudoku/tdoku-benchmark/puzzles3_magictour_top1465 \
        --encodings cnf-sat dlx --time-limit 10 [--sample 100 --seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from models.base import Limits
from models.registry import get_encoding, get_puzzle, load_instance


def _expand(spec: str, puzzle: str) -> list[str]:
    """PATH (every entry of a collection), PATH#N or PATH#A-B; gen: specs pass through."""
    if spec.startswith("gen:"):
        return [spec]
    path, _, part = spec.partition("#")
    count = len(get_puzzle(puzzle).split(Path(path).read_text(encoding="utf-8")))
    if not part:
        return [path] if count == 1 else [f"{path}#{i}" for i in range(1, count + 1)]
    first, _, last = part.partition("-")
    return [f"{path}#{i}" for i in range(int(first), int(last or first) + 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzle", default="sudoku")
    parser.add_argument("--instances", nargs="+", required=True)
    parser.add_argument("--encodings", nargs="+", required=True)
    parser.add_argument("--option", action="append", default=[], help="ENC:KEY=VALUE")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--each", action="store_true", help="print every run too")
    args = parser.parse_args()
    puzzle = get_puzzle(args.puzzle)
    specs = [s for spec in args.instances for s in _expand(spec, args.puzzle)]
    if args.sample and args.sample < len(specs):
        specs = sorted(random.Random(args.seed).sample(specs, args.sample))
    loaded = [load_instance(s, args.puzzle) for s in specs]
    options: dict[str, dict[str, str]] = {}
    for item in args.option:
        enc, _, pair = item.partition(":")
        key, _, value = pair.partition("=")
        options.setdefault(enc, {})[key] = value
    print(f"{len(loaded)} instances, limit {args.time_limit} s per solve")
    print(
        f"{'encoding':28} {'ok':>5} {'other':>5} {'build ms':>9} {'solve ms':>9} "
        f"{'mean ms':>9} {'median':>9} {'max ms':>9}"
    )
    for name in args.encodings:
        cls = get_encoding(args.puzzle, name)
        totals, builds, solves, other = [], [], [], []
        for item in loaded:
            enc = cls(options.get(name))
            limits = Limits(time_limit_s=args.time_limit)
            t0 = time.perf_counter()
            enc.build(item.instance, limits)
            t1 = time.perf_counter()
            outcome = enc.solve(limits)
            t2 = time.perf_counter()
            builds.append(t1 - t0)
            solves.append(t2 - t1)
            totals.append(t2 - t0)
            if args.each:
                print(f"    {name:14} {item.spec:60} {outcome.status:10} {t2 - t0:8.3f} s")
            if outcome.status == "solved":
                problem = puzzle.verify(item.instance, outcome.solution)
                if problem:
                    other.append(f"{item.spec}: wrong: {problem}")
            elif outcome.status != "infeasible" or "infeasible" not in item.spec:
                other.append(f"{item.spec}: {outcome.status}")
        label = name + "".join(f" {k}={v}" for k, v in options.get(name, {}).items())
        print(
            f"{label:28} {len(loaded) - len(other):5d} {len(other):5d} "
            f"{1000 * statistics.mean(builds):9.2f} {1000 * statistics.mean(solves):9.2f} "
            f"{1000 * statistics.mean(totals):9.2f} {1000 * statistics.median(totals):9.2f} "
            f"{1000 * max(totals):9.1f}",
            flush=True,
        )
        for line in other[:5]:
            print("    ", line)


if __name__ == "__main__":
    main()
