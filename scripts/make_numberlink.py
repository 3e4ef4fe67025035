"""Write generated boards and their planted solutions to files.

python scripts/make_numberlink.py --out instances/numberlink/generated 10x10:1:pairs=8 ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import Board, format_board


def shifted(board: Board) -> Board:
    """The board with the second end of its first pair moved to an empty neighbour."""
    cells = [list(row) for row in board.cells]
    for label, (_first, (r, c)) in board.ends.items():
        for rr, cc in board.neighbours(r, c):
            if cells[rr][cc] is None:
                cells[rr][cc], cells[r][c] = label, None
                return Board(board.rows, board.cols, tuple(tuple(x) for x in cells), board.form)
    raise ValueError("no end has an empty neighbour")


def board_spec(spec: str) -> tuple[int, int, int, dict[str, str]]:
    """``ROWSxCOLS:SEED[:key=value,...]`` -> (rows, cols, seed, params)."""
    size, seed, *rest = spec.split(":")
    rows, cols = (int(x) for x in size.split("x"))
    params = dict(item.split("=") for item in rest[0].split(",")) if rest else {}
    return rows, cols, int(seed), params


def main() -> None:
    parser = argparse.ArgumentParser(description="write generated Numberlink boards")
    parser.add_argument("--out", required=True, help="folder for NAME.txt and NAME.planted.json")
    parser.add_argument("--shifted", action="store_true", help="move one end: no solution")
    parser.add_argument("specs", nargs="+", help="ROWSxCOLS:SEED[:pairs=K,cut=even]")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in args.specs:
        rows, cols, seed, params = board_spec(spec)
        pairs = int(params["pairs"]) if "pairs" in params else None
        cut = params.get("cut", "random")
        board, solution = generate_with_solution(rows, cols, seed, pairs, cut=cut)
        name = f"gen_{rows}x{cols}_p{len(board.ends)}_s{seed}" + ("_even" if cut == "even" else "")
        if args.shifted:
            (out / f"shifted_{name[4:]}.txt").write_text(format_board(shifted(board)))
            continue
        (out / f"{name}.txt").write_text(format_board(board))
        (out / f"{name}.planted.json").write_text(json.dumps(solution) + "\n")
        print(out / f"{name}.txt")


if __name__ == "__main__":
    main()
