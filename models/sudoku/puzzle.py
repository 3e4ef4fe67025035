"""Builds the Puzzle record for classic and diagonal Sudoku from the same rules."""

from __future__ import annotations

from functools import partial

from models.base import Puzzle
from models.sudoku.draw import draw, render
from models.sudoku.generate import check_params, generate
from models.sudoku.rules import format_instance, parse, size_of, split
from models.sudoku.verify import verify


def make_puzzle(name: str, diagonal: bool, tiny: tuple[str, ...], infeasible: tuple[str, ...]):
    """One Puzzle; only the diagonal flag (and the conformance instances) differ."""
    return Puzzle(
        name=name,
        parse=partial(parse, diagonal=diagonal),
        format=format_instance,
        verify=verify,
        generate=partial(generate, diagonal=diagonal),
        check_generate=partial(check_params, diagonal=diagonal),
        draw=draw,
        render=render,
        size_of=size_of,
        split=split,
        tiny=tiny,
        tiny_infeasible=infeasible,
        encodings_package="models.sudoku.encodings",  # Sudoku X shares them
        max_cells=10_000,  # order 10 (100x100)
        # a collection of a million 81-character puzzles (the largest public sets) is 82 MB;
        # a 100x100 grid, the cell cap, under 50 KB
        max_file_bytes=128 * 2**20,
    )
