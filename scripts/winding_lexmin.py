"""Clauses that leave the uniqueness proof only locally least covers, soundly.

Used by ``winding_prove.prove_unique`` (option ``lexmin``, the generator's ``--lexmin``).

The generator's proof (``scripts/winding_prove.py``) asks whether any full cover other
than the planted cover P exists. Every other cover must be refuted, and on sparse boards
most of the covers CDCL meets are the same long paths folded a little differently. This
prover refutes only the covers that are *least* in one fixed order, which is enough:

Fix the order on covers by their edge vectors, lexicographic in the grid's edge order,
an unused edge before a used one. Take a window W (a small rectangle of cells) and a cover
C. Inside W, C is a set Y of internal edges; across W's border it uses the edges X; and
its paths inside W join the *terminals* (the edges of X and the ends inside W) in pairs,
the pairing p. Any other set Y' of internal edges that covers W's cells with the same X,
joins the same terminals in the same pairs and closes no cycle gives a full cover too:
every path still joins the same two ends. Call (X, p) the class of Y.

Claim: if the planted cover's Y in every window is alone in its class, and P has another
cover, then some other cover C* has in every window the least Y of its class. Proof: let
C* be the least cover other than P. If in some W its Y is not least in its class, swap in
the least one: the result C' differs from C* only inside W and is smaller, so by the
choice of C* it is P. Then P and C* differ inside W only, and C*'s Y is in P's class
there, so P's Y is not alone in its class: excluded by the hypothesis.

So the prover first looks at P in every window (a class of two or more there is another
cover, found at once: ``other_in_a_window``), then adds, for each window and each Y that is not least in its
class, the clause "not all of Y's and X's edges used" (with every cell of W at its full
degree those edges fix the window, so the clause cuts exactly that configuration), and
runs the same backbone proof. Every clause holds for P and for C*, so "every planted edge
is in every cover that is left" proves P unique.
"""

from __future__ import annotations

import itertools
from functools import cache

from models.numberlink.encodings._common import Grid

Shapes = tuple[tuple[int, int], ...]
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _internal_edges(h: int, w: int) -> list[tuple[int, int]]:
    """The window's internal edges as local cell pairs, in the grid's edge order."""
    out = []
    for r in range(h):
        for c in range(w):
            if c + 1 < w:
                out.append((r * w + c, r * w + c + 1))
            if r + 1 < h:
                out.append((r * w + c, (r + 1) * w + c))
    return out


def _outward(h: int, w: int) -> list[tuple[int, int]]:
    """The window's border edges as (local cell, step index), in a fixed order."""
    out = []
    for r in range(h):
        for c in range(w):
            for k, (dr, dc) in enumerate(STEPS):
                if not (0 <= r + dr < h and 0 <= c + dc < w):
                    out.append((r * w + c, k))
    return out


def _root(parent: list[int], a: int) -> int:
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@cache
def window_table(h: int, w: int, ends: int, present: int) -> dict:
    """Every configuration of an h x w window: {(Y mask, X mask): class}, where ``ends``
    masks the local cells that are ends (degree 1) and ``present`` the border edges that
    exist on the board. A class is (X mask, pairing of terminals)."""
    inner = _internal_edges(h, w)
    border = _outward(h, w)
    n = h * w
    target = [1 if ends >> i & 1 else 2 for i in range(n)]
    at_cell: list[list[int]] = [[] for _ in range(n)]
    for j, (cell, _) in enumerate(border):
        if present >> j & 1:
            at_cell[cell].append(j)
    table = {}
    for y in range(1 << len(inner)):
        deg = [0] * n
        parent = list(range(n))
        ok = True
        for i, (a, b) in enumerate(inner):
            if y >> i & 1:
                deg[a] += 1
                deg[b] += 1
                ra, rb = _root(parent, a), _root(parent, b)
                if ra == rb:
                    ok = False  # a cycle inside the window
                    break
                parent[ra] = rb
        if not ok or any(deg[i] > target[i] for i in range(n)):
            continue
        need = [target[i] - deg[i] for i in range(n)]
        if any(need[i] > len(at_cell[i]) for i in range(n)):
            continue
        choices = [list(itertools.combinations(at_cell[i], need[i])) for i in range(n)]
        for pick in itertools.product(*choices):
            x = 0
            terminals: dict[int, list] = {}  # component root -> its terminals
            for i in range(n):
                for j in pick[i]:
                    x |= 1 << j
                    terminals.setdefault(_root(parent, i), []).append(("x", j))
                if target[i] == 1:
                    terminals.setdefault(_root(parent, i), []).append(("end", i))
            pairing = frozenset(frozenset(t) for t in terminals.values())
            table[(y, x)] = (x, pairing)
    return table


