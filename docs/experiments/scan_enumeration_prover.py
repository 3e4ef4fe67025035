"""The complete scan search of ``scanline-numba`` as a prover of uniqueness, on shipped boards.

    python docs/experiments/scan_enumeration_prover.py 20 instances/numberlink/winding/w_12x12_s[1-3].txt \
        instances/numberlink/winding/w_17x17_s[1-3].txt

For each board: the first cover (``solve``), then ``check_unique`` (the complete search
continued past it: exhausted means unique) within the given seconds. One line a board:
cells per pair, the verdict (None: not decided in time) and the seconds of each step. The
generator's SAT backbone proof (``scripts/winding_prove.py``) is the yardstick.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from models.base import SOLVED, Limits  # noqa: E402
from models.numberlink.encodings.scanline_numba import ScanlineNumba  # noqa: E402
from models.numberlink.rules import parse  # noqa: E402


def main() -> None:
    seconds, boards = float(sys.argv[1]), sys.argv[2:]
    for name in boards:
        board = parse(Path(name).read_text(), name)
        encoding = ScanlineNumba({})
        began = time.perf_counter()
        encoding.build(board, Limits())
        found = encoding.solve(Limits(time_limit_s=seconds))
        solved_s = time.perf_counter() - began
        unique = None
        if found.status == SOLVED:
            unique = encoding.check_unique(Limits(time_limit_s=seconds))
        checked_s = time.perf_counter() - began - solved_s
        cells_per_pair = board.rows * board.cols / len(board.ends)
        print(
            f"{Path(name).name}: {cells_per_pair:.1f} cells/pair, {found.status} in "
            f"{solved_s:.2f} s, unique {unique} after {checked_s:.2f} s more",
            flush=True,
        )


if __name__ == "__main__":
    main()
