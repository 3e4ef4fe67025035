"""State changes of the path search (``_pathsearch.py``): moves, joins, the trail;
and its small helpers (Luby sequence, xorshift, free-neighbour count).

The trail records every change in order: ``trail_slot[t]`` is the open-end slot that
moved (or ``-1 - k`` for the join of pair k), ``trail_from[t]``/``trail_to[t]`` the cells;
``meta[TRAIL_LEN]`` its length. ``_undo_to(mark)`` unwinds it to an earlier length.
"""

from __future__ import annotations

from numba import njit

SOLVED, EXHAUSTED, BUDGET = 1, 2, 3
# meta: one int64 array of counters and scalars, by slot
TRAIL_LEN, DEPTH, MODE, NODES, BACKTRACKS, FORCED, FAILS, EMPTY, OPEN, UNIQUE = range(10)
RESTART, SINCE, LUBY, RNG, RESTARTS = range(10, 15)
META = 15
DESCEND, NEXT = 0, 1
JOIN = -2


@njit(cache=True)
def _extend(slot, v, owner, open_end, slot_at, trail_slot, trail_from, trail_to, meta):
    """Move open end ``slot`` into empty cell ``v`` (trailed)."""
    a = open_end[slot]
    t = meta[TRAIL_LEN]
    trail_slot[t], trail_from[t], trail_to[t] = slot, a, v
    meta[TRAIL_LEN] = t + 1
    owner[v] = (slot >> 1) + 1
    slot_at[a] = -1
    slot_at[v] = slot
    open_end[slot] = v
    meta[EMPTY] -= 1


@njit(cache=True)
def _join(k, open_end, joined, slot_at, trail_slot, trail_from, trail_to, meta):
    """Join the two open ends of pair ``k`` (trailed as slot -1 - k)."""
    t = meta[TRAIL_LEN]
    trail_slot[t], trail_from[t], trail_to[t] = -1 - k, open_end[2 * k], open_end[2 * k + 1]
    meta[TRAIL_LEN] = t + 1
    joined[k] = 1
    slot_at[open_end[2 * k]] = -1
    slot_at[open_end[2 * k + 1]] = -1
    meta[OPEN] -= 1


@njit(cache=True)
def _undo_to(mark, owner, open_end, joined, slot_at, trail_slot, trail_from, trail_to, meta):
    t = meta[TRAIL_LEN]
    while t > mark:
        t -= 1
        s = trail_slot[t]
        if s >= 0:
            v = trail_to[t]
            owner[v] = 0
            slot_at[v] = -1
            open_end[s] = trail_from[t]
            slot_at[trail_from[t]] = s
            meta[EMPTY] += 1
        else:
            k = -1 - s
            joined[k] = 0
            slot_at[open_end[2 * k]] = 2 * k
            slot_at[open_end[2 * k + 1]] = 2 * k + 1
            meta[OPEN] += 1
    meta[TRAIL_LEN] = t


@njit(cache=True)
def _touches_self(slot, u, neighbour, owner, open_end):
    """Would end ``slot`` moving into ``u`` put u next to another cell of its pair
    (other than the moving end and the pair's other open end)?"""
    k1 = (slot >> 1) + 1
    h = open_end[slot]
    other = open_end[slot ^ 1]
    for d in range(4):
        w = neighbour[u, d]
        if w >= 0 and w != h and w != other and owner[w] == k1:
            return True
    return False


@njit(cache=True)
def _moves(slot, neighbour, owner, open_end, out, unique):
    """Moves of open end ``slot`` into ``out`` (JOIN for a join); returns how many."""
    h = open_end[slot]
    other = open_end[slot ^ 1]
    n = 0
    can_join = False
    for d in range(4):
        u = neighbour[h, d]
        if u < 0:
            continue
        if u == other:
            can_join = True
        elif owner[u] == 0 and not (unique and _touches_self(slot, u, neighbour, owner, open_end)):
            out[n] = u
            n += 1
    if can_join:
        if unique:
            out[0] = JOIN  # open_end that meet must join, or the path touches itself
            return 1
        out[n] = JOIN
        n += 1
    return n


@njit(cache=True)
def _luby(i):
    """1, 1, 2, 1, 1, 2, 4, 1, ... (Luby, Sinclair and Zuckerman)."""
    size, seq = 1, 0
    while size < i + 1:
        seq += 1
        size = 2 * size + 1
    while size - 1 != i:
        size = (size - 1) >> 1
        seq -= 1
        i = i % size
    return 1 << seq


@njit(cache=True)
def _random(meta):
    x = meta[RNG]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    meta[RNG] = x
    return x


@njit(cache=True)
def _free_count(u, neighbour, owner):
    f = 0
    for d in range(4):
        w = neighbour[u, d]
        if w >= 0 and owner[w] == 0:
            f += 1
    return f
