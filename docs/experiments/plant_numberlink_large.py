"""Plant Numberlink covers at people's density for speed trials (not proved unique).

    python docs/experiments/plant_numberlink_large.py /tmp/numberlink-planted 30x30:1-4 40x40:1-4 50x50:1-6
    python docs/experiments/plant_numberlink_large.py /tmp/numberlink-sparse 50x50:1-6@74   # cells per pair

The planting of ``scripts/make_winding_numberlink.py`` without its proof: a random
Hamiltonian path cut where it touches itself, then joins and bites until about
``cells / (4.6 * cells ** 0.25)`` paths remain (36, 55 and 77 pairs at 30x30, 40x40 and
50x50), no path touching itself. The boards have the planted cover and usually others,
so they measure how fast a cover is found, never a proof. Deterministic per seed; the
boards (and beside each, ``.sol.json``, the planted cover: the cover any label in the
board's file refers to) go to a scratch folder, not into the repository.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from make_sparse_unique_numberlink import cut_self_touches  # noqa: E402
from make_unique_numberlink import board_of  # noqa: E402
from make_winding_numberlink import _touches, target_cells_per_pair, wind  # noqa: E402

from models.numberlink.generate import hamiltonian_path  # noqa: E402
from models.numberlink.rules import format_board  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for spec in sys.argv[2:]:
        spec, _, density = spec.partition("@")
        size, seeds = spec.split(":")
        rows, cols = map(int, size.split("x"))
        first, last = map(int, seeds.split("-"))
        for seed in range(first, last + 1):
            rng = random.Random(seed)
            cells = rows * cols
            per_pair = float(density) if density else target_cells_per_pair(rows, cols)
            goal = max(2, round(cells / per_pair))
            paths = wind(cut_self_touches(hamiltonian_path(rows, cols, rng)), rng, goal, 60 * cells)
            rng.shuffle(paths)
            assert not any(_touches(p) for p in paths)
            name = f"p_{rows}x{cols}_s{seed}" + (f"_d{density}" if density else "")
            (out / f"{name}.txt").write_text(format_board(board_of(rows, cols, paths)))
            planted = {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}
            (out / f"{name}.sol.json").write_text(json.dumps({"paths": planted}) + "\n")
            print(name, len(paths), "pairs", round(cells / len(paths), 1), "cells per pair")


if __name__ == "__main__":
    main()
