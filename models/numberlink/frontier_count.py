"""Count the full covers of a Numberlink board, up to two, by frontier dynamic programming.

A complete uniqueness prover (used by ``scripts/winding_prove.py``), not an encoding: it
never builds a cover, it counts them. The board is scanned cell by cell in rows along
its shorter side (width ``W``). After each cell the *frontier* is the ``W + 1`` edges
between the cells already decided and the rest: one vertical edge per column and the
horizontal edge out of the last decided cell. A partial cover (every decided cell at
its final degree: one for a number, two for any other cell) is summed up by what
crosses the frontier, one byte per slot:

* ``0``: no edge;
* ``32 + k``: a stub whose piece reaches a number of colour ``k``;
* ``1..31``: a stub of a *free* piece (no number on it), whose other end is the other
  slot with the same label. Labels are renumbered by first appearance, so two partial
  covers with the same pairing have the same bytes (the Knuth/SIMPATH frontier).

Two partial covers with equal frontiers are completed by exactly the same sets of
decisions on the rest of the board, so the DP keeps one count per frontier (capped
at 2: only "none, one, more" matters). Deciding a cell joins the stubs that enter it
(from above and from the left) and may start stubs to the right and below; it is
refused when a degree is wrong, two different colours meet, a number meets a piece
of another colour, or a free piece closes on itself (a loop: a cover has paths only).
Every full cover gives one chain of allowed decisions and every chain ends in a full
cover, so the last frontier's count is the number of covers (capped). Nothing is
pruned by a heuristic: the only early stops are exact (no frontier left: 0 covers;
the *planted* cover's own frontier reached with count 2: the planted suffix completes
both prefixes, so 2 covers), and the optional ``state_cap`` that gives up (``None``)
rather than guess.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
from numba import njit

from models.numberlink.rules import Board

Cell = tuple[int, int]
FREE_NEW = 31  # label of a piece started at the cell being decided (renumbered after)
COLOUR0 = 32  # colour k is the byte COLOUR0 + k
MAX_COLOURS = 255 - COLOUR0


@njit(cache=True)
def _hash(row) -> np.uint64:
    h = np.uint64(14695981039346656037)
    for v in row:
        h = (h ^ np.uint64(v)) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _normalize(row, mapping) -> None:
    mapping[:] = 0
    nxt = 1
    for j in range(row.shape[0]):
        v = row[j]
        if v != 0 and v < COLOUR0:
            if mapping[v] == 0:
                mapping[v] = nxt
                nxt += 1
            row[j] = mapping[v]


@njit(cache=True)
def _relabel_partner(out, x, new) -> bool:
    """The other stub of free piece ``x`` (the consumed one is already cleared)."""
    for j in range(out.shape[0]):
        if out[j] == x:
            out[j] = new
            return True
    return False


@njit(cache=True)
def _step(row, out, c, k, right, down) -> bool:
    """Decide cell (row being scanned, column ``c``) of colour ``k`` (-1: no number)
    with edges ``right``/``down`` out of it; ``out`` is the next frontier. False when
    no cover has these decisions (module docstring)."""
    w = row.shape[0] - 1
    up = row[c]
    left = row[w]
    out[:] = row
    out[c] = 0
    out[w] = 0
    nin = (up != 0) + (left != 0)
    nout = right + down
    if k >= 0:
        if nin + nout != 1:
            return False
        ck = COLOUR0 + k
        if nin == 0:
            if right:
                out[w] = ck
            else:
                out[c] = ck
            return True
        x = up if up != 0 else left
        if x >= COLOUR0:
            return x == ck
        return _relabel_partner(out, x, ck)
    if nin + nout != 2:
        return False
    if nin == 0:
        out[w] = FREE_NEW
        out[c] = FREE_NEW
        return True
    if nin == 1:
        x = up if up != 0 else left
        if right:
            out[w] = x
        else:
            out[c] = x
        return True
    if up >= COLOUR0 and left >= COLOUR0:
        return up == left
    if up >= COLOUR0 or left >= COLOUR0:
        return _relabel_partner(out, min(up, left), max(up, left))
    if up == left:
        return False  # a loop
    return _relabel_partner(out, left, up)


@njit(cache=True)
def _find(row, h, states, hashes, table) -> int:
    mask = table.shape[0] - 1
    p = np.int64(h & np.uint64(mask))
    while True:
        t = table[p]
        if t == 0:
            return -1 - p
        i = t - 1
        if hashes[i] == h:
            same = True
            for j in range(row.shape[0]):
                if states[i, j] != row[j]:
                    same = False
                    break
            if same:
                return i
        p = (p + 1) & mask


@njit(cache=True)
def _insert(row, cnt, states, counts, hashes, table, n):
    """Add ``cnt`` partial covers with frontier ``row``; returns the (maybe grown)
    arrays and the new number of frontiers."""
    h = _hash(row)
    i = _find(row, h, states, hashes, table)
    if i >= 0:
        counts[i] = min(2, counts[i] + cnt)
        return states, counts, hashes, table, n
    if n == states.shape[0]:
        grown = np.empty((2 * n, states.shape[1]), np.uint8)
        grown[:n] = states
        states = grown
        gc = np.empty(2 * n, np.uint8)
        gc[:n] = counts
        counts = gc
        gh = np.empty(2 * n, np.uint64)
        gh[:n] = hashes
        hashes = gh
    states[n] = row
    counts[n] = cnt
    hashes[n] = h
    table[-1 - i] = n + 1
    n += 1
    if 2 * n > table.shape[0]:
        table = np.zeros(2 * table.shape[0], np.int64)
        mask = table.shape[0] - 1
        for m in range(n):
            p = np.int64(hashes[m] & np.uint64(mask))
            while table[p] != 0:
                p = (p + 1) & mask
            table[p] = m + 1
    return states, counts, hashes, table, n


@njit(cache=True)
def _count(num, right_planted, down_planted, has_plant, forced, state_cap):
    """(count capped at 2, or -1 when a layer passed ``state_cap``; most frontiers in
    a layer; frontiers made in all; the step, in scan order, where it stopped)."""
    rows, w = num.shape
    s = w + 1
    states = np.zeros((1024, s), np.uint8)
    counts = np.zeros(1024, np.uint8)
    hashes = np.zeros(1024, np.uint64)
    table = np.zeros(2048, np.int64)
    n = 0
    start = np.zeros(s, np.uint8)
    states, counts, hashes, table, n = _insert(start, 1, states, counts, hashes, table, n)
    plant = np.zeros(s, np.uint8)
    nxt_plant = np.zeros(s, np.uint8)
    out = np.zeros(s, np.uint8)
    mapping = np.zeros(64, np.uint8)
    widest = 1
    made = 1
    for r in range(rows):
        for c in range(w):
            k = num[r, c]
            cap = 1024
            while cap < n:
                cap *= 2
            ns = np.empty((cap, s), np.uint8)
            nc = np.empty(cap, np.uint8)
            nh = np.empty(cap, np.uint64)
            nt = np.zeros(2 * cap, np.int64)
            nn = 0
            for i in range(n):
                row = states[i]
                for right in range(forced[r, c] & 1, 2 if c < w - 1 else 1):
                    for down in range(forced[r, c] >> 1, 2 if r < rows - 1 else 1):
                        if _step(row, out, c, k, right, down):
                            _normalize(out, mapping)
                            ns, nc, nh, nt, nn = _insert(out, counts[i], ns, nc, nh, nt, nn)
            made += nn
            states, counts, hashes, table, n = ns, nc, nh, nt, nn
            widest = max(widest, n)
            if n == 0:
                return 0, widest, made, r * w + c
            if has_plant:
                ok = _step(plant, nxt_plant, c, k, right_planted[r, c], down_planted[r, c])
                if not ok:
                    return -2, widest, made, r * w + c  # the planted cover is no cover
                _normalize(nxt_plant, mapping)
                plant[:] = nxt_plant
                i = _find(plant, _hash(plant), states, hashes, table)
                if i < 0:
                    return -2, widest, made, r * w + c
                if counts[i] >= 2:
                    return 2, widest, made, r * w + c
            if state_cap > 0 and n > state_cap:
                return -1, widest, made, r * w + c
    return int(counts[0]), widest, made, rows * w - 1


def _is_cover(board: Board, paths: list[list[Cell]]) -> bool:
    """Every cell on exactly one path of neighbouring cells joining two equal numbers."""
    ends = {frozenset(pair) for pair in board.ends.values()}
    seen = [c for p in paths for c in p]
    return (
        len(seen) == len(set(seen)) == board.rows * board.cols
        and all(0 <= r < board.rows and 0 <= c < board.cols for r, c in seen)
        and all(len(p) > 1 and frozenset((p[0], p[-1])) in ends for p in paths)
        and all(
            abs(a - c) + abs(b - d) == 1 for p in paths for (a, b), (c, d) in itertools.pairwise(p)
        )
    )


def _arrays(board: Board, paths: list[list[Cell]] | None):
    """The number grid and the planted edges, turned so that rows run along the
    shorter side."""
    num = np.full((board.rows, board.cols), -1, np.int64)
    for k, (a, b) in enumerate(board.ends.values()):
        num[a] = num[b] = k
    right = np.zeros((board.rows, board.cols), np.int64)
    down = np.zeros((board.rows, board.cols), np.int64)
    for p in paths or []:
        for (r1, c1), (r2, c2) in itertools.pairwise(p):
            r, c = min(r1, r2), min(c1, c2)
            if r1 == r2:
                right[r, c] = 1
            else:
                down[r, c] = 1
    if board.cols > board.rows:
        num, right, down = num.T.copy(), down.T.copy(), right.T.copy()
    return num, right, down


def _forced(board: Board, forced: set[tuple[int, int]] | None) -> np.ndarray:
    """Per cell of the scan: bit 0, its edge to the right is in every cover; bit 1, the
    one below. ``forced`` holds edges as (u, v) cell numbers ``r * cols + c``, u < v."""
    out = np.zeros((board.rows, board.cols), np.int64)
    for u, v in forced or ():
        r, c = divmod(u, board.cols)
        out[r, c] |= 1 if v == u + 1 else 2
    if board.cols > board.rows:  # right and down swap with the axes
        out = (((out & 1) << 1) | (out >> 1)).T.copy()
    return out


def count_covers(
    board: Board,
    paths: list[list[Cell]] | None = None,
    state_cap: int = 0,
    forced: set[tuple[int, int]] | None = None,
) -> tuple[int | None, dict]:
    """Full covers of ``board``: 0, 1 or 2 (meaning two or more), or None when a layer
    held more than ``state_cap`` frontiers (0: no cap). ``paths``, a cover of the
    board, lets the count stop as soon as a second cover is certain. ``forced``: edges
    (u, v), cell numbers ``r * cols + c``) proved to be in every cover, e.g. by SAT;
    only covers with them are counted, which is every cover, with far fewer
    frontiers on the way. The dict: most
    frontiers in one layer (``widest``), frontiers made in all, bytes of the widest
    layer, seconds."""
    if len(board.ends) > MAX_COLOURS:
        raise ValueError(f"at most {MAX_COLOURS} pairs (got {len(board.ends)})")
    if paths is not None and not _is_cover(board, [[tuple(c) for c in p] for p in paths]):
        raise ValueError("the planted paths are not a full cover of the board")
    num, right, down = _arrays(board, paths)
    if num.shape[1] + 1 >= 2 * FREE_NEW:
        raise ValueError(f"the shorter side must be under {2 * FREE_NEW - 1}")
    began = time.monotonic()
    fixed = _forced(board, forced)
    found, widest, made, step = _count(num, right, down, paths is not None, fixed, state_cap)
    if found == -2:
        raise ValueError("the planted paths are not a full cover of the board")
    stats = {
        "widest": int(widest),
        "made": int(made),
        # a layer: the frontiers, counts and hashes, and a table twice as long
        "bytes": int(widest) * (num.shape[1] + 1 + 1 + 8 + 16),
        "seconds": time.monotonic() - began,
        # a second cover found at this step agrees with ``paths`` on every cell after it
        "step": int(step),
        "transposed": board.cols > board.rows,
    }
    return (None if found == -1 else int(found)), stats
