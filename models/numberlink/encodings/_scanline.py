"""The compiled search behind ``scanline-numba``: decide the board cell by cell.

No Encoding subclass lives here (the registry's scan finds nothing in it).

Order. Cells are visited in a fixed order, row by row or by anti-diagonals from the
top-left corner; in both, a cell's north and west neighbours come before it and its
east and south ones after it. At each cell the search decides which of its east and
south edges the cover uses (its north and west edges were decided by those
neighbours), so that an end has exactly one edge and any other cell exactly two: the
Flow Free rule, so every cell is covered by construction. Each full cover is the
outcome of exactly one sequence of choices, so continuing after a solution
enumerates every cover once (``check_unique`` relies on it).

State. ``con[v]`` holds v's decided edges as bits (N=1, W=2, E=4, S=8). Each piece of
path made of decided edges has two ends: an end cell of the pair, or an undecided
cell that an edge already leads into. ``end[x]`` is, for an end ``x`` of a piece, the
other end (for a cell no edge touches, itself), so joining two pieces is O(1):
the two far ends become each other's ``end``. A trail records every change (array,
index, old value) to undo a choice.

Rules valid for every full cover (the search stays complete):

* ``degree``: an end takes one edge, any other cell two; a cell that still needs more
  edges than its undecided east/south neighbours offer is dead. Checked at the cell,
  and for the east neighbour as soon as its north and west edges are decided (right
  after the current cell in both orders).
* ``loop``: an edge whose two cells are the two ends of one piece closes a cycle,
  which no cover by paths holds.
* ``two numbers``: an edge joining a piece that holds an end of pair a to one that
  holds an end of pair b != a would put both on one path.
* ``parity`` and ``nesting``: counts over the whole frontier, stated and proved in
  ``_scanline_rules.py``. The search with the corner rules, which only looks for covers
  and never proves, leaves both out (a pass over the frontier at every cell, which
  costs more time than the cells it saves).
* ``failed states`` (option ``memo``): the completions of a partial cover depend only
  on the scan position and, for each undecided cell an edge leads into, how many
  edges lead in and the far end of its piece: an end of pair k (code k), another such
  cell (the pair of cells is named by the first in scan order), or nothing more to
  add (a numbered cell already joined, or two edges in). A state whose whole subtree
  held no cover is stored (``_scanline_memo.py``) and cut when met again.

Why no reachability rules: the undecided cells of either order form one connected
staircase that touches every piece end, so "every open end can still reach its
partner" and "no undecided region without an end" never fire here.

Rules of ``assume_unique`` (option ``unique``): valid for every cover in which no path
touches itself (no two cells of one path are neighbours unless consecutive on it; so
ends that meet must be joined directly). Published puzzles follow that; it is NOT
implied by a unique solution (on the 2x3 board with one pair in the two left cells
of the top and bottom rows, the only cover makes a U-turn), so a search exhausted
under these rules proves nothing and the encoding never answers ``infeasible`` with
them. A *corner* is an empty cell whose two edges turn, named by the two directions
it opens to (an SE corner uses its east and south edges). Its *inside cell* is the
diagonal neighbour between those two edges.

* ``concentric corners``: the inside cell ``q`` of a D-corner ``p`` is an end whose
  edge leaves away from ``p`` (in one of D's directions), or another D-corner.
  Proof for SE (the others are mirror images): let ``a`` (south of p) and ``b`` (east
  of p) be p's path neighbours; q is a neighbour of both. If q had edges to both, a,
  p, b, q would close a 4-cycle. If q had an edge to exactly one of them, say b, then
  q and a lie on p's path, are neighbours, and are not consecutive (a's path
  neighbours are p and one cell other than q): a touch. So q has no edge to a or b:
  an empty q then uses its east and south edges (an SE corner), and an end q's one
  edge points east or south. (This is the "two paths could be rerouted" argument in
  the form that holds for any cover without touches: the only alternative to a
  concentric corner is a U-turn.)
* ``lanes``: applied along the diagonal, the rule says a D-corner starts a lane of
  D-corners that ends at a numbered cell; the board edge cannot end it, because a
  D-corner has neighbours in both D directions, so its inside cell exists. Hence an
  SE corner (SW corner) is only allowed where a number lies on its south-east
  (south-west) diagonal ray before the board edge (the static tables ``can``; the
  first non-empty cell on the ray is then that number), and making one forbids the
  north and west (north and east) edges of every cell of its lane and of the end
  (``forbid``, kept on the trail). An east neighbour left with no edge in must become
  an SE corner, so it needs ``can`` too. NE and NW corners have their inside cell
  already decided when they are made (it precedes them in both orders), so the rule
  is checked on it directly.
* ``no touch``: the assumption itself, where it is cheap: two neighbours whose edge is
  decided and unused lie on different paths. Checked once v is decided, for v and its
  four neighbours (v's north and west edges were decided before, its east and south
  ones now), and for v's east neighbour x and x's north one (decided at that cell).
  Pieces only merge, so this is the check at the neighbour's turn made earlier. Pieces
  are in a union-find with undo (``uf``: parent, the pair a root's piece holds, size;
  union by size, changes on the trail); two pieces holding ends of one pair are one
  path. A touch made later, when two pieces already side by side are joined, is not
  looked for (the cover found is verified as a cover either way).

Counters (deterministic): ``nodes`` (cells entered), ``backtracks`` (cells whose every
choice failed), ``fails`` (choices refused by a rule), ``memo_hits`` (states cut
because they failed before), ``stored`` (failed states kept).

The search is resumable: ``run`` stops after a node budget at a cell boundary and
continues where it stopped, so the caller checks the clock between chunks and the
counters repeat whatever the chunking.
"""

