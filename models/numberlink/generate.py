"""Generated boards with a planted full-cover solution.

A random Hamiltonian path of the grid is grown from a serpentine by many *backbite*
moves (Mansfield 2006: join an end to one of its grid neighbours on the path and
reverse the piece in between), then cut into ``pairs`` segments of at least two
cells; the segment ends become the endpoint pairs. Every board so made has a
full-cover solution (the planted one), though not necessarily a unique one.

Difficulty follows path length more than board size, so ``pairs`` and ``cut`` are the
knobs (``cut=even`` deals the cells evenly over the paths, ``random`` leaves a long tail):
the default ``round(rows * cols / 10)`` gives many short paths (easy for SAT even at
30x30); a handful of pairs gives few long paths (hard for every encoding from about
15x15). Deterministic for a seed: only ``random.Random(seed)`` draws.

Write files with ``python scripts/make_numberlink.py --out DIR 10x10:1:pairs=8 ...``.
"""

from __future__ import annotations

import random

from models.numberlink.rules import INTEGER, LETTER, Board, letter_labels

Cell = tuple[int, int]


def default_pairs(rows: int, cols: int) -> int:
    return max(1, round(rows * cols / 10))


def hamiltonian_path(
    rows: int, cols: int, rng: random.Random, moves: int | None = None
) -> list[Cell]:
    """A random Hamiltonian path of the rows x cols grid by backbite moves."""
    path = [(r, c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]
    n = len(path)
    moves = 30 * n + 200 if moves is None else moves
    for _ in range(moves):
        if rng.random() < 0.5:
            path.reverse()
        r, c = path[0]
        options = [
            (r + dr, c + dc)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        nb = options[rng.randrange(len(options))]
        if n > 1 and nb == path[1]:
            continue
        i = path.index(nb)
        path[:i] = path[i - 1 :: -1]
    return path


def check_params(
    rows: int,
    cols: int,
    seed: int = 0,
    pairs: int | None = None,
    form: str = INTEGER,
    cut: str = "random",
) -> None:
    """Raise ValueError (TypeError for an unknown parameter) for what ``generate`` refuses,
    without making a board: a ``gen:`` spec is checked up front (exit 2, not a run's error)."""
    if not (isinstance(rows, int) and isinstance(cols, int)) or rows < 2 or cols < 2:
        raise ValueError(f"board must be at least 2x2, got {rows}x{cols}")
    pairs = default_pairs(rows, cols) if pairs is None else pairs
    if not isinstance(pairs, int) or not 1 <= pairs <= rows * cols // 2:
        raise ValueError(f"pairs must be an integer in 1..{rows * cols // 2}, got {pairs!r}")
    if form not in (INTEGER, LETTER):
        raise ValueError(f"form must be {INTEGER!r} or {LETTER!r}, got {form!r}")
    if cut not in ("random", "even"):
        raise ValueError(f"cut must be 'random' or 'even', got {cut!r}")


def generate_with_solution(
    rows: int,
    cols: int,
    seed: int,
    pairs: int | None = None,
    form: str = INTEGER,
    cut: str = "random",
) -> tuple[Board, dict]:
    """The board and its planted solution ``{"paths": {...}}``."""
    check_params(rows, cols, seed, pairs, form, cut)
    pairs = default_pairs(rows, cols) if pairs is None else pairs
    rng = random.Random(seed)
    path = hamiltonian_path(rows, cols, rng)
    lengths = _lengths(rows * cols, pairs, cut, rng)
    labels = letter_labels(pairs) if form == LETTER else [str(k) for k in range(1, pairs + 1)]
    order = list(range(pairs))
    rng.shuffle(order)  # labels not in path order
    grid: list[list[str | None]] = [[None] * cols for _ in range(rows)]
    paths, start = {}, 0
    for k, length in enumerate(lengths):
        label = labels[order[k]]
        seg = path[start : start + length]
        start += length
        grid[seg[0][0]][seg[0][1]] = label
        grid[seg[-1][0]][seg[-1][1]] = label
        paths[label] = [list(x) for x in seg]
    board = Board(rows, cols, tuple(tuple(r) for r in grid), form)
    # each path from its first end (reading order) to its second, as the board lists them
    for label, (a, _b) in board.ends.items():
        if tuple(paths[label][0]) != a:
            paths[label].reverse()
    return board, {"paths": dict(sorted(paths.items(), key=lambda kv: labels.index(kv[0])))}


def _lengths(cells: int, pairs: int, cut: str, rng: random.Random) -> list[int]:
    """Segment lengths >= 2 adding up to ``cells``.

    ``random``: a uniformly random composition (long tail: a 30x30 board with 90 pairs
    has a few paths of 50 cells). ``even``: spare cells dealt one by one to random
    segments, so lengths cluster around the mean (the "many short paths" style)."""
    spare = cells - 2 * pairs
    if cut == "even":
        lengths = [2] * pairs
        for _ in range(spare):
            lengths[rng.randrange(pairs)] += 1
        return lengths
    bars = sorted(rng.sample(range(spare + pairs - 1), pairs - 1))
    lengths, prev = [], -1
    for b in [*bars, spare + pairs - 1]:
        lengths.append(b - prev - 1 + 2)
        prev = b
    return lengths


def generate(
    rows: int,
    cols: int,
    seed: int,
    pairs: int | None = None,
    form: str = INTEGER,
    cut: str = "random",
) -> Board:
    """A board with a planted full-cover solution (see the module docstring)."""
    return generate_with_solution(rows, cols, seed, pairs, form, cut)[0]
