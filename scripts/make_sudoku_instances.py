"""Writes the generated Sudoku / Sudoku X instance files kept under instances/.

Reproduce: ``python scripts/make_sudoku_instances.py --out instances`` (deterministic;
the files in the repository came from exactly this command).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from models.sudoku.generate import count_solutions, first_solution, generate
from models.sudoku.rules import SudokuInstance, format_instance, format_line

FILLS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)  # shares of cells kept as clues for orders 4 and 5
HEADER = "# generated: python scripts/make_sudoku_instances.py --out instances\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(path)


def _grid_file(path: Path, note: str, instance: SudokuInstance) -> None:
    _write(path, HEADER + f"# {note}\n" + format_instance(instance))


def _contradiction(instance: SudokuInstance, seed: int) -> SudokuInstance:
    """A uniquely solvable puzzle plus one clue that agrees with its peers but not with
    the unique solution: no solution, yet no clue clashes, so proving it takes search."""
    rng = random.Random(seed)
    n = instance.n
    full = first_solution(instance)
    assert full is not None
    empties = [(r, c) for r in range(n) for c in range(n) if not instance.grid[r][c]]
    rng.shuffle(empties)
    for r, c in empties:
        peers = {
            instance.grid[i][j]
            for i in range(n)
            for j in range(n)
            if i == r
            or j == c
            or (i // instance.order, j // instance.order)
            == (r // instance.order, c // instance.order)
            or (instance.diagonal and ((i == j and r == c) or (i + j == n - 1 and r + c == n - 1)))
        }
        options = [d for d in range(1, n + 1) if d not in peers and d != full[r][c]]
        if options:
            grid = [list(row) for row in instance.grid]
            grid[r][c] = rng.choice(options)
            out = SudokuInstance(instance.order, tuple(map(tuple, grid)), instance.diagonal)
            assert count_solutions(out, 1) == 0
            return out
    raise RuntimeError("no cell to spoil")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("instances"))
    root = parser.parse_args().out
    x_dir, c_dir = root / "sudoku_x", root / "sudoku"

    lines = [format_line(generate(9, 9, seed, unique=1, diagonal=True)) for seed in range(1, 21)]
    _write(
        x_dir / "x9-unique-minimal.txt",
        HEADER
        + "# 20 uniquely solvable, minimal 9x9 Sudoku X (seeds 1-20)\n"
        + "\n".join(lines)
        + "\n",
    )
    medium = generate(9, 9, 7, clues=28, unique=1, diagonal=True)
    _grid_file(x_dir / "medium-9x9.txt", "medium 9x9 Sudoku X: unique, 28 clues (seed 7)", medium)
    for n in (16, 25):
        empty = generate(n, n, 1, clues=0, diagonal=True)
        _grid_file(x_dir / f"{n}x{n}" / "empty.txt", f"empty {n}x{n} Sudoku X", empty)
        for fill in FILLS[1:]:
            for seed in (1, 2):
                inst = generate(n, n, seed, fill=fill, diagonal=True)
                note = f"{n}x{n} Sudoku X, fill={fill} ({inst.clue_count} clues), seed {seed}"
                _grid_file(
                    x_dir / f"{n}x{n}" / f"fill{round(fill * 100):02d}-s{seed}.txt", note, inst
                )
    # contradictory puzzles: a search is needed for these two; the hand-written ones clash
    spoiled = _contradiction(generate(9, 9, 11, unique=1, diagonal=True), 11)
    _grid_file(
        x_dir / "infeasible" / "spoiled-unique.txt", "no solution (one clue spoiled)", spoiled
    )
    spoiled = _contradiction(generate(9, 9, 11, unique=1), 11)
    _grid_file(
        c_dir / "infeasible" / "spoiled-unique.txt", "no solution (one clue spoiled)", spoiled
    )
    easy = generate(9, 9, 5, clues=40, unique=1)
    _grid_file(c_dir / "small" / "easy9.txt", "easy unique 9x9 (40 clues, seed 5)", easy)


if __name__ == "__main__":
    main()
