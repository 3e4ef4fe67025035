"""N-Queens completion: n queens on an n x n board, some given, none attacking another.

A newcomer's puzzle, the worked example of the README's "Adding a puzzle": this folder is
all it takes (rules, checker, generator, pictures, tiny boards, two encodings).
"""

from models.base import Puzzle
from nqueens.rules import draw, format_board, generate, parse, render, size_of, verify

PUZZLE = Puzzle(
    name="nqueens",
    parse=parse,
    format=format_board,
    verify=verify,
    generate=generate,
    draw=draw,
    render=render,
    size_of=size_of,
    tiny=("gen:nqueens:6x6:1:given=2", "gen:nqueens:8x8:2:given=3"),
    tiny_infeasible=("gen:nqueens:3x3:0",),
    max_cells=400,
)
