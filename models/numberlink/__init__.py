"""Numberlink (Flow Free rule): join equal numbers by disjoint paths that cover the board."""

from models.base import Puzzle
from models.numberlink.draw import draw, render
from models.numberlink.generate import check_params, generate
from models.numberlink.rules import format_board, parse, size_of, split
from models.numberlink.verify import verify

PUZZLE = Puzzle(
    name="numberlink",
    parse=parse,
    format=format_board,
    verify=verify,
    generate=generate,
    check_generate=check_params,
    draw=draw,
    render=render,
    size_of=size_of,
    split=split,
    tiny=(
        "instances/numberlink/tiny/tiny_5x5.txt",
        "instances/numberlink/public/5x5_ha_4c_016.txt",
        "instances/numberlink/public/6x6_ha_5c_012.txt",
        "gen:numberlink:6x6:3:pairs=4",
    ),
    tiny_infeasible=("instances/numberlink/infeasible/crossing_3x3.txt",),
    max_cells=40_000,  # a 200x200 board; the flow models outgrow memory soon after
    # a board at the cell cap in the integer form with 5-digit numbers is 240 KB; 16 MiB
    # holds dozens of such boards in one collection (the largest board file here: 10 KB)
    max_file_bytes=16 * 2**20,
)
