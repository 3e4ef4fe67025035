"""How often two ends of a proved board can be joined by routing anew near them.

    python docs/experiments/rejoin_rate.py [--reach 7] [--radius 4 8] BOARD.sol.json ...

For every two ends of different paths at most ``--reach`` steps apart, ``rejoin_within``
(``scripts/winding_window.py``) looks for a cover with the two paths made one, no path
touching itself, equal to the planted cover outside the cells within ``--radius`` of the
two ends. Pairs an even number of steps apart are asked too (at the first radius): by the
chessboard argument in that module's docstring they never can be. A cover found is then
put to the batched densify's local test (``other_within``, radius 10): the joins worth a
whole-board proof. Then, per board, the joins of neighbouring ends
as they are (no routing anew), those that make a path touch itself counted apart (the
generator never tries them), each put to the same local test. The question was whether
such moves would feed the densify where clean joins of neighbouring ends run out (``docs/experiments/numberlink-frontier.md``, thirteenth
session).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from winding_moves import _touches, joins  # noqa: E402
from winding_window import other_within, rejoin_within, within  # noqa: E402


def _load(cover: Path) -> tuple[int, int, list]:
    rows, cols = map(int, re.search(r"(\d+)x(\d+)", cover.name).groups())
    paths = [[tuple(c) for c in p] for p in json.loads(cover.read_text())["paths"].values()]
    return rows, cols, paths


def plain_joins(rows: int, cols: int, paths: list) -> dict[tuple[str, str], int]:
    """(clean | touching, the local test's verdict) -> joins of neighbouring ends."""
    ends = {c for p in paths for c in (p[0], p[-1])}
    out: dict[tuple[str, str], int] = {}
    for trial in joins(paths, touching=True):
        moved = ends - {c for p in trial for c in (p[0], p[-1])}
        verdict = other_within(rows, cols, trial, within(rows, cols, moved, 10), 20_000)[0]
        key = ("touching" if _touches(trial[-1]) else "clean", verdict)
        out[key] = out.get(key, 0) + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reach", type=int, default=7)
    parser.add_argument("--radius", type=int, nargs="+", default=[4, 8])
    parser.add_argument("covers", nargs="+", type=Path)
    args = parser.parse_args()
    print(
        "| board | pairs odd / even | radius | rejoined (odd) | of them not neighbours "
        "| rejoined (even) | pass local test | s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    boards = {cover: _load(cover) for cover in args.covers}
    for cover, (rows, cols, paths) in boards.items():
        owner = {c: k for k, p in enumerate(paths) for c in (p[0], p[-1])}
        pairs = [
            (a, b)
            for a in owner
            for b in owner
            if a < b and owner[a] != owner[b] and abs(a[0] - b[0]) + abs(a[1] - b[1]) <= args.reach
        ]
        odd = [(a, b) for a, b in pairs if (a[0] + a[1] + b[0] + b[1]) % 2]
        even = [(a, b) for a, b in pairs if not (a[0] + a[1] + b[0] + b[1]) % 2]
        for n, radius in enumerate(args.radius):
            began = time.monotonic()
            found, far, passed, even_found = 0, 0, 0, 0
            for a, b in even if n == 0 else []:  # never joined: counted to show it
                even_found += (
                    rejoin_within(
                        rows, cols, paths, a, b, within(rows, cols, {a, b}, radius), 20_000
                    )
                    is not None
                )
            for a, b in odd:
                joined = rejoin_within(
                    rows, cols, paths, a, b, within(rows, cols, {a, b}, radius), 20_000
                )
                if joined is None:
                    continue
                found += 1
                far += abs(a[0] - b[0]) + abs(a[1] - b[1]) > 1
                local = within(rows, cols, {a, b}, 10)
                passed += other_within(rows, cols, joined, local, 20_000)[0] == "unsat"
            print(
                f"| {cover.name.split('.')[0]} | {len(odd)} / {len(even)} | {radius} | {found} | {far} "
                f"| {even_found if n == 0 else '-'} | {passed} | {time.monotonic() - began:.1f} |",
                flush=True,
            )

    print(
        "\n| board | clean joins: unsat / other / undecided | touching joins: unsat / other / undecided |"
    )
    print("|---|---|---|")
    for cover, (rows, cols, paths) in boards.items():
        n = plain_joins(rows, cols, paths)
        row = [
            " / ".join(str(n.get((kind, v), 0)) for v in ("unsat", "other", "undecided"))
            for kind in ("clean", "touching")
        ]
        print(f"| {cover.name.split('.')[0]} | {row[0]} | {row[1]} |", flush=True)


if __name__ == "__main__":
    main()
