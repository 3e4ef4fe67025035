"""The corner search of ``scanline-numba`` (``assume_unique``) on the 8 orientations of boards.

    python docs/experiments/plant_numberlink_large.py /tmp/numberlink-planted 40x40:1-4 50x50:1-6
    python docs/experiments/corner_orientations.py 1000000 /tmp/numberlink-planted/p_*.txt

For each board and orientation (bit 4: transposed, bit 1: columns mirrored, bit 2: rows
mirrored), whether a cover was found within the budget of cells entered, the cells and the
seconds: ``k:OK115k/0.1s``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from models.numberlink.encodings import _scanline as sl
from models.numberlink.encodings.scanline_numba import ScanSearch
from models.numberlink.rules import Board, parse


def oriented(board: Board, k: int) -> Board:
    cells = [list(row) for row in board.cells]
    if k & 4:
        cells = [list(col) for col in zip(*cells, strict=True)]
    if k & 1:
        cells = [row[::-1] for row in cells]
    if k & 2:
        cells = cells[::-1]
    return Board(len(cells), len(cells[0]), tuple(tuple(r) for r in cells), board.form)


def main() -> None:
    budget = int(sys.argv[1])
    for name in sys.argv[2:]:
        board = parse(Path(name).read_text(), name)
        found = []
        for k in range(8):
            search = ScanSearch(oriented(board, k), unique=True)
            start = time.perf_counter()
            ok = search.step(budget) == sl.SOLVED
            cells = int(search.meta[sl.NODES]) // 1000
            found.append(f"{k}:{'OK' if ok else '--'}{cells}k/{time.perf_counter() - start:.2f}s")
        print(Path(name).name, " ".join(found), flush=True)


if __name__ == "__main__":
    main()