@cache
def class_sizes(h: int, w: int, ends: int, present: int) -> dict:
    """How many configurations each class of ``window_table`` holds."""
    sizes: dict = {}
    for key in window_table(h, w, ends, present).values():
        sizes[key] = sizes.get(key, 0) + 1
    return sizes


@cache
def forbidden(h: int, w: int, ends: int, present: int) -> tuple[tuple[int, int], ...]:
    """The (Y, X) configurations that are not least in their class."""
    classes: dict = {}
    for (y, _), key in window_table(h, w, ends, present).items():
        classes.setdefault(key, []).append(y)
    n_inner = len(_internal_edges(h, w))
    out = []
    for (x, _), ys in classes.items():
        if len(ys) < 2:
            continue
        least = min(ys, key=lambda m: [m >> i & 1 for i in range(n_inner)])
        out += [(y, x) for y in ys if y != least]
    return tuple(out)


def _windows(grid: Grid, h: int, w: int):
    """Each window position: (global ids of its internal edges, of its border edges or
    None where the board ends, ends mask, present mask)."""
    index = {ab: i for i, ab in enumerate(grid.edges)}
    rows, cols = grid.rows, grid.cols
    inner, border = _internal_edges(h, w), _outward(h, w)
    for r0 in range(rows - h + 1):
        for c0 in range(cols - w + 1):
            gcell = [(r0 + i // w) * cols + c0 + i % w for i in range(h * w)]
            ids = [index[(gcell[a], gcell[b])] for a, b in inner]
            out, present = [], 0
            for j, (local, k) in enumerate(border):
                r, c = r0 + local // w + STEPS[k][0], c0 + local % w + STEPS[k][1]
                if 0 <= r < rows and 0 <= c < cols:
                    u, v = sorted((gcell[local], r * cols + c))
                    out.append(index[(u, v)])
                    present |= 1 << j
                else:
                    out.append(None)
            ends = sum(1 << i for i in range(h * w) if gcell[i] in grid.end_of)
            yield ids, out, ends, present


def lexmin_clauses(grid: Grid, e: list[int], shapes: Shapes) -> list[list[int]]:
    """The module docstring's clauses for every window of every shape."""
    cnf = []
    for h, w in shapes:
        if h > grid.rows or w > grid.cols:
            continue
        for ids, out, ends, present in _windows(grid, h, w):
            for y, x in forbidden(h, w, ends, present):
                clause = [-e[ids[i]] for i in range(len(ids)) if y >> i & 1]
                clause += [-e[out[j]] for j in range(len(out)) if x >> j & 1]
                cnf.append(clause)
    return cnf


def other_in_a_window(grid: Grid, used: set[int], shapes: Shapes) -> set[int] | None:
    """The edges of another full cover that differs from the cover ``used`` inside one
    window (another configuration of its class there), or None when the cover's
    configuration is alone in its class in every window."""
    for h, w in shapes:
        if h > grid.rows or w > grid.cols:
            continue
        for ids, out, ends, present in _windows(grid, h, w):
            y = sum(1 << i for i, g in enumerate(ids) if g in used)
            x = sum(1 << j for j, g in enumerate(out) if g is not None and g in used)
            table = window_table(h, w, ends, present)
            key = table[(y, x)]
            if class_sizes(h, w, ends, present)[key] == 1:
                continue
            other = next(z for (z, _), k in table.items() if k == key and z != y)
            inner = {g for g in ids if g in used}
            return (used - inner) | {g for i, g in enumerate(ids) if other >> i & 1}
    return None


def parse_shapes(text: str) -> Shapes:
    """ "3x3,2x4,4x2" -> ((3, 3), (2, 4), (4, 2)); "" -> ()."""
    out = []
    for part in filter(None, text.split(",")):
        rows, _, cols = part.partition("x")
        if not (rows.isdigit() and cols.isdigit()) or int(rows) * int(cols) > 12:
            raise ValueError(f"a window is ROWSxCOLS of at most 12 cells, not {part!r}")
        out.append((int(rows), int(cols)))
    return tuple(out)
