"""Moves on a full Numberlink cover whose paths never touch themselves.

The generator (``make_winding_numberlink.py``) plants a cover by random *joins* (two
paths whose ends are neighbours become one) and *bites* (an end next to the middle of
another path takes one side of it), and improves a board proved unique by the same
moves, each kept only if proved unique again. Pure list work: no solver here.
"""

from __future__ import annotations

import random

Cell = tuple[int, int]
MIN_LEN = 3  # a bite leaves every path at least this long


def _nbrs(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))


def _touches(path: list[Cell]) -> bool:
    at = {c: i for i, c in enumerate(path)}
    for i, c in enumerate(path):
        for q in _nbrs(c):
            j = at.get(q)
            if j is not None and j > i + 1:
                return True
    return False


def wind(paths: list[list[Cell]], rng: random.Random, goal: int, steps: int) -> list[list[Cell]]:
    """Joins and bites (module docstring) until at most ``goal`` paths or ``steps`` tries."""
    paths = [list(p) for p in paths if p]
    owner: dict[Cell, int] = {c: k for k, p in enumerate(paths) for c in p}
    for _ in range(steps):
        live = [k for k in range(len(paths)) if paths[k]]
        if len(live) <= goal:
            break
        k = live[rng.randrange(len(live))]
        p = paths[k] if rng.random() < 0.5 else paths[k][::-1]
        e = p[-1]
        opts = [q for q in _nbrs(e) if q in owner and owner[q] != k]
        if not opts:
            continue
        x = opts[rng.randrange(len(opts))]
        j = owner[x]
        q = paths[j]
        i = q.index(x)
        if i in (0, len(q) - 1):  # join
            new = p + (q if i == 0 else q[::-1])
            if _touches(new):
                continue
            paths[k], paths[j] = new, []
            for c in q:
                owner[c] = k
            continue
        if rng.random() < 0.5:
            take, rest = q[i::-1], q[i + 1 :]
        else:
            take, rest = q[i:], q[:i]
        if len(rest) < MIN_LEN:
            continue
        new = p + take
        if _touches(new):
            continue
        paths[k], paths[j] = new, rest
        for c in take:
            owner[c] = k
    return [p for p in paths if p]


def board_key(paths: list[list[Cell]]) -> frozenset:
    """A board is its set of end pairs: the cache key of its verdict."""
    return frozenset(frozenset((p[0], p[-1])) for p in paths)


def joins(paths: list[list[Cell]], touching: bool = False) -> list[list[list[Cell]]]:
    """Every cover one join fewer: two paths whose ends are neighbours become one, the
    joined path last (only if it does not touch itself, unless ``touching``)."""
    at = {}
    for k, p in enumerate(paths):
        at[p[0]], at[p[-1]] = (k, 0), (k, 1)
    out = []
    for c, (k, s) in at.items():
        for q in _nbrs(c):
            if q in at and at[q][0] > k:
                j, t = at[q]
                a = paths[k] if s == 1 else paths[k][::-1]
                b = paths[j] if t == 0 else paths[j][::-1]
                if touching or not _touches(a + b):
                    out.append([p for i, p in enumerate(paths) if i not in (k, j)] + [a + b])
    return out


def bites(paths: list[list[Cell]]) -> list[list[list[Cell]]]:
    """Every cover one bite away (as many paths): an end of P next to a middle cell x of
    Q takes x and one side of Q, when P stays untouched and Q's rest keeps MIN_LEN cells."""
    owner = {c: k for k, p in enumerate(paths) for c in p}
    out = []
    for k, path in enumerate(paths):
        for p in (path, path[::-1]):
            for x in _nbrs(p[-1]):
                j = owner.get(x, k)
                q = paths[j]
                i = q.index(x) if j != k else 0
                if j == k or i in (0, len(q) - 1):
                    continue
                for take, rest in ((q[i::-1], q[i + 1 :]), (q[i:], q[:i])):
                    if len(rest) >= MIN_LEN and not _touches(p + take):
                        out.append(
                            [r for m, r in enumerate(paths) if m not in (k, j)] + [p + take, rest]
                        )
    return out
