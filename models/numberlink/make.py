"""Write generated boards and their planted solutions to files.

python -m models.numberlink.make --out instances/numberlink/generated 10x10:1:pairs=8 ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from models.numberlink.generate import generate_with_solution
from models.numberlink.rules import format_board


def main() -> None:
    parser = argparse.ArgumentParser(description="write generated Numberlink boards")
    parser.add_argument("--out", required=True, help="folder for NAME.txt and NAME.planted.json")
    parser.add_argument("specs", nargs="+", help="ROWSxCOLS:SEED[:pairs=K,cut=even]")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in args.specs:
        size, seed, *rest = spec.split(":")
        rows, cols = (int(x) for x in size.split("x"))
        params = dict(item.split("=") for item in rest[0].split(",")) if rest else {}
        pairs = int(params["pairs"]) if "pairs" in params else None
        cut = params.get("cut", "random")
        board, solution = generate_with_solution(rows, cols, int(seed), pairs, cut=cut)
        name = f"gen_{rows}x{cols}_p{len(board.ends)}_s{seed}" + ("_even" if cut == "even" else "")
        (out / f"{name}.txt").write_text(format_board(board))
        (out / f"{name}.planted.json").write_text(json.dumps(solution) + "\n")
        print(out / f"{name}.txt")


if __name__ == "__main__":
    main()
