"""The knight's tour: visit every square once by knight moves (and return, if closed)."""

from models.base import Puzzle
from models.knights_tour.draw import draw, render
from models.knights_tour.generate import generate
from models.knights_tour.rules import Board, format_board, parse, size_of
from models.knights_tour.verify import verify

__all__ = ["PUZZLE", "Board"]

PUZZLE = Puzzle(
    name="knights_tour",
    parse=parse,
    format=format_board,
    verify=verify,
    generate=generate,
    check_generate=generate,  # the board is only its size: making it is checking it
    draw=draw,
    render=render,
    size_of=size_of,
    tiny=(
        "instances/knights_tour/3x10.txt",
        "instances/knights_tour/5x5-open.txt",
        "instances/knights_tour/3x4-open.txt",
        "gen:knights_tour:5x6:0",
    ),
    tiny_infeasible=(
        "instances/knights_tour/5x5.txt",
        "instances/knights_tour/3x4.txt",
        "instances/knights_tour/4x4.txt",
        "gen:knights_tour:3x6:0",  # Schwenk: no closed tour on 3 x 4, 6 or 8
        "gen:knights_tour:4x4:0:open=1",
    ),
    max_cells=4_000_000,  # the scaling suite's 1000x1000 tour fits, a 100000x100000 one not
    max_file_bytes=64 * 2**10,  # one line `ROWS COLS [open]` (10 bytes here), comments aside
)
