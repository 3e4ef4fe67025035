"""Diagonal Sudoku (Sudoku X): classic Sudoku plus both main diagonals hold 1..n once.

The rules and the encodings live in ``models.sudoku``; only the diagonal flag differs.
"""

from models.sudoku.puzzle import make_puzzle

PUZZLE = make_puzzle(
    "sudoku_x",
    diagonal=True,
    tiny=(
        "instances/sudoku_x/small/order2.txt",
        "instances/sudoku_x/medium-9x9.txt",
        "gen:sudoku_x:9x9:2:clues=30,unique=1",
        "gen:sudoku_x:16x16:1:fill=0.6",
    ),
    infeasible=(
        "instances/sudoku_x/infeasible/diagonal-clash.txt",
        "instances/sudoku_x/infeasible/row-clash.txt",
    ),
)
