"""Classic Sudoku of order k (n = k*k): rows, columns and k x k boxes hold 1..n once."""

from models.sudoku.puzzle import make_puzzle

PUZZLE = make_puzzle(
    "sudoku",
    diagonal=False,
    tiny=(
        "instances/sudoku/small/order2.txt",
        "instances/sudoku/small/easy9.txt",
        "gen:sudoku:9x9:3:unique=1",
    ),
    infeasible=(
        "instances/sudoku/infeasible/row-clash.txt",
        "instances/sudoku/infeasible/no-candidate.txt",
        "instances/sudoku/infeasible/spoiled-unique.txt",
    ),
)
