"""Plant very sparse Numberlink covers by SAT, the ends chosen by the solver (not a proof).

    python docs/experiments/plant_numberlink_tubes.py OUT_DIR 30x30:12:1-2 40x40:22:1-2 50x50:34:1-4

``RxC:K:S-T`` plants seeds S..T of an R x C board with K pairs. People's 50x50 puzzles have
about 74 cells per pair; random joins of a cut Hamiltonian path stop near 40
(``plant_numberlink_large.py``), since past that every join left makes a path touch itself.
Here the solver picks the ends as well as the paths (``scripts/winding_tubes.py``
has the formula; the generator's ``--plant tubes`` uses it too). The covers come out as
nested "tubes" of parallel paths, as in people's large puzzles.

Biased: a board made so has a cover the corner rules as clauses find by construction, so it
flatters ``degree-sat``'s ``assume_unique`` (and ``scanline-numba``'s partner); it measures
the other searches, the corner search above all. Each board usually has other covers; it
is never proved unique. Writes ``t_RxC_pK_sS.txt`` and its cover as ``.sol.json``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_unique_numberlink import board_of  # noqa: E402
from winding_tubes import plant  # noqa: E402  (scripts/: the generator's --plant tubes too)

from models.numberlink.rules import format_board  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for spec in sys.argv[2:]:
        size, pairs, seeds = spec.split(":")
        rows, cols = map(int, size.split("x"))
        first, last = map(int, seeds.split("-"))
        for seed in range(first, last + 1):
            paths = plant(rows, cols, int(pairs), seed)
            name = f"t_{rows}x{cols}_p{pairs}_s{seed}"
            if paths is None:
                print(name, "no cover within the budget")
                continue
            random.Random(seed).shuffle(paths)
            (out / f"{name}.txt").write_text(format_board(board_of(rows, cols, paths)))
            cover = {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}
            (out / f"{name}.sol.json").write_text(json.dumps({"paths": cover}) + "\n")
            print(name, len(paths), "pairs", round(rows * cols / len(paths), 1), "cells per pair")


if __name__ == "__main__":
    main()
