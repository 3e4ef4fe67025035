"""The compiled search behind ``pathsearch-numba``: grow paths from their open ends.

No Encoding subclass lives here (the registry's scan finds nothing in it).

State. ``owner[v]`` is 0 for an empty cell, else ``k + 1`` for the pair whose path holds
it. Every pair not yet joined has two *open ends* (slots ``2k`` and ``2k + 1``): at the
start its two endpoints, later the last cells of the two pieces grown from them.
``slot_at[v]`` is the slot of the open end at ``v`` (or -1). A *move* extends an open
end into an empty neighbour, or *joins* the two open ends of a pair when they are
adjacent (``joined[k]`` is then 1); ``open_end[slot]`` is the cell of that end. Every full cover is reached by exactly one sequence
of decisions (the branches of a decision give different edges at one open end), so
the search finds every solution, which is what ``check_unique`` relies on.

Rules. Each is a consequence of the rules of a full cover (paths disjoint, every cell
covered), never of a unique solution, so a search that exhausts proves infeasibility:

* ``open end``: an open end needs a move (an empty neighbour, or the other open end of
  its pair next to it) -- its path is not finished. One move only: it is forced.
* ``dead cell``: an empty cell lies inside some path, so it needs two neighbours that
  can be its path neighbours: empty cells or open ends. If only open ends are left,
  two of them must belong to one pair (it is that pair's last cell). Exactly two
  candidates, one an open end: that end moves into the cell (forced).

The rules that look at whole regions (stranded pair and region, parity, pocket,
cut cell) are stated and proved in ``_pathsearch_rules.py``; ``_pathsearch_propagate.py``
applies all of them after each decision (forced moves from a worklist, then the rules).

Option ``unique`` (the ``assume_unique`` option of the encoding) adds a rule that is
NOT a consequence of the rules: a path never touches itself (no cell of pair k is
next to a non-consecutive cell of k; so ends that meet must join). Published puzzles
mostly follow it; boards with several solutions often have none that does (a full
cover may need a U-turn). A search exhausted under it proves nothing.

Decisions: the open end with the fewest moves (ties: the fewest free neighbours
around its targets); its moves in order of how few free neighbours the target cell
keeps (hug walls and paths first), a join last. With ``restart`` > 0 the search
restarts from the root after ``restart * luby(i)`` refuted states, breaking ties at
random (a seeded xorshift), until the first solution; the budgets grow without bound,
so the search stays complete. From the first solution on it never restarts, so
continuing it enumerates every further cover exactly once.

The search is resumable: every piece of state lives in arrays, ``run`` stops after a
node budget and continues where it stopped, so the caller checks the clock between
chunks without changing the path the search takes (counters repeat exactly). Besides
the board (``neighbour[v, d]``, -1 off the board; ``parity[v]`` the chessboard colour)
and the state above: the trail of changes (``trail_*``, ``_pathsearch_moves.py``), one
frame per open decision (``frame_trail`` the trail length to undo to, ``frame_slot``
the end that decides, ``frame_moves``/``frame_count`` its moves, ``frame_next`` the
next to try), the rules' scratch arrays (``_pathsearch_rules.py``) and ``meta``, the
counters and scalars by named slot (``NODES``, ``DEPTH``, ``TRAIL_LEN``, ...).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.numberlink.encodings._pathsearch_moves import (
    BACKTRACKS,
    BUDGET,
    DEPTH,
    DESCEND,
    EMPTY,
    EXHAUSTED,
    FAILS,
    FORCED,
    JOIN,
    LUBY,
    META,
    MODE,
    NEXT,
    NODES,
    OPEN,
    RESTART,
    RESTARTS,
    RNG,
    SINCE,
    SOLVED,
    TRAIL_LEN,
    UNIQUE,
    _extend,
    _free_count,
    _join,
    _luby,
    _moves,
    _random,
    _undo_to,
)
from models.numberlink.encodings._pathsearch_propagate import _propagate

__all__ = [
    "BACKTRACKS",
    "BUDGET",
    "DEPTH",
    "DESCEND",
    "EMPTY",
    "EXHAUSTED",
    "FAILS",
    "FORCED",
    "JOIN",
    "LUBY",
    "META",
    "MODE",
    "NEXT",
    "NODES",
    "OPEN",
    "RESTART",
    "RESTARTS",
    "RNG",
    "SINCE",
    "SOLVED",
    "TRAIL_LEN",
    "UNIQUE",
    "run",
]


@njit(cache=True)
def run(
    neighbour,
    parity,
    owner,
    open_end,
    joined,
    slot_at,
    trail_slot,
    trail_from,
    trail_to,
    frame_trail,
    frame_slot,
    frame_moves,
    frame_count,
    frame_next,
    region_of,
    queue,
    region_info,
    pair_regions,
    dfs_order,
    dfs_low,
    subtree,
    dfs_dir,
    dfs_stack,
    meta,
    budget,
):
    """Search on from the stored state for at most ``budget`` decisions.

    Returns SOLVED (the trail holds a full cover; call again for the next one),
    EXHAUSTED (no further solution) or BUDGET (call again to go on)."""
    npairs = joined.shape[0]
    unique = meta[UNIQUE] != 0
    buf = np.empty(5, dtype=np.int32)
    best = np.empty(5, dtype=np.int32)
    key = np.empty(5, dtype=np.int32)
    steps = 0
    while True:
        if meta[MODE] == DESCEND:
            meta[MODE] = NEXT
            ok = _propagate(
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
                -1 if meta[DEPTH] == 0 else frame_trail[meta[DEPTH] - 1],
            )
            if ok:
                if meta[OPEN] == 0:
                    return SOLVED
                bslot = -1
                bm = 99
                bscore = 1 << 30
                for slot in range(2 * npairs):
                    if joined[slot >> 1]:
                        continue
                    m = _moves(slot, neighbour, owner, open_end, buf, unique)
                    score = m * 64
                    for j in range(m):
                        score += 9 if buf[j] == JOIN else _free_count(buf[j], neighbour, owner)
                    if meta[RESTARTS] > 0:
                        score = score * 64 + (_random(meta) & 63)
                    if score < bscore:
                        bscore = score
                        bm = m
                        bslot = slot
                        for j in range(m):
                            best[j] = buf[j]
                # order: fewest free neighbours first, the join last
                for j in range(bm):
                    key[j] = 9 if best[j] == JOIN else _free_count(best[j], neighbour, owner)
                for j in range(1, bm):
                    x, kx = best[j], key[j]
                    i = j - 1
                    while i >= 0 and key[i] > kx:
                        best[i + 1] = best[i]
                        key[i + 1] = key[i]
                        i -= 1
                    best[i + 1] = x
                    key[i + 1] = kx
                d = meta[DEPTH]
                frame_trail[d] = meta[TRAIL_LEN]
                frame_slot[d] = bslot
                frame_count[d] = bm
                frame_next[d] = 0
                for j in range(bm):
                    frame_moves[d, j] = best[j]
                meta[DEPTH] = d + 1
            else:
                meta[FAILS] += 1
                meta[SINCE] += 1
        # NEXT: undo to the top decision and take its next branch
        d = meta[DEPTH]
        if d == 0:
            return EXHAUSTED
        if meta[RESTART] > 0 and meta[SINCE] >= meta[RESTART] * _luby(meta[LUBY]):
            _undo_to(
                frame_trail[0],
                owner,
                open_end,
                joined,
                slot_at,
                trail_slot,
                trail_from,
                trail_to,
                meta,
            )
            meta[DEPTH] = 0
            meta[MODE] = DESCEND
            meta[SINCE] = 0
            meta[LUBY] += 1
            meta[RESTARTS] += 1
            continue
        top = d - 1
        _undo_to(
            frame_trail[top],
            owner,
            open_end,
            joined,
            slot_at,
            trail_slot,
            trail_from,
            trail_to,
            meta,
        )
        i = frame_next[top]
        if i >= frame_count[top]:
            meta[DEPTH] = top
            meta[BACKTRACKS] += 1
            continue
        frame_next[top] = i + 1
        slot = frame_slot[top]
        u = frame_moves[top, i]
        if u == JOIN:
            _join(slot >> 1, open_end, joined, slot_at, trail_slot, trail_from, trail_to, meta)
        else:
            _extend(slot, u, owner, open_end, slot_at, trail_slot, trail_from, trail_to, meta)
        meta[NODES] += 1
        meta[MODE] = DESCEND
        steps += 1
        if steps >= budget:
            return BUDGET
