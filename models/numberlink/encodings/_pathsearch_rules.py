"""Whole-board rules of the path search (``_pathsearch.py``): regions and pockets.

Each holds for every full cover (paths disjoint, every cell covered), so a search
pruned by them stays complete. A *region* is a connected set of empty cells.

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

"""

from __future__ import annotations

from numba import njit

# region_info columns: surplus (#even - #odd cells), pairs able to serve it, the last
# such pair, surplus of pairs held to it, lowest and highest surplus the others allow
R_SURPLUS, R_SERVERS, R_SERVER, R_FIXED, R_LOW, R_HIGH = range(6)
# pair_regions columns 0-3: the regions both ends touch; then how many, ends adjacent,
# the region the pair alone serves (-1: none)
P_COUNT, P_ADJACENT, P_HELD = 4, 5, 6
# subtree columns (pockets): open-end contacts, sum of their parities, surplus
S_CONTACTS, S_PARITY, S_SURPLUS = range(3)


@njit(cache=True)
def _regions(
    neighbour, parity, owner, open_end, joined, region_of, queue, region_info, pair_regions, npairs
):
    """``stranded pair``, ``stranded region`` and ``parity`` (module docstring)."""
    n = owner.shape[0]
    for v in range(n):
        region_of[v] = -1
    nc = 0
    for s in range(n):
        if owner[s] != 0 or region_of[s] >= 0:
            continue
        region_info[nc, R_SURPLUS] = 0
        region_info[nc, R_SERVERS] = 0
        region_info[nc, R_SERVER] = -1
        region_info[nc, R_FIXED] = 0
        region_info[nc, R_LOW] = 0
        region_info[nc, R_HIGH] = 0
        region_of[s] = nc
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            v = queue[head]
            head += 1
            region_info[nc, R_SURPLUS] += 1 - 2 * parity[v]
            for d in range(4):
                u = neighbour[v, d]
                if u >= 0 and owner[u] == 0 and region_of[u] < 0:
                    region_of[u] = nc
                    queue[tail] = u
                    tail += 1
        nc += 1
    for k in range(npairs):
        pair_regions[k, P_COUNT] = 0
        if joined[k]:
            continue
        a, b = open_end[2 * k], open_end[2 * k + 1]
        adjacent = False
        cnt = 0
        for d in range(4):
            u = neighbour[a, d]
            if u < 0:
                continue
            if u == b:
                adjacent = True
            c = region_of[u] if owner[u] == 0 else -1
            if c < 0:
                continue
            seen = False
            for j in range(cnt):
                if pair_regions[k, j] == c:
                    seen = True
            if seen:
                continue
            for e in range(4):
                w = neighbour[b, e]
                if w >= 0 and owner[w] == 0 and region_of[w] == c:
                    pair_regions[k, cnt] = c
                    cnt += 1
                    region_info[c, R_SERVERS] += 1
                    region_info[c, R_SERVER] = k
                    break
        if cnt == 0 and not adjacent:
            return False
        pair_regions[k, P_COUNT] = cnt
        pair_regions[k, P_ADJACENT] = adjacent
    # a region served by one pair only holds that pair's rest
    for k in range(npairs):
        pair_regions[k, P_HELD] = -1
    for c in range(nc):
        if region_info[c, R_SERVERS] == 0:
            return False
        if region_info[c, R_SERVERS] == 1:
            k = region_info[c, R_SERVER]
            if pair_regions[k, P_HELD] >= 0 and pair_regions[k, P_HELD] != c:
                return False
            pair_regions[k, P_HELD] = c
    for k in range(npairs):
        if joined[k]:
            continue
        a, b = open_end[2 * k], open_end[2 * k + 1]
        if parity[a] != parity[b]:
            continue
        gain = 1 if parity[a] == 1 else -1  # extra cells of the other colour
        fixed = pair_regions[k, P_HELD]
        if fixed < 0 and pair_regions[k, P_COUNT] == 1 and not pair_regions[k, P_ADJACENT]:
            fixed = pair_regions[k, 0]
        if fixed >= 0:
            region_info[fixed, R_FIXED] += gain
        else:
            for j in range(pair_regions[k, P_COUNT]):
                c = pair_regions[k, j]
                if gain > 0:
                    region_info[c, R_HIGH] += 1
                else:
                    region_info[c, R_LOW] -= 1
    for c in range(nc):
        s = region_info[c, R_SURPLUS] - region_info[c, R_FIXED]
        if s < region_info[c, R_LOW] or s > region_info[c, R_HIGH]:
            return False
    return True


