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