from __future__ import annotations

from numba import njit

from models.numberlink.encodings._scanline_memo import frontier_key, memo_add, memo_has
from models.numberlink.encodings._scanline_rules import _bits, nested, parity_ok

N, W, E, S = 1, 2, 4, 8

# meta slots
NODES, BACKTRACKS, FAILS, MEMO_HITS, STORED = 0, 1, 2, 3, 4
POS, MODE, TRAIL_LEN, UNIQUE, MEMO, SOLUTIONS, NEST, MEMO_LIMIT = 5, 6, 7, 8, 9, 10, 11, 12
META = 13
DESCEND, TRY = 0, 1
SOLVED, EXHAUSTED, BUDGET, GROW = 1, 2, 3, 4
# trail arrays
CON, END, FORBID, UF = 0, 1, 2, 3


@njit(cache=True)
def _set(arr, which, idx, val, trail, meta):
    """Set ``arr[idx] = val``, recording the old value on the trail."""
    if arr[idx] != val:
        t = meta[TRAIL_LEN]
        trail[t, 0] = which
        trail[t, 1] = idx
        trail[t, 2] = arr[idx]
        meta[TRAIL_LEN] = t + 1
        arr[idx] = val


@njit(cache=True)
def _undo(to, con, end, forbid, uf, trail, meta):
    t = meta[TRAIL_LEN]
    while t > to:
        t -= 1
        which, idx, old = trail[t, 0], trail[t, 1], trail[t, 2]
        if which == CON:
            con[idx] = old
        elif which == END:
            end[idx] = old
        elif which == FORBID:
            forbid[idx] = old
        else:
            uf[idx] = old
    meta[TRAIL_LEN] = to


@njit(cache=True)
def _find(x, uf):
    while uf[x] != x:
        x = uf[x]
    return x


@njit(cache=True)
def _same_path(u, v, uf):
    """Are u and v on one path: one piece, or pieces holding ends of one pair?"""
    n = uf.shape[0] // 3
    a = _find(u, uf)
    b = _find(v, uf)
    return a == b or (uf[n + a] > 0 and uf[n + a] == uf[n + b])


@njit(cache=True)
def _union(v, b, uf, trail, meta):
    """Merge the pieces of v and b (union by size; parent, colour and size on the trail)."""
    n = uf.shape[0] // 3
    a = _find(v, uf)
    c = _find(b, uf)
    if uf[2 * n + a] < uf[2 * n + c]:
        a, c = c, a
    _set(uf, UF, c, a, trail, meta)
    _set(uf, UF, 2 * n + a, uf[2 * n + a] + uf[2 * n + c], trail, meta)
    _set(uf, UF, n + a, max(uf[n + a], uf[n + c]), trail, meta)


