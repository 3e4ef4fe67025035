"""Time each search of ``scanline-numba``'s race per turn, in process, on given boards.

    python docs/experiments/scanline_turns.py gen:numberlink:30x30:1:pairs=12 \\
        instances/numberlink/unique/u_50x50_s1.txt

One line a board: the answer (verified), the time of build + solve, which search answered,
then per search its turns and the mean time of a turn (``make``: building the backups
when they join). The turns are fixed in work; this shows whether they are about equal in
time, which is what the race's constants aim at (``scanline_numba.py``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from models.base import Limits
from models.numberlink.encodings.scanline_numba import ScanlineNumba
from models.numberlink.verify import verify
from models.registry import load_instance


def timed(name: str, search, spent: dict[str, list[float]]) -> None:
    """Wrap ``search.step`` to add its time and count to ``spent[name]``."""
    step = search.step

    def counted(budget: int) -> int:
        start = time.perf_counter()
        code = step(budget)
        tally = spent.setdefault(name, [0.0, 0])
        tally[0] += time.perf_counter() - start
        tally[1] += 1
        return code

    search.step = counted


def main() -> None:
    for spec in sys.argv[1:]:
        board = load_instance(spec, "numberlink").instance
        enc = ScanlineNumba({})
        began = time.perf_counter()
        enc.build(board, Limits(seed=0))
        spent: dict[str, list[float]] = {}
        timed("corner", enc.untouched, spent)
        timed("complete", enc.search, spent)
        make = enc.make_backups

        def made(make=make, spent=spent):
            start = time.perf_counter()
            members = make()
            spent["make"] = [time.perf_counter() - start, 1]
            for member in members:
                timed(member.name, member.search, spent)
            return members

        enc.make_backups = made
        out = enc.solve(Limits(time_limit_s=10, seed=0))
        took = time.perf_counter() - began
        ok = out.solution is not None and verify(board, out.solution) is None
        who = [k for k in ("untouched", "backup", "sat", "fill") if out.counters.get(k)]
        turns = " ".join(f"{k}:{n}x{1000 * t / n:.1f}ms" for k, (t, n) in spent.items())
        print(f"{spec}: {out.status} verified={ok} {took:.2f} s by {who} {turns}", flush=True)


if __name__ == "__main__":
    main()
