"""Helpers the Numberlink encodings share (never the verifier): the grid graph,
reading paths out of chosen edges, what the ends force, and detached cycles.

No Encoding subclass lives here, so the registry's scan finds nothing in it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from models.numberlink.rules import Board

Cell = tuple[int, int]


@dataclass(frozen=True)
class Grid:
    """Cells numbered row-major, undirected edges ``(a, b)`` with ``a < b``."""

    rows: int
    cols: int
    edges: tuple[tuple[int, int], ...]
    incident: tuple[tuple[int, ...], ...]  # cell -> indices of its edges
    end_of: dict[int, int]  # cell -> pair index for endpoint cells
    pairs: tuple[tuple[int, int], ...]  # pair index -> (first end, second end)
    labels: tuple[str, ...]

    @property
    def n(self) -> int:
        return self.rows * self.cols

    def cell(self, v: int) -> Cell:
        return divmod(v, self.cols)


def grid_of(board: Board) -> Grid:
    rows, cols = board.rows, board.cols
    edges = []
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            if c + 1 < cols:
                edges.append((v, v + 1))
            if r + 1 < rows:
                edges.append((v, v + cols))
    incident: list[list[int]] = [[] for _ in range(rows * cols)]
    for i, (a, b) in enumerate(edges):
        incident[a].append(i)
        incident[b].append(i)
    pairs, end_of = [], {}
    for k, (p, q) in enumerate(board.ends.values()):
        a, b = p[0] * cols + p[1], q[0] * cols + q[1]
        pairs.append((a, b))
        end_of[a] = end_of[b] = k
    return Grid(
        rows,
        cols,
        tuple(edges),
        tuple(tuple(x) for x in incident),
        end_of,
        tuple(pairs),
        tuple(board.ends),
    )


def useless_edges(grid: Grid) -> set[int]:
    """Edges no solution uses: those joining ends of two different pairs."""
    out = set()
    for e, (a, b) in enumerate(grid.edges):
        if a in grid.end_of and b in grid.end_of and grid.end_of[a] != grid.end_of[b]:
            out.add(e)
    return out


def paths_from_edges(grid: Grid, used: Iterable[int]) -> dict[str, list[list[int]]]:
    """Walk each pair's path from its first end along the chosen edges."""
    adj: dict[int, list[int]] = defaultdict(list)
    for e in used:
        a, b = grid.edges[e]
        adj[a].append(b)
        adj[b].append(a)
    paths = {}
    for k, (start, _goal) in enumerate(grid.pairs):
        walk, prev, here = [start], -1, start
        while True:
            nxt = [x for x in adj[here] if x != prev]
            if not nxt or (here != start and here in grid.end_of):
                break
            prev, here = here, nxt[0]
            walk.append(here)
            if len(walk) > grid.n:
                break
        paths[grid.labels[k]] = [list(grid.cell(v)) for v in walk]
    return paths


def cycles_without_ends(grid: Grid, used: Iterable[int]) -> list[list[int]]:
    """Connected components of the chosen edges that hold no endpoint (cells listed)."""
    adj: dict[int, list[int]] = defaultdict(list)
    for e in used:
        a, b = grid.edges[e]
        adj[a].append(b)
        adj[b].append(a)
    seen: set[int] = set()
    out = []
    for v in list(adj):
        if v in seen:
            continue
        comp, stack = [], [v]
        seen.add(v)
        while stack:
            x = stack.pop()
            comp.append(x)
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        if not any(x in grid.end_of for x in comp):
            out.append(comp)
    return out


def boundary_edges(grid: Grid, cells: Iterable[int]) -> list[int]:
    """Edges with exactly one end in ``cells``."""
    inside = set(cells)
    return [
        e
        for v in inside
        for e in grid.incident[v]
        if (grid.edges[e][0] in inside) != (grid.edges[e][1] in inside)
    ]


def solution_or_cycles(
    grid: Grid, used: list[int], join: bool
) -> tuple[dict | None, list[list[int]]]:
    """A degree model's solution, or its detached cycles to cut. With ``join`` the cycles
    are first joined to paths (``join_cycles``); the solution is then that cover."""
    cycles = cycles_without_ends(grid, used)
    cover = used if not cycles else (join_cycles(grid, used) if join else None)
    if cover is None:
        return None, cycles
    return {"paths": paths_from_edges(grid, sorted(cover))}, []


def join_cycles(grid: Grid, used: Iterable[int]) -> set[int] | None:
    """Join every detached cycle of a degree-feasible cover to a path, or None.

    A cover in which every end has one chosen edge and every other cell two is paths
    plus detached cycles. If a cycle has an edge ``a-b`` and another component has the
    parallel edge ``a'-b'`` of the same 2x2 block, swapping the two for the cross edges
    ``a-a'`` and ``b-b'`` keeps every degree and makes the two components one (the
    cycle becomes a detour of the other). Repeating until no cycle is left gives a full
    cover by paths, a solution; ``None`` when some cycle has no such neighbour.
    """
    chosen = set(used)
    edge_at = {pair: i for i, pair in enumerate(grid.edges)}
    adj: dict[int, list[int]] = defaultdict(list)
    for i in chosen:
        a, b = grid.edges[i]
        adj[a].append(b)
        adj[b].append(a)
    label: dict[int, int] = {}
    members: dict[int, list[int]] = {}
    for v in adj:
        if v not in label:
            label[v], stack, members[v] = v, [v], [v]
            while stack:
                for y in adj[stack.pop()]:
                    if y not in label:
                        label[y] = v
                        members[v].append(y)
                        stack.append(y)
    open_ = {k for k, cells in members.items() if not any(v in grid.end_of for v in cells)}

    def parallel(a: int, b: int) -> Iterable[tuple[int, int]]:
        ra, ca = grid.cell(a)
        for dr, dc in ((1, 0), (-1, 0)) if b == a + 1 else ((0, 1), (0, -1)):
            if 0 <= ra + dr < grid.rows and 0 <= ca + dc < grid.cols:
                yield a + dr * grid.cols + dc, b + dr * grid.cols + dc

    def swap_for(k: int, into_path: bool) -> tuple[int, int, int, int] | None:
        for a in members[k]:
            for b in (x for x in adj[a] if x > a):
                for a2, b2 in parallel(a, b):
                    other = label.get(a2)
                    if other in (None, k) or edge_at[(a2, b2)] not in chosen:
                        continue
                    if not (into_path and other in open_):
                        return a, b, a2, b2
        return None

    while open_:
        found = next(
            ((k, swap) for path in (True, False) for k in open_ if (swap := swap_for(k, path))),
            None,
        )
        if found is None:
            return None
        k, (a, b, a2, b2) = found
        other = label[a2]
        for x, y, add in ((a, b, False), (a2, b2, False), (a, a2, True), (b, b2, True)):
            edge = edge_at[min(x, y), max(x, y)]
            (chosen.add if add else chosen.discard)(edge)
            (adj[x].append if add else adj[x].remove)(y)
            (adj[y].append if add else adj[y].remove)(x)
        for v in members[k]:
            label[v] = other
        members[other] += members.pop(k)
        open_.discard(k)
    return chosen
