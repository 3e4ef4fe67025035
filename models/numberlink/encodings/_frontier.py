"""The search behind ``frontier-search``: a row-major frontier DFS with memoised failures.

No Encoding subclass lives here (the registry's scan finds nothing in it).

Cells are visited in row-major order on a board ``height`` x ``width``. At each cell
the search picks its east and south edges (north and west were fixed by earlier
cells) so that the degree is exactly 1 at an end and exactly 2 elsewhere: that is
the Flow Free rule (full cover, every cell on a path, ends are path ends), so every
cell is covered by construction.

The *frontier* ``plug`` has ``width + 1`` slots: ``plug[j]`` (``j < width``) is the
vertical edge into column ``j`` (south edge of the current row for ``j`` left of
the cell, north edge of the cell and to its right otherwise), ``plug[width]`` the
west edge of the cell. A slot is 0 (no edge), a colour ``k + 1`` > 0 (the path piece
through that edge already holds an end of pair ``k``; such a piece crosses the
frontier once), or a negative tag (a piece with no end: it crosses the frontier
twice, and both slots carry the same tag). Joining two pieces at a cell:

* two colours: only if equal (the pair is complete);
* a colour and a tag: the tag's other slot takes the colour;
* two tags: if equal the piece would close into a cycle with no end (never part of a
  full cover); else one tag's other slot takes the other tag.

Every piece that stops crossing the frontier is a complete pair path, so the state
``(cell, frontier)`` (tags renumbered in slot order) determines which completions
exist. A state whose subtree held no solution is stored in ``failed`` and never
searched again (``memo_hits`` counts such cut-offs): the DFS becomes a DP over
frontier states that stops at the first solution.

Pruning rules, each valid for ANY full cover (the search stays complete; none
assumes a unique solution or paths that never touch themselves):

* ``target``: a slot of colour ``a`` whose edge leads into an end of another pair is
  dead: that end would have a neighbour of colour ``a`` on its own path.
* ``nesting`` (option ``nest``): some joins must be made through the cells not yet
  visited, which form a disc whose rim meets the frontier slots in geometric order
  and then the border cells (down the right side, along the bottom, up the left):
  two slots of one colour (both ends behind the frontier); a slot of colour k and
  k's other end if that end lies on the rim; both ends of a pair not yet reached if
  both lie on the rim (ends that an edge already leads into are left out). Two such
  joins whose rim positions interleave would cross (Jordan curve in a disc), so the
  state is dead -- but ONLY when no tagged slot lies between the outermost of the
  four positions. A join may leave the disc through one slot of a tagged piece, run
  along that piece above the frontier and come back through its other slot (the tag
  then takes the join's colour), which can let interleaved joins pass each other
  (slots i < p < j < t < q < t' with a tag (t, t'): i-t', t-j and p-q do not cross).
  Proof with no tag slot in (i, q) for joins i-j, p-q, i < p < j < q: walk the rim
  just inside the disc and count ends of the i-j join's chords (its pieces inside
  the disc). The count is odd between p and q (only j lies there). A chord of the
  p-q join does not cross those chords, so an even number of their ends lies on
  either side of it; a tag it runs along has both slots outside (i, q) and does not
  interleave with the tags of the other join (tags are disjoint curves in the
  visited part, also a disc), so again an even number lies between its slots. Hence
  p and q would have equal parity: a contradiction. Checked by a stack over the rim
  positions, one window between consecutive tagged slots at a time.

Measurements of the rules (and a note on an earlier, unsound version of ``nesting``):
docs/experiments/numberlink-encodings.md.
"""

from __future__ import annotations

import random
import sys
import time
from array import array

#: failed states kept at most (about 250 bytes each: ~0.5 GB); past it the store stops
#: growing, which costs speed, never completeness (it is only a cache of nogoods)
MAX_FAILED = 2_000_000


class Timeout(Exception):
    """The time limit ran out inside the search."""


class _Restart(Exception):
    """The node budget of this DFS run ran out."""


def _luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