@njit(cache=True)
def _pockets(
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
):
    """``pocket`` (module docstring): Tarjan's articulation search over the empty cells.

    ``subtree[v, S_CONTACTS]`` counts open-end contacts of v's DFS subtree, ``subtree[v, S_PARITY]`` the parities
    of those ends, ``subtree[v, S_SURPLUS]`` the subtree's surplus (#even - #odd)."""
    n = owner.shape[0]
    for v in range(n):
        dfs_order[v] = -1
    t = 0
    for r in range(n):
        if owner[r] != 0 or dfs_order[r] >= 0:
            continue
        dfs_order[r] = t
        dfs_low[r] = t
        t += 1
        _contacts(r, neighbour, parity, slot_at, subtree)
        dfs_dir[r] = 0
        sp = 0
        dfs_stack[0] = r
        while sp >= 0:
            v = dfs_stack[sp]
            if dfs_dir[v] < 4:
                u = neighbour[v, dfs_dir[v]]
                dfs_dir[v] += 1
                if u < 0 or owner[u] != 0:
                    continue
                if dfs_order[u] < 0:
                    dfs_order[u] = t
                    dfs_low[u] = t
                    t += 1
                    _contacts(u, neighbour, parity, slot_at, subtree)
                    dfs_dir[u] = 0
                    sp += 1
                    dfs_stack[sp] = u
                elif dfs_order[u] < dfs_low[v]:
                    dfs_low[v] = dfs_order[u]
                continue
            sp -= 1
            if sp < 0:
                break
            p = dfs_stack[sp]
            if dfs_low[v] < dfs_low[p]:
                dfs_low[p] = dfs_low[v]
            if dfs_low[v] >= dfs_order[p]:  # v's subtree hangs on p alone
                if subtree[v, S_CONTACTS] == 0:
                    return False
                if subtree[v, S_CONTACTS] == 1:
                    a_par = subtree[v, S_PARITY]
                    want = 0
                    if a_par == parity[p]:
                        want = 1 if a_par == 1 else -1
                    if subtree[v, S_SURPLUS] != want:
                        return False
                elif (
                    _crossings(p, dfs_order[v], t, neighbour, owner, dfs_order, open_end, joined)
                    > 1
                ):
                    return False
            subtree[p, S_CONTACTS] += subtree[v, S_CONTACTS]
            subtree[p, S_PARITY] += subtree[v, S_PARITY]
            subtree[p, S_SURPLUS] += subtree[v, S_SURPLUS]
    return True


@njit(cache=True)
def _side(a, p, lo, hi, neighbour, owner, dfs_order):
    """Where end ``a`` may step: 1 into P (dfs_order in [lo, hi)) and maybe the cut cell p,
    2 outside P and maybe p, 3 into p only, 0 otherwise."""
    inside = False
    outside = False
    at_p = False
    for d in range(4):
        x = neighbour[a, d]
        if x < 0 or owner[x] != 0:
            continue
        if x == p:
            at_p = True
            continue
        if lo <= dfs_order[x] < hi:
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
def _crossings(p, lo, hi, neighbour, owner, dfs_order, open_end, joined):
    """``cut cell``: pairs whose rest must pass the cut cell p between part P and the
    rest of its region (one end steps only into P or p, the other never into P)."""
    count = 0
    for k in range(joined.shape[0]):
        if joined[k]:
            continue
        a, b = open_end[2 * k], open_end[2 * k + 1]
        adjacent = False
        for d in range(4):
            if neighbour[a, d] == b:
                adjacent = True
        if adjacent:
            continue
        sa = _side(a, p, lo, hi, neighbour, owner, dfs_order)
        sb = _side(b, p, lo, hi, neighbour, owner, dfs_order)
        if sa == 3 or sb == 3 or (sa == 1 and sb == 2) or (sa == 2 and sb == 1):
            count += 1
    return count


@njit(cache=True)
def _contacts(v, neighbour, parity, slot_at, subtree):
    subtree[v, S_CONTACTS] = 0
    subtree[v, S_PARITY] = 0
    subtree[v, S_SURPLUS] = 1 - 2 * parity[v]
    for d in range(4):
        u = neighbour[v, d]
        if u >= 0 and slot_at[u] >= 0:
            subtree[v, S_CONTACTS] += 1
            subtree[v, S_PARITY] += parity[u]
