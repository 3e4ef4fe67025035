"""The compiled search behind ``pathsearch-numba``: grow paths from their open ends.

No Encoding subclass lives here (the registry's scan finds nothing in it).

State. ``col[v]`` is 0 for an empty cell, else ``k + 1`` for the pair whose path holds
it. Every pair not yet joined has two *open ends* (slots ``2k`` and ``2k + 1``): at the
start its two endpoints, later the last cells of the two pieces grown from them.
``headof[v]`` is the slot of the open end at ``v`` (or -1). A *move* extends an open
end into an empty neighbour, or *joins* the two open ends of a pair when they are
adjacent (the pair is then done). Every full cover is reached by exactly one sequence
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
* ``stranded pair``: the rest of pair k's path runs through empty cells only, so the
  two open ends are adjacent or both touch one connected region of empty cells.
* ``stranded region``: a region of empty cells is covered by the pieces of paths that
  run through it; each such piece joins two open ends of one pair that both touch the
  region. A region no pair can serve is dead; a region only pair k can serve holds
  the rest of k's path, and a pair cannot be the only server of two regions (its
  remaining path is one connected piece).
* ``parity``: colour the board like a chessboard. The rest of a pair's path between
  open ends of equal colour c holds one cell more of the other colour than of c;
  between ends of different colours it holds as many of each. So each region's
  surplus (#even - #odd cells) must be the sum of the surpluses of the pairs that
  pass through it: within the range the pairs able to serve it allow (pairs held to
  the region by ``stranded region`` count exactly).
* ``pocket``: if one empty cell v separates a part P from the rest of its region
  (Tarjan's articulation test), every piece of path inside P leaves P through v or
  through an open end next to P. With no open end next to P the only exit is v, and
  a piece entering and leaving through v closes a cycle with no end: dead. With
  exactly one contact (open end a), P is one piece from a's neighbour to v's
  neighbour visiting all of P, so P's surplus is fixed by the parities of a and v.
* ``cut cell``: with v and P as above, a pair whose ends are not adjacent, one end
  stepping only into P or v and the other never into P (or either end only into v),
  has its rest pass through v (it runs through empty cells of the region, and P meets
  the rest only at v). Two such pairs would share v: dead.

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
chunks without changing the path the search takes (counters repeat exactly).
"""

from __future__ import annotations

import numpy as np
from numba import njit

SOLVED, EXHAUSTED, BUDGET = 1, 2, 3
# meta slots
TL, DEPTH, MODE, NODES, BACKTRACKS, FORCED, FAILS, EMPTY, OPEN, UNIQUE = range(10)
RESTART, SINCE, LUBY, RNG, RESTARTS = range(10, 15)
META = 15
DESCEND, NEXT = 0, 1
JOIN = -2


@njit(cache=True)
def _extend(slot, v, col, ends, headof, tk, ta, tb, meta):
    """Move open end ``slot`` into empty cell ``v`` (trailed)."""
    a = ends[slot]
    t = meta[TL]
    tk[t], ta[t], tb[t] = slot, a, v
    meta[TL] = t + 1
    col[v] = (slot >> 1) + 1
    headof[a] = -1
    headof[v] = slot
    ends[slot] = v
    meta[EMPTY] -= 1


@njit(cache=True)
def _join(k, ends, done, headof, tk, ta, tb, meta):
    """Join the two open ends of pair ``k`` (trailed as slot -1 - k)."""
    t = meta[TL]
    tk[t], ta[t], tb[t] = -1 - k, ends[2 * k], ends[2 * k + 1]
    meta[TL] = t + 1
    done[k] = 1
    headof[ends[2 * k]] = -1
    headof[ends[2 * k + 1]] = -1
    meta[OPEN] -= 1


@njit(cache=True)
def _undo_to(mark, col, ends, done, headof, tk, ta, tb, meta):
    t = meta[TL]
    while t > mark:
        t -= 1
        s = tk[t]
        if s >= 0:
            v = tb[t]
            col[v] = 0
            headof[v] = -1
            ends[s] = ta[t]
            headof[ta[t]] = s
            meta[EMPTY] += 1
        else:
            k = -1 - s
            done[k] = 0
            headof[ends[2 * k]] = 2 * k
            headof[ends[2 * k + 1]] = 2 * k + 1
            meta[OPEN] += 1
    meta[TL] = t


