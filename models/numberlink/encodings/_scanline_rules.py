"""Rules of ``scanline-numba`` that look at the whole frontier; each holds for every
full cover (none assumes a unique solution or paths that never touch themselves).

No Encoding subclass lives here (the registry's scan finds nothing in it).

U is the set of undecided cells (scan position >= i). In both scan orders a cell's east
and south neighbours come after it, so U is closed under east and south steps: a
staircase region, simply connected, with no two cells touching only at a corner (the
cell filling the notch is in U too). Undecided edges join cells of U only, so the rest
of every cover lies inside U.

* ``parity``: colour the board like a chessboard (black +1, white -1). U is covered by
  pieces of path inside U. A cell of U that takes no more edges (an end already
  joined, or two edges in) is a piece alone; every other piece runs between two
  *terminals*: the undecided ends of pairs not yet joined and the cells an edge
  already leads into. A piece with two black terminals has one more black cell than
  white, two white ones one fewer, mixed ones as many; so whatever the pairing, the
  colour sum of U equals that of the lone cells plus half that of the terminals. A
  state where it does not is dead (this proves the chessboard-parity boards
  infeasible at once).
* ``nesting``: the boundary of U is a simple closed curve: the staircase it shares
  with the decided cells, then the board's edge. Events lie on it: each cell an edge
  already leads into, at the side that edge crosses (its piece's colour, or a *tag*
  when the piece's far end is another such cell), and each end of a pair not yet
  joined that lies on the boundary, at one of its boundary sides (a segment from the
  cell's centre to that side stays inside a cell only its own path uses). A colour
  with two events in U must be joined inside U by a path between them. Two such joins
  whose events interleave along the curve would cross (Jordan curve theorem in the
  disc U) -- unless a tagged piece lies between them: a join may leave U through one
  cell of a tag, run along that piece outside U and come back through its other cell.
  So interleaving is a contradiction only when no tag event lies between the
  outermost of the four events (the argument of ``_frontier.py``'s ``nesting``, with
  cells for slots). Checked with one stack per window between consecutive tags.

Positions along the curve (``side_key``): the staircase and the board's top and left
edges run monotonically up and to the right, so a north side of cell (r, c) sits at
2(c - r) + 1 and a west side at 2(c - r) - 1 (plus an offset); then come the east sides
of the right column (top to bottom) and the south sides of the bottom row (right to
left). The curve is cut once, between the bottom row and the left column; a cut only
makes the rule miss some crossings (events either side of it count as different
windows), never invent one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N, W = 1, 2
STAMP = 0  # slot of the scratch ``seen`` array counting calls (events are stamped with it)


def side_keys(rows: int, cols: int) -> np.ndarray:
    """Curve position of each cell's N, W, E, S side (E and S only on the board edge)."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    far = 4 * (rows + cols)
    base = 2 * rows + 2
    keys = np.stack(
        [
            base + 2 * (c - r) + 1,
            base + 2 * (c - r) - 1,
            np.where(c == cols - 1, base + 2 * cols + r, far),
            np.where(r == rows - 1, base + 2 * cols + rows + (cols - 1 - c), far),
        ],
        axis=1,
    )
    return keys.astype(np.int32)


@njit(cache=True)
def _bits(x):
    return (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1)


@njit(cache=True)
def parity_ok(i, order, colour, con, fw, sign, suf, sufsrc):
    """The chessboard count of the undecided cells (``parity``)."""
    terminals = sufsrc[i]
    alone = 0
    for t in range(fw[i]):
        x = order[i + t]
        c = con[x]
        if c == 0:
            continue
        if colour[x] > 0:
            terminals -= sign[x]
            alone += sign[x]
        elif _bits(c) >= 2:
            alone += sign[x]
        else:
            terminals += sign[x]
    return terminals == 2 * (suf[i] - alone)


@njit(cache=True)
def nested(i, order, place, colour, con, end, fw, nb, skey, ends, ev_at, ev_col, per, stack):
    """False when two joins that must be made inside U cross (``nesting``).

    Scratch: ``ev_at``/``ev_col`` by curve position (stamped), ``per[k]`` for colour k:
    stamp of its first event, its window, stamp when it is a join, stamp when stacked."""
    ev_at[STAMP] += 1
    st = ev_at[STAMP]
    size = ev_at.shape[0]
    for t in range(fw[i]):  # cells an edge leads into
        x = order[i + t]
        c = con[x]
        if c == 0 or colour[x] > 0 or _bits(c) >= 2:
            continue
        key = skey[x, 0] if c & N else skey[x, 1]
        p = end[x]
        ev_at[key] = st
        ev_col[key] = colour[p] if colour[p] > 0 else -1
    for s in ends:  # ends not yet joined, on the boundary
        if place[s] < i or con[s] != 0:
            continue
        key = -1
        for d in range(2):
            y = nb[s, d]
            if y < 0 or place[y] < i:
                key = skey[s, d]
                break
        if key < 0:
            for d in range(2, 4):
                if nb[s, d] < 0:
                    key = skey[s, d]
                    break
        if key >= 0:
            ev_at[key] = st
            ev_col[key] = colour[s]
    window = 0
    joins = 0
    for key in range(1, size):
        if ev_at[key] != st:
            continue
        k = ev_col[key]
        if k < 0:
            window += 1
        elif per[k, 0] != st:
            per[k, 0] = st
            per[k, 1] = window
        elif per[k, 1] == window:
            per[k, 2] = st
            joins += 1
    if joins < 2:
        return True
    top = 0
    for key in range(1, size):
        if ev_at[key] != st:
            continue
        k = ev_col[key]
        if k < 0 or per[k, 2] != st:
            continue
        if top > 0 and stack[top - 1] == k:
            top -= 1
            per[k, 3] = 0
        elif per[k, 3] == st:
            return False  # k's join is open below another open join: they cross
        else:
            stack[top] = k
            top += 1
            per[k, 3] = st
    return True