@njit(cache=True)
def _connect(v, d, nb, colour, con, end, forbid, uf, trail, meta):
    """Add the edge from ``v`` in direction column ``d`` (2 = E, 3 = S), or refuse it."""
    b = nb[v, d]
    if b < 0:
        return False
    bit = 1 << d
    back = 1 << (3 - d)
    if (forbid[v] & bit) or (forbid[b] & back):
        return False
    if colour[b] > 0 and con[b] != 0:
        return False  # an end takes one edge
    e1 = end[v]
    e2 = end[b]
    if e1 == b and e2 == v:
        return False  # loop
    if colour[e1] > 0 and colour[e2] > 0 and colour[e1] != colour[e2]:
        return False  # two numbers on one path
    _set(con, CON, v, con[v] | bit, trail, meta)
    _set(con, CON, b, con[b] | back, trail, meta)
    _set(end, END, e1, e2, trail, meta)
    _set(end, END, e2, e1, trail, meta)
    if meta[UNIQUE] != 0:
        _union(v, b, uf, trail, meta)
    return True


@njit(cache=True)
def _room(x, i, place, nb, colour, con, forbid):
    """Can undecided cell ``x`` still get the edges it needs, once the cell at scan
    position ``i`` is decided? An edge is open if not forbidden and its other cell is
    undecided (a decided neighbour's edges are final)."""
    need = (1 if colour[x] > 0 else 2) - _bits(con[x])
    if need < 0:
        return False
    free = 0
    for d in range(4):
        y = nb[x, d]
        if y >= 0 and place[y] > i and not (forbid[x] & (1 << d)):
            free += 1
    return need <= free


@njit(cache=True)
def _lane(v, dv, dh, mask, i, place, nb, colour, con, forbid, trail, meta):
    """Forbid ``mask`` along the diagonal from ``v`` (vertical column ``dv``, horizontal
    ``dh``) up to and including the first numbered cell. A cell already marked was
    marked with the rest of its lane by an outer corner of the same lane: stop there."""
    x = nb[nb[v, dv], dh]
    while True:
        if (forbid[x] & mask) == mask:
            return True
        _set(forbid, FORBID, x, forbid[x] | mask, trail, meta)
        if con[x] & mask:
            return False
        if not _room(x, i, place, nb, colour, con, forbid):
            return False
        if colour[x] > 0:
            return True
        x = nb[nb[x, dv], dh]


@njit(cache=True)
def _corner_ok(v, i, place, nb, colour, con, can, forbid, trail, meta):
    """The unique-only rules for the shape just given to empty cell ``v``."""
    s = con[v]
    if s == E | S:
        return can[v, 0] != 0 and _lane(
            v, 3, 2, N | W, i, place, nb, colour, con, forbid, trail, meta
        )
    if s == W | S:
        return can[v, 1] != 0 and _lane(
            v, 3, 1, N | E, i, place, nb, colour, con, forbid, trail, meta
        )
    if s == N | E or s == N | W:
        side = 2 if s & E else 1
        q = nb[nb[v, 0], side]
        if colour[q] > 0:
            return (con[q] & (s ^ 15)) == 0  # its edge points away
        return con[q] == s
    return True


@njit(cache=True)
def _apply(v, i, opt, place, nb, colour, can, con, end, forbid, uf, trail, meta, unique):
    """Give cell ``v`` (scan position ``i``) the out edges ``opt`` (E/S bits) and check
    what that decides."""
    for d in range(2, 4):
        if (opt & (1 << d)) and not _connect(v, d, nb, colour, con, end, forbid, uf, trail, meta):
            return False
    if (
        unique
        and colour[v] == 0
        and not _corner_ok(v, i, place, nb, colour, con, can, forbid, trail, meta)
    ):
        return False
    if unique:  # no touch: a neighbour whose edge to v is decided and unused is on another path
        for d in range(4):
            u = nb[v, d]
            if u >= 0 and not (con[v] & (1 << d)) and _same_path(u, v, uf):
                return False
        x = nb[v, 2]  # v's east neighbour and its north one: their edge is decided too
        if x >= 0 and nb[x, 0] >= 0 and not (con[x] & N) and _same_path(nb[x, 0], x, uf):
            return False
    for d in range(2, 4):  # the east and south neighbours
        x = nb[v, d]
        if x >= 0 and not _room(x, i, place, nb, colour, con, forbid):
            return False
    # an east neighbour with no edge in from north or west must become an SE corner
    x = nb[v, 2]
    return not (unique and x >= 0 and colour[x] == 0 and con[x] == 0 and can[x, 0] == 0)