@njit(cache=True)
def _touches_self(slot, u, nbr, col, ends):
    """Would end ``slot`` moving into ``u`` put u next to another cell of its pair
    (other than the moving end and the pair's other open end)?"""
    k1 = (slot >> 1) + 1
    h = ends[slot]
    other = ends[slot ^ 1]
    for d in range(4):
        w = nbr[u, d]
        if w >= 0 and w != h and w != other and col[w] == k1:
            return True
    return False


@njit(cache=True)
def _moves(slot, nbr, col, ends, out, unique):
    """Moves of open end ``slot`` into ``out`` (JOIN for a join); returns how many."""
    h = ends[slot]
    other = ends[slot ^ 1]
    n = 0
    can_join = False
    for d in range(4):
        u = nbr[h, d]
        if u < 0:
            continue
        if u == other:
            can_join = True
        elif col[u] == 0 and not (unique and _touches_self(slot, u, nbr, col, ends)):
            out[n] = u
            n += 1
    if can_join:
        if unique:
            out[0] = JOIN  # ends that meet must join, or the path touches itself
            return 1
        out[n] = JOIN
        n += 1
    return n


@njit(cache=True)
def _regions(nbr, par, col, ends, done, comp, queue, rinfo, kcomp, npairs):
    """``stranded pair``, ``stranded region`` and ``parity`` (module docstring)."""
    n = col.shape[0]
    for v in range(n):
        comp[v] = -1
    nc = 0
    for s in range(n):
        if col[s] != 0 or comp[s] >= 0:
            continue
        # rinfo[c]: 0 surplus, 1 servers, 2 last server, 3 fixed sum, 4 low, 5 high
        rinfo[nc, 0] = 0
        rinfo[nc, 1] = 0
        rinfo[nc, 2] = -1
        rinfo[nc, 3] = 0
        rinfo[nc, 4] = 0
        rinfo[nc, 5] = 0
        comp[s] = nc
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            v = queue[head]
            head += 1
            rinfo[nc, 0] += 1 - 2 * par[v]
            for d in range(4):
                u = nbr[v, d]
                if u >= 0 and col[u] == 0 and comp[u] < 0:
                    comp[u] = nc
                    queue[tail] = u
                    tail += 1
        nc += 1
    for k in range(npairs):
        kcomp[k, 4] = 0
        if done[k]:
            continue
        a, b = ends[2 * k], ends[2 * k + 1]
        adjacent = False
        cnt = 0
        for d in range(4):
            u = nbr[a, d]
            if u < 0:
                continue
            if u == b:
                adjacent = True
            c = comp[u] if col[u] == 0 else -1
            if c < 0:
                continue
            seen = False
            for j in range(cnt):
                if kcomp[k, j] == c:
                    seen = True
            if seen:
                continue
            for e in range(4):
                w = nbr[b, e]
                if w >= 0 and col[w] == 0 and comp[w] == c:
                    kcomp[k, cnt] = c
                    cnt += 1
                    rinfo[c, 1] += 1
                    rinfo[c, 2] = k
                    break
        if cnt == 0 and not adjacent:
            return False
        kcomp[k, 4] = cnt
        kcomp[k, 5] = adjacent
    # a region served by one pair only holds that pair's rest
    for k in range(npairs):
        kcomp[k, 6] = -1
    for c in range(nc):
        if rinfo[c, 1] == 0:
            return False
        if rinfo[c, 1] == 1:
            k = rinfo[c, 2]
            if kcomp[k, 6] >= 0 and kcomp[k, 6] != c:
                return False
            kcomp[k, 6] = c
    for k in range(npairs):
        if done[k]:
            continue
        a, b = ends[2 * k], ends[2 * k + 1]
        if par[a] != par[b]:
            continue
        gain = 1 if par[a] == 1 else -1  # extra cells of the other colour
        fixed = kcomp[k, 6]
        if fixed < 0 and kcomp[k, 4] == 1 and not kcomp[k, 5]:
            fixed = kcomp[k, 0]
        if fixed >= 0:
            rinfo[fixed, 3] += gain
        else:
            for j in range(kcomp[k, 4]):
                c = kcomp[k, j]
                if gain > 0:
                    rinfo[c, 5] += 1
                else:
                    rinfo[c, 4] -= 1
    for c in range(nc):
        s = rinfo[c, 0] - rinfo[c, 3]
        if s < rinfo[c, 4] or s > rinfo[c, 5]:
            return False
    return True


