"""Forced moves to a fixpoint, then the whole-board rules: the propagation of the path
search (``_pathsearch.py`` states the ``open end`` and ``dead cell`` rules,
``_pathsearch_rules.py`` the others)."""

from __future__ import annotations

from numba import njit

from models.numberlink.encodings._pathsearch_moves import (
    EMPTY,
    FORCED,
    JOIN,
    OPEN,
    TRAIL_LEN,
    _extend,
    _join,
    _moves,
    _touches_self,
)
from models.numberlink.encodings._pathsearch_rules import _pockets, _regions


@njit(cache=True)
def _settle_end(
    slot,
    neighbour,
    owner,
    open_end,
    joined,
    slot_at,
    trail_slot,
    trail_from,
    trail_to,
    meta,
    buf,
    unique,
):
    """``open end`` for one end: no move is dead, one move is made (forced)."""
    k = slot >> 1
    if joined[k]:
        return True
    m = _moves(slot, neighbour, owner, open_end, buf, unique)
    if m == 0:
        return False
    if m == 1:
        if buf[0] == JOIN:
            _join(k, open_end, joined, slot_at, trail_slot, trail_from, trail_to, meta)
        else:
            _extend(slot, buf[0], owner, open_end, slot_at, trail_slot, trail_from, trail_to, meta)
        meta[FORCED] += 1
    return True


@njit(cache=True)
def _settle_cell(
    v,
    neighbour,
    owner,
    open_end,
    joined,
    slot_at,
    trail_slot,
    trail_from,
    trail_to,
    meta,
    buf,
    unique,
):
    """``dead cell`` for one cell: too few candidates is dead, exactly two with an open
    end among them moves that end in (forced)."""
    if owner[v] != 0:
        return True
    free = 0
    nh = 0
    pair_ok = False
    for d in range(4):
        u = neighbour[v, d]
        if u < 0:
            continue
        if owner[u] == 0:
            free += 1
        elif slot_at[u] >= 0:
            s = slot_at[u]
            for j in range(nh):
                if (buf[j] >> 1) == (s >> 1):
                    pair_ok = True
            buf[nh] = s
            nh += 1
    h1 = buf[0]
    if free + nh < 2:
        return False
    if free == 0 and not pair_ok:
        return False
    if free + nh == 2 and nh >= 1:
        if unique and _touches_self(h1, v, neighbour, owner, open_end):
            return False
        _extend(h1, v, owner, open_end, slot_at, trail_slot, trail_from, trail_to, meta)
        meta[FORCED] += 1
        if nh == 2:  # both neighbours are the open ends of one pair (pair_ok)
            _join(h1 >> 1, open_end, joined, slot_at, trail_slot, trail_from, trail_to, meta)
    return True


@njit(cache=True)
def _propagate(
    neighbour,
    parity,
    owner,
    open_end,
    joined,
    slot_at,
    trail_slot,
    trail_from,
    trail_to,
    meta,
    region_of,
    queue,
    region_info,
    pair_regions,
    buf,
    unique,
    dfs_order,
    dfs_low,
    subtree,
    dfs_dir,
    dfs_stack,
    since,
):
    """Apply forced moves to a fixpoint; False when a rule shows the state is dead.

    ``since`` < 0: look at every end and cell until nothing changes. Otherwise the state
    at trail length ``since`` was a fixpoint, and only what lies near a cell changed
    since then can fire: the worklist is the trail itself (forced moves append to it),
    and each entry rechecks the empty cells next to its two cells (``dead cell``) and
    the open ends within distance 1 of them (2 under ``unique``, whose rule looks at
    the neighbours of an end's targets)."""
    npairs = joined.shape[0]
    n = owner.shape[0]
    if since < 0:
        while True:
            before = meta[TRAIL_LEN]
            for slot in range(2 * npairs):
                if not _settle_end(
                    slot,
                    neighbour,
                    owner,
                    open_end,
                    joined,
                    slot_at,
                    trail_slot,
                    trail_from,
                    trail_to,
                    meta,
                    buf,
                    unique,
                ):
                    return False
            for v in range(n):
                if not _settle_cell(
                    v,
                    neighbour,
                    owner,
                    open_end,
                    joined,
                    slot_at,
                    trail_slot,
                    trail_from,
                    trail_to,
                    meta,
                    buf,
                    unique,
                ):
                    return False
            if meta[TRAIL_LEN] == before:
                break
    else:
        t = since
        while t < meta[TRAIL_LEN]:
            for x in (trail_from[t], trail_to[t]):
                for d in range(4):
                    v = neighbour[x, d]
                    if v >= 0 and not _settle_cell(
                        v,
                        neighbour,
                        owner,
                        open_end,
                        joined,
                        slot_at,
                        trail_slot,
                        trail_from,
                        trail_to,
                        meta,
                        buf,
                        unique,
                    ):
                        return False
                for d in range(5):
                    u = x if d == 4 else neighbour[x, d]
                    if u < 0:
                        continue
                    for e in range(5 if unique and d < 4 else 1):
                        w = u if e == 0 else neighbour[u, e - 1]
                        if (
                            w >= 0
                            and slot_at[w] >= 0
                            and not _settle_end(
                                slot_at[w],
                                neighbour,
                                owner,
                                open_end,
                                joined,
                                slot_at,
                                trail_slot,
                                trail_from,
                                trail_to,
                                meta,
                                buf,
                                unique,
                            )
                        ):
                            return False
            t += 1
    if meta[OPEN] == 0:
        return meta[EMPTY] == 0
    if not _regions(
        neighbour,
        parity,
        owner,
        open_end,
        joined,
        region_of,
        queue,
        region_info,
        pair_regions,
        npairs,
    ):
        return False
    return _pockets(
        neighbour,
        parity,
        owner,
        slot_at,
        dfs_order,
        dfs_low,
        subtree,
        dfs_dir,
        dfs_stack,
        open_end,
        joined,
    )