class FrontierSearch:
    """One board (already oriented: the scan runs along rows of ``width`` cells)."""

    def __init__(
        self,
        height: int,
        width: int,
        colour: list[int],
        *,
        memo: bool = True,
        nest: bool = True,
        first: str = "toward",
        restart: int = 0,
    ) -> None:
        self.h, self.w = height, width
        self.colour = colour  # cell -> pair index + 1 at an end, else 0
        self.memo, self.nest, self.first, self.restart = memo, nest, first, restart
        self.restarts = 0
        # 16-bit key entries when cell numbers and colours fit, else 32-bit
        self.code = "h" if max(height * width, *colour) < 32000 else "i"
        n = height * width
        # where the other end of each pair lies, for the "toward" order
        ends: dict[int, list[int]] = {}
        for v, k in enumerate(colour):
            if k:
                ends.setdefault(k, []).append(v)
        self.ends = ends
        self.right = bytearray(n)
        self.down = bytearray(n)
        self.nodes = self.backtracks = self.memo_hits = self.pruned = 0
        # geometric order of the slots at the entry of a cell in column c
        self.order = [[*range(c), width, *range(c, width)] for c in range(width)]
        self.rim = [self._rim(v) for v in range(n)] if nest else []

    def run(self, deadline: float | None, seed: int = 0) -> bool:
        """True when a full cover was found (edges in ``right``/``down``), False when
        none exists; raises Timeout past ``deadline`` (a ``time.monotonic`` value).

        With ``restart`` > 0 the DFS restarts after ``restart * luby(i)`` nodes with
        a random east/south preference per cell (seeded), KEEPING the failed states:
        each stored state was searched to the end, so it stays a valid nogood under
        any order. Budgets grow without bound, so the search stays complete.
        """
        self.deadline = deadline
        self.failed: set[bytes] = set()
        rng = random.Random(seed)
        n = self.h * self.w
        self.flip = bytearray(n)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 3 * n + 1000))  # up to 3 frames a cell
        try:
            while True:
                self.plug = [0] * (self.w + 1)
                self.fresh = -1
                self.budget = None
                if self.restart:
                    self.budget = self.nodes + self.restart * _luby(self.restarts + 1)
                try:
                    return self._go(0)
                except _Restart:
                    self.restarts += 1
                    self.flip = bytearray(rng.random() < 0.5 for _ in range(n))
        finally:
            sys.setrecursionlimit(limit)

    # -- helpers ---------------------------------------------------------------------

    def _key(self, v: int) -> bytes:
        """(cell, frontier) with tags renumbered in slot order: equal futures, equal keys.

        Packed into bytes (exact, no hashing): a third of a tuple's memory, which
        matters since the store may hold up to ``MAX_FAILED`` states."""
        names: dict[int, int] = {}
        new = names.setdefault  # the next name is bound before a new tag is stored
        out = [v] + [x if x >= 0 else new(x, -1 - len(names)) for x in self.plug]
        return array(self.code, out).tobytes()

    def _rim(self, v: int) -> tuple[list[tuple[int, ...]], list[tuple[int, int]]]:
        """Ends not yet visited on the rim of the unvisited region at the entry of cell
        ``v``: on the frontier (colour, position, the one or two slots whose edges lead
        into it) and on the border (colour, position).

        Rim positions run along the frontier in geometric order (0..width), then down
        the right border, right to left along the bottom, up the left border."""
        h, w = self.h, self.w
        r, c = divmod(v, w)
        front: dict[int, list[int]] = {}
        for pos, j in enumerate(self.order[c]):
            tr, tc = (r, c) if j == w else ((r + 1, j) if j < c else (r, j))
            if tr < h:
                front.setdefault(tr * w + tc, [pos]).append(j)
        border = [(tr, w - 1) for tr in range(r, h)]
        border += [(h - 1, tc) for tc in range(w - 1, -1, -1)]
        border += [(tr, 0) for tr in range(h - 1, r, -1)]
        on_border: dict[int, int] = {}
        for pos, (tr, tc) in enumerate(border, start=w + 1):
            t = tr * w + tc
            if t >= v and t not in front:
                on_border.setdefault(t, pos)
        colour = self.colour
        ends = [(colour[t], pos, js[0], js[-1]) for t, (pos, *js) in front.items() if colour[t]]
        return ends, [(colour[t], pos) for t, pos in on_border.items() if colour[t]]

    def _nested(self, v: int, c: int) -> bool:
        """False when two joins that must be made cross (see the module docstring)."""
        plug = self.plug
        events: list[tuple[int, int, int]] = []  # (rim position, colour, tag window)
        wins: list[int] = []
        window = 0
        for pos, j in enumerate(self.order[c]):
            x = plug[j]
            if x < 0:
                window += 1
            elif x > 0:
                events.append((pos, x, window))
            wins.append(window)
        front, border = self.rim[v]
        for k, pos, j1, j2 in front:
            if not plug[j1] and not plug[j2]:
                events.append((pos, k, wins[pos]))
        for k, pos in border:
            events.append((pos, k, window))
        if len(events) < 4:
            return True
        first: dict[int, int] = {}
        joins = set()
        for _, k, win in events:
            if k in first:
                if first[k] == win:
                    joins.add(k)
            else:
                first[k] = win
        if len(joins) < 2:
            return True
        events.sort()
        stack: list[int] = []
        for _, k, _ in events:
            if k in joins:
                if stack and stack[-1] == k:
                    stack.pop()
                elif k in stack:
                    return False
                else:
                    stack.append(k)
        return True

    def _target_ok(self, j: int, a: int, r: int, c: int) -> bool:
        """Slot ``j`` (after cell (r, c) is done) now has colour ``a``: may its edge
        lead where it leads?"""
        w = self.w
        if j == w:
            t = r * w + c + 1
        elif j <= c:
            t = (r + 1) * w + j
        else:
            t = r * w + j
        if t >= self.h * w:
            return True
        k = self.colour[t]
        return not k or k == a

    def _partner(self, x: int) -> int:
        """The slot holding tag ``x`` (its other slot has already been cleared)."""
        return self.plug.index(x)

    # -- the search ------------------------------------------------------------------

    def _go(self, v: int) -> bool:
        self.nodes += 1
        if not self.nodes & 4095 and self.deadline is not None and time.monotonic() > self.deadline:
            raise Timeout
        if self.budget is not None and self.nodes > self.budget:
            raise _Restart
        w = self.w
        if v == self.h * w:
            return True
        r, c = divmod(v, w)
        if self.nest and not self._nested(v, c):
            self.pruned += 1
            return False
        key = None
        if self.memo:
            key = self._key(v)
            if key in self.failed:
                self.memo_hits += 1
                return False
        if self._cell(v, r, c):
            return True
        self.backtracks += 1
        if key is not None and len(self.failed) < MAX_FAILED:
            self.failed.add(key)
        return False

    def _cell(self, v: int, r: int, c: int) -> bool:
        plug, w = self.plug, self.w
        up, left, e = plug[c], plug[w], self.colour[v]
        can_r, can_d = c + 1 < w, r + 1 < self.h
        if up and left:
            if e:
                return False
            return self._join(v, r, c, up, left)
        x = up or left
        if e and x:
            return self._end(v, r, c, x, e)
        if x or e:
            # one edge in (or an end with none): continue east or south
            y = x or e
            for east in self._dirs(v, r, c, y):
                if east and can_r:
                    if y > 0 and not self._target_ok(w, y, r, c):
                        continue
                    plug[c], plug[w] = 0, y
                    self.right[v], self.down[v] = 1, 0
                elif not east and can_d:
                    if y > 0 and not self._target_ok(c, y, r, c):
                        continue
                    plug[c], plug[w] = y, 0
                    self.right[v], self.down[v] = 0, 1
                else:
                    continue
                if self._go(v + 1):
                    return True
            plug[c], plug[w] = up, left
            return False
        # no edge in, not an end: both east and south start a piece with no end
        if not (can_r and can_d):
            return False
        tag = self.fresh
        self.fresh -= 1
        plug[c] = plug[w] = tag
        self.right[v] = self.down[v] = 1
        if self._go(v + 1):
            return True
        plug[c], plug[w] = up, left
        return False

    def _dirs(self, v: int, r: int, c: int, y: int) -> tuple[bool, ...]:
        """East first or south first (True = east); reversed where ``flip`` says."""
        east, south = self._order(v, r, c, y)
        return (south, east) if self.flip[v] else (east, south)

    def _order(self, v: int, r: int, c: int, y: int) -> tuple[bool, bool]:
        if self.first == "east":
            return (True, False)
        if self.first == "south":
            return (False, True)
        # "toward": head for the nearest end of the piece's colour still ahead
        if y > 0:
            best = None
            for t in self.ends[y]:
                if t > v:
                    tr, tc = divmod(t, self.w)
                    d = abs(tr - r) + abs(tc - c)
                    if best is None or d < best[0]:
                        best = (d, tr, tc)
            if best is not None:
                _, tr, tc = best
                if tc > c and tc - c >= tr - r:
                    return (True, False)
        return (False, True)

    def _end(self, v: int, r: int, c: int, x: int, e: int) -> bool:
        """An end of colour ``e`` reached by the piece in slot value ``x``."""
        plug, w = self.plug, self.w
        up, left = plug[c], plug[w]
        if x > 0 and x != e:
            return False
        plug[c] = plug[w] = 0
        self.right[v] = self.down[v] = 0
        ok = False
        if x > 0:
            ok = self._go(v + 1)
        else:
            j = self._partner(x)
            if self._target_ok(j, e, r, c):
                plug[j] = e
                ok = self._go(v + 1)
                plug[j] = x
        plug[c], plug[w] = up, left
        return ok

    def _join(self, v: int, r: int, c: int, a: int, b: int) -> bool:
        """Pieces ``a`` (from the north) and ``b`` (from the west) meet at a plain cell."""
        plug, w = self.plug, self.w
        if a == b and a < 0:
            return False  # a cycle with no end
        if a > 0 and b > 0 and a != b:
            return False
        plug[c] = plug[w] = 0
        self.right[v] = self.down[v] = 0
        ok = False
        if a > 0 and b > 0:
            ok = self._go(v + 1)
        else:
            if a < 0 and b < 0:
                j, old, new = self._partner(b), b, a
            elif a < 0:
                j, old, new = self._partner(a), a, b
            else:
                j, old, new = self._partner(b), b, a
            if new < 0 or self._target_ok(j, new, r, c):
                plug[j] = new
                ok = self._go(v + 1)
                plug[j] = old
        plug[c], plug[w] = a, b
        return ok