@njit(cache=True)
def _pockets(nbr, par, col, headof, disc, low, sub, itr, stack, ends, done):
    """``pocket`` (module docstring): Tarjan's articulation search over the empty cells.

    ``sub[v, 0]`` counts open-end contacts of v's DFS subtree, ``sub[v, 1]`` the parities
    of those ends, ``sub[v, 2]`` the subtree's surplus (#even - #odd)."""
    n = col.shape[0]
    for v in range(n):
        disc[v] = -1
    t = 0
    for r in range(n):
        if col[r] != 0 or disc[r] >= 0:
            continue
        disc[r] = t
        low[r] = t
        t += 1
        _contacts(r, nbr, par, headof, sub)
        itr[r] = 0
        sp = 0
        stack[0] = r
        while sp >= 0:
            v = stack[sp]
            if itr[v] < 4:
                u = nbr[v, itr[v]]
                itr[v] += 1
                if u < 0 or col[u] != 0:
                    continue
                if disc[u] < 0:
                    disc[u] = t
                    low[u] = t
                    t += 1
                    _contacts(u, nbr, par, headof, sub)
                    itr[u] = 0
                    sp += 1
                    stack[sp] = u
                elif disc[u] < low[v]:
                    low[v] = disc[u]
                continue
            sp -= 1
            if sp < 0:
                break
            p = stack[sp]
            if low[v] < low[p]:
                low[p] = low[v]
            if low[v] >= disc[p]:  # v's subtree hangs on p alone
                if sub[v, 0] == 0:
                    return False
                if sub[v, 0] == 1:
                    a_par = sub[v, 1]
                    want = 0
                    if a_par == par[p]:
                        want = 1 if a_par == 1 else -1
                    if sub[v, 2] != want:
                        return False
                elif _crossings(p, disc[v], t, nbr, col, disc, ends, done) > 1:
                    return False
            sub[p, 0] += sub[v, 0]
            sub[p, 1] += sub[v, 1]
            sub[p, 2] += sub[v, 2]
    return True


@njit(cache=True)
def _side(a, p, lo, hi, nbr, col, disc):
    """Where end ``a`` may step: 1 into P (disc in [lo, hi)) and maybe the cut cell p,
    2 outside P and maybe p, 3 into p only, 0 otherwise."""
    inside = False
    outside = False
    at_p = False
    for d in range(4):
        x = nbr[a, d]
        if x < 0 or col[x] != 0:
            continue
        if x == p:
            at_p = True
            continue
        if lo <= disc[x] < hi:
            inside = True
        else:
            outside = True
    if inside and not outside:
        return 1
    if outside and not inside:
        return 2
    if at_p and not inside and not outside:
        return 3
    return 0


@njit(cache=True)
def _crossings(p, lo, hi, nbr, col, disc, ends, done):
    """``cut cell``: pairs whose rest must pass the cut cell p between part P and the
    rest of its region (one end steps only into P or p, the other never into P)."""
    count = 0
    for k in range(done.shape[0]):
        if done[k]:
            continue
        a, b = ends[2 * k], ends[2 * k + 1]
        adjacent = False
        for d in range(4):
            if nbr[a, d] == b:
                adjacent = True
        if adjacent:
            continue
        sa = _side(a, p, lo, hi, nbr, col, disc)
        sb = _side(b, p, lo, hi, nbr, col, disc)
        if sa == 3 or sb == 3 or (sa == 1 and sb == 2) or (sa == 2 and sb == 1):
            count += 1
    return count


@njit(cache=True)
def _contacts(v, nbr, par, headof, sub):
    sub[v, 0] = 0
    sub[v, 1] = 0
    sub[v, 2] = 1 - 2 * par[v]
    for d in range(4):
        u = nbr[v, d]
        if u >= 0 and headof[u] >= 0:
            sub[v, 0] += 1
            sub[v, 1] += par[u]