@njit(cache=True)
def run(
    order,
    place,
    colour,
    nb,
    can,
    fw,
    sign,
    suf,
    sufsrc,
    skey,
    ends,
    con,
    end,
    forbid,
    uf,
    trail,
    frames,
    fopt,
    slots,
    keys,
    kbuf,
    ev_at,
    ev_col,
    per,
    stack,
    meta,
    budget,
):
    """Search on from the stored state for at most ``budget`` cells entered.

    Returns SOLVED (``con`` holds a full cover; call again for the next one), EXHAUSTED
    (no further cover under the rules), BUDGET (call again to go on) or GROW (the
    failed-state store is full: grow it, then call again). ``frames[i]``
    holds, for scan position i: trail length at entry, next choice, number of choices
    (-1: cut by the memo), solutions found before entry; ``fopt[i]`` the choices."""
    n = order.shape[0]
    unique = meta[UNIQUE] != 0
    memo = meta[MEMO] != 0
    steps = 0
    while True:
        i = meta[POS]
        if meta[MODE] == DESCEND:
            if i == n:
                meta[SOLUTIONS] += 1
                meta[MODE] = TRY
                meta[POS] = n - 1
                return SOLVED
            if steps >= budget:
                return BUDGET
            steps += 1
            meta[NODES] += 1
            v = order[i]
            frames[i, 0] = meta[TRAIL_LEN]
            frames[i, 1] = 0
            frames[i, 3] = meta[SOLUTIONS]
            meta[MODE] = TRY
            if (not unique and not parity_ok(i, order, colour, con, fw, sign, suf, sufsrc)) or (
                meta[NEST] != 0
                and not nested(
                    i, order, place, colour, con, end, fw, nb, skey, ends, ev_at, ev_col, per, stack
                )
            ):
                meta[FAILS] += 1
                frames[i, 2] = -1
                continue
            if memo:
                frontier_key(i, order, place, colour, con, end, fw, kbuf)
                if memo_has(slots, keys, kbuf):
                    meta[MEMO_HITS] += 1
                    frames[i, 2] = -1
                    continue
            c = con[v]
            need = (1 if colour[v] > 0 else 2) - _bits(c)
            k = 0
            if need == 0:
                fopt[i, 0] = 0
                k = 1
            elif need == 1:
                first, second = (S, E) if c & W else (E, S)  # turn first
                for o in (first, second):
                    col = 2 if o == E else 3
                    if nb[v, col] >= 0 and not (forbid[v] & o):
                        fopt[i, k] = o
                        k += 1
            elif need == 2 and nb[v, 2] >= 0 and nb[v, 3] >= 0:
                fopt[i, 0] = E | S
                k = 1
            frames[i, 2] = k
        # TRY: the next choice at position i, or back up
        v = order[i]
        moved = False
        while frames[i, 1] < frames[i, 2]:
            opt = fopt[i, frames[i, 1]]
            frames[i, 1] += 1
            _undo(frames[i, 0], con, end, forbid, uf, trail, meta)
            if _apply(v, i, opt, place, nb, colour, can, con, end, forbid, uf, trail, meta, unique):
                moved = True
                break
            meta[FAILS] += 1
        if moved:
            meta[POS] = i + 1
            meta[MODE] = DESCEND
            continue
        _undo(frames[i, 0], con, end, forbid, uf, trail, meta)
        if frames[i, 2] >= 0:
            if memo and frames[i, 3] == meta[SOLUTIONS]:
                if meta[STORED] >= keys.shape[0] and keys.shape[0] < meta[MEMO_LIMIT]:
                    return GROW  # the caller grows the store; calling again resumes here
                frontier_key(i, order, place, colour, con, end, fw, kbuf)
                meta[STORED] = memo_add(slots, keys, kbuf, meta[STORED])
            meta[BACKTRACKS] += 1
            frames[i, 2] = -1  # nothing more to try here (and stored once)
        if i == 0:
            return EXHAUSTED
        meta[POS] = i - 1