@njit(cache=True)
def _propagate(
    nbr,
    par,
    col,
    ends,
    done,
    headof,
    tk,
    ta,
    tb,
    meta,
    comp,
    queue,
    rinfo,
    kcomp,
    buf,
    unique,
    disc,
    low,
    sub,
    itr,
    stack,
):
    """Apply forced moves to a fixpoint; False when a rule shows the state is dead."""
    n = col.shape[0]
    npairs = done.shape[0]
    while True:
        changed = False
        for slot in range(2 * npairs):
            k = slot >> 1
            if done[k]:
                continue
            m = _moves(slot, nbr, col, ends, buf, unique)
            if m == 0:
                return False
            if m == 1:
                if buf[0] == JOIN:
                    _join(k, ends, done, headof, tk, ta, tb, meta)
                else:
                    _extend(slot, buf[0], col, ends, headof, tk, ta, tb, meta)
                meta[FORCED] += 1
                changed = True
        for v in range(n):
            if col[v] != 0:
                continue
            free = 0
            nh = 0
            pair_ok = False
            for d in range(4):
                u = nbr[v, d]
                if u < 0:
                    continue
                if col[u] == 0:
                    free += 1
                elif headof[u] >= 0:
                    s = headof[u]
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
                if unique and _touches_self(h1, v, nbr, col, ends):
                    return False
                _extend(h1, v, col, ends, headof, tk, ta, tb, meta)
                meta[FORCED] += 1
                if nh == 2:  # both neighbours are the ends of one pair (pair_ok)
                    _join(h1 >> 1, ends, done, headof, tk, ta, tb, meta)
                changed = True
        if not changed:
            break
    if meta[OPEN] == 0:
        return meta[EMPTY] == 0
    if not _regions(nbr, par, col, ends, done, comp, queue, rinfo, kcomp, npairs):
        return False
    return _pockets(nbr, par, col, headof, disc, low, sub, itr, stack, ends, done)


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
def _free_count(u, nbr, col):
    f = 0
    for d in range(4):
        w = nbr[u, d]
        if w >= 0 and col[w] == 0:
            f += 1
    return f


@njit(cache=True)
def run(
    nbr,
    par,
    col,
    ends,
    done,
    headof,
    tk,
    ta,
    tb,
    fr_mark,
    fr_slot,
    fr_c,
    fr_n,
    fr_i,
    comp,
    queue,
    rinfo,
    kcomp,
    disc,
    low,
    sub,
    itr,
    stack,
    meta,
    budget,
):
    """Search on from the stored state for at most ``budget`` decisions.

    Returns SOLVED (the trail holds a full cover; call again for the next one),
    EXHAUSTED (no further solution) or BUDGET (call again to go on)."""
    npairs = done.shape[0]
    unique = meta[UNIQUE] != 0
    buf = np.empty(5, dtype=np.int32)
    best = np.empty(5, dtype=np.int32)
    key = np.empty(5, dtype=np.int32)
    steps = 0
    while True:
        if meta[MODE] == DESCEND:
            meta[MODE] = NEXT
            ok = _propagate(
                nbr,
                par,
                col,
                ends,
                done,
                headof,
                tk,
                ta,
                tb,
                meta,
                comp,
                queue,
                rinfo,
                kcomp,
                buf,
                unique,
                disc,
                low,
                sub,
                itr,
                stack,
            )
            if ok:
                if meta[OPEN] == 0:
                    return SOLVED
                bslot = -1
                bm = 99
                bscore = 1 << 30
                for slot in range(2 * npairs):
                    if done[slot >> 1]:
                        continue
                    m = _moves(slot, nbr, col, ends, buf, unique)
                    score = m * 64
                    for j in range(m):
                        score += 9 if buf[j] == JOIN else _free_count(buf[j], nbr, col)
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
                    key[j] = 9 if best[j] == JOIN else _free_count(best[j], nbr, col)
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
                fr_mark[d] = meta[TL]
                fr_slot[d] = bslot
                fr_n[d] = bm
                fr_i[d] = 0
                for j in range(bm):
                    fr_c[d, j] = best[j]
                meta[DEPTH] = d + 1
            else:
                meta[FAILS] += 1
                meta[SINCE] += 1
        # NEXT: undo to the top decision and take its next branch
        d = meta[DEPTH]
        if d == 0:
            return EXHAUSTED
        if meta[RESTART] > 0 and meta[SINCE] >= meta[RESTART] * _luby(meta[LUBY]):
            _undo_to(fr_mark[0], col, ends, done, headof, tk, ta, tb, meta)
            meta[DEPTH] = 0
            meta[MODE] = DESCEND
            meta[SINCE] = 0
            meta[LUBY] += 1
            meta[RESTARTS] += 1
            continue
        top = d - 1
        _undo_to(fr_mark[top], col, ends, done, headof, tk, ta, tb, meta)
        i = fr_i[top]
        if i >= fr_n[top]:
            meta[DEPTH] = top
            meta[BACKTRACKS] += 1
            continue
        fr_i[top] = i + 1
        slot = fr_slot[top]
        u = fr_c[top, i]
        if u == JOIN:
            _join(slot >> 1, ends, done, headof, tk, ta, tb, meta)
        else:
            _extend(slot, u, col, ends, headof, tk, ta, tb, meta)
        meta[NODES] += 1
        meta[MODE] = DESCEND
        steps += 1
        if steps >= budget:
            return BUDGET
