"""The flow formulation shared by ``flow-mip-cbc``, ``flow-mip-highs`` and ``flow-cpsat``,
written once as a solver-neutral linear model so all three solve the same thing.

Each pair k's path is directed from its first end s_k to its second end t_k.

* ``d[a->b,k]`` binary: arc a->b is on path k. Arcs are only made where a solution can
  use them: none touch an end of another pair (that end's path would gain a cell of
  colour k), none enter s_k or leave t_k (a path's ends have degree 1).
* ``z[v,k]`` binary: cell v is on path k (ends are constants, so no variable).
* degrees: a non-end cell has in-degree = out-degree = ``z[v,k]`` in colour k; s_k has
  out-degree 1, t_k in-degree 1; ``sum_k z[v,k] = 1`` is the full-cover rule. Colour
  consistency needs no extra row: an arc of colour k enters and leaves cells of
  colour k by the per-colour degree rows.
* an edge carries at most one arc: ``sum_k d[a->b,k] + d[b->a,k] <= 1`` (valid: paths
  are disjoint and simple; it kills 2-cycles in the LP).
* connectivity by a single-commodity flow ``f[a->b] >= 0``: every non-end cell
  consumes one unit, first ends are free sources, arcs into a second end carry none,
  and flow runs only on used arcs: ``d <= f[a->b] <= U * d`` with ``U = N - 2K + 1``
  and ``d`` the arc's total over colours. A detached cycle would have to consume flow
  that nobody can send into it; a path's cells are fed along the path from s_k, and
  no arc carries more than the free cells (``U`` bounds it).
* valid inequality: a 2x2 block uses at most three of its four edges (its 4-cycle
  holds no end, so it would be a detached cycle).

The model is a pure feasibility problem (objective 0). The other forms of the model
are the ``variant`` option (``VARIANTS``); each adds valid rows only:

* ``colour-flow``: per-colour flow instead of the single one: s_k sends one unit to
  each non-end cell of colour k along arcs of colour k; an arc carries at most the
  longest path k can take (N less the shortest paths of the other pairs) less one.
  ``both-flows`` keeps both flows.
* ``tie``: ``d[a->b,k] + d[b->a,k] <= z[v,k]`` at both ends v of an edge (valid: an
  arc of colour k joins cells of colour k, and at most one direction is used).
* ``flow-bounds``: the flow on an arc a->b of colour k counts the non-end cells of
  path k from b on, so it is at least dist(b, t_k) and at most path k's longest
  length less its two ends and dist(s_k, a) (BFS distances through free cells).
* ``no-blocks``: without the 2x2 rows.

Historical measurements of these and of dropped forms: docs/experiments/numberlink-encodings.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.numberlink.encodings._common import Grid, useless_edges

Row = tuple[dict[int, float], str, float]  # coefficients, "<=" | ">=" | "==", rhs

#: the forms of the model above, by name, as the flow encodings' ``variant`` option
#: (first = the default); the suite case ``nl-flow-variants`` sweeps them
VARIANTS: dict[str, dict] = {
    "base": {},
    "colour-flow": {"commodity": "colour"},
    "both-flows": {"commodity": "both"},
    "tie": {"tie": True},
    "flow-bounds": {"bounds": "ul"},
    "no-blocks": {"blocks": False},
}


@dataclass
class LinearModel:
    names: list[str] = field(default_factory=list)
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    #: (arc source cell, arc target cell, colour) per d variable index
    arcs: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    def var(self, name: str, lb: float, ub: float, integer: bool) -> int:
        self.names.append(name)
        self.lower.append(lb)
        self.upper.append(ub)
        self.integer.append(integer)
        return len(self.names) - 1

    def add(self, coeffs: dict[int, float], sense: str, rhs: float) -> None:
        self.rows.append((coeffs, sense, rhs))


def flow_model(
    grid: Grid,
    blocks: bool = True,
    commodity: str = "single",
    tie: bool = False,
    bounds: str = "",
) -> LinearModel:
    """The formulation described in the module docstring."""
    m = LinearModel()
    npairs = len(grid.pairs)
    first = {s for s, _ in grid.pairs}
    upper = grid.n - 2 * npairs + 1
    banned = useless_edges(grid)
    z: dict[tuple[int, int], int] = {}
    for v in range(grid.n):
        if v not in grid.end_of:
            for k in range(npairs):
                z[v, k] = m.var(f"z_{v}_{k}", 0, 1, True)
    d_out: dict[tuple[int, int], list[int]] = {}
    d_in: dict[tuple[int, int], list[int]] = {}
    on_arc: dict[tuple[int, int], list[int]] = {}
    _coloured_arcs(m, grid, z, banned, d_out, d_in, on_arc)
    for a, b in grid.edges:
        both = on_arc.get((a, b), []) + on_arc.get((b, a), [])
        if len(both) > 1:
            m.add(dict.fromkeys(both, 1.0), "<=", 1)
    if tie:
        _tie_rows(m, grid, z)
    if commodity in ("colour", "both"):
        _colour_flow(m, grid, z)
    flow = commodity != "colour"
    # single-commodity flow
    from_s, from_t, longest = distances(grid) if bounds else ([], [], [])
    f: dict[tuple[int, int], int] = {}
    for (s, t), ds in on_arc.items() if flow else ():
        if t in grid.end_of and t not in first:  # into a second end: exactly d
            f[s, t] = -1
            continue
        f[s, t] = m.var(f"f_{s}_{t}", 0, upper, False)
        hi = {i: float(upper) for i in ds}
        lo = dict.fromkeys(ds, 1.0)
        if bounds:
            for i in ds:
                k = m.arcs[i][2]
                if "u" in bounds:
                    hi[i] = float(max(0, longest[k] - 2 - from_s[k].get(s, grid.n)))
                if "l" in bounds:
                    lo[i] = float(from_t[k].get(t, grid.n))
        m.add({f[s, t]: 1.0, **{i: -c for i, c in hi.items()}}, "<=", 0)
        m.add({f[s, t]: 1.0, **{i: -c for i, c in lo.items()}}, ">=", 0)
    inflow: dict[int, dict[int, float]] = {}
    for (s, t), i in f.items():
        row = inflow.setdefault(t, {})
        for j in [i] if i >= 0 else on_arc[s, t]:
            row[j] = row.get(j, 0.0) + 1.0
        if i >= 0:
            out_row = inflow.setdefault(s, {})
            out_row[i] = out_row.get(i, 0.0) - 1.0
    for v in range(grid.n) if flow else ():
        if v not in first:
            m.add(inflow.get(v, {}), "==", 1)
    if blocks:
        for r in range(grid.rows - 1):
            for c in range(grid.cols - 1):
                v = r * grid.cols + c
                block = {v, v + 1, v + grid.cols, v + grid.cols + 1}
                row = {
                    i: 1.0 for (s, t), ds in on_arc.items() if s in block and t in block for i in ds
                }
                m.add(row, "<=", 3)
    return m


def used_edges(grid: Grid, model: LinearModel, values: list[float]) -> list[int]:
    """Grid edges whose arcs are set in a solution vector."""
    index = {pair: e for e, pair in enumerate(grid.edges)}
    out = set()
    for i, (s, t, _k) in model.arcs.items():
        if values[i] > 0.5:
            out.add(index[(min(s, t), max(s, t))])
    return sorted(out)


def _coloured_arcs(m, grid, z, banned, d_out, d_in, on_arc) -> None:
    """One arc variable per direction and colour; per-colour degree rows."""
    npairs = len(grid.pairs)
    for e, (a, b) in enumerate(grid.edges):
        if e in banned:
            continue
        for s, t in ((a, b), (b, a)):
            for k, (sk, tk) in enumerate(grid.pairs):
                if t == sk or s == tk:
                    continue
                if (s in grid.end_of and grid.end_of[s] != k) or (
                    t in grid.end_of and grid.end_of[t] != k
                ):
                    continue
                i = m.var(f"d_{s}_{t}_{k}", 0, 1, True)
                m.arcs[i] = (s, t, k)
                d_out.setdefault((s, k), []).append(i)
                d_in.setdefault((t, k), []).append(i)
                on_arc.setdefault((s, t), []).append(i)
    for v in range(grid.n):
        if v in grid.end_of:
            k = grid.end_of[v]
            side = d_out if v == grid.pairs[k][0] else d_in
            m.add(dict.fromkeys(side.get((v, k), []), 1.0), "==", 1)
            continue
        m.add({z[v, k]: 1.0 for k in range(npairs)}, "==", 1)
        for k in range(npairs):
            for side in (d_in, d_out):
                row = dict.fromkeys(side.get((v, k), []), 1.0)
                row[z[v, k]] = -1.0
                m.add(row, "==", 0)


def distances(grid: Grid) -> tuple[list[dict[int, int]], list[dict[int, int]], list[int]]:
    """BFS distances from each pair's two ends (through free cells only) and each pair's
    longest possible path in cells: N minus the shortest paths of all other pairs."""
    adj: list[list[int]] = [[] for _ in range(grid.n)]
    for a, b in grid.edges:
        adj[a].append(b)
        adj[b].append(a)

    def bfs(src: int, k: int) -> dict[int, int]:
        dist, queue = {src: 0}, [src]
        for x in queue:
            if x != src and x in grid.end_of:
                continue
            for y in adj[x]:
                if y not in dist and grid.end_of.get(y, k) == k:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        return dist

    from_s = [bfs(s, k) for k, (s, _t) in enumerate(grid.pairs)]
    from_t = [bfs(t, k) for k, (_s, t) in enumerate(grid.pairs)]
    shortest = [from_s[k].get(t, grid.n) + 1 for k, (_s, t) in enumerate(grid.pairs)]
    total = sum(shortest)
    longest = [max(2, grid.n - (total - own)) for own in shortest]
    return from_s, from_t, longest


def _tie_rows(m: LinearModel, grid: Grid, z) -> None:
    """An edge used in colour k (either direction) has both ends of colour k."""
    both: dict[tuple[int, int, int], list[int]] = {}
    for i, (s, t, k) in m.arcs.items():
        both.setdefault((min(s, t), max(s, t), k), []).append(i)
    for (a, b, k), ids in both.items():
        for v in (a, b):
            if v not in grid.end_of:
                m.add({**dict.fromkeys(ids, 1.0), z[v, k]: -1.0}, "<=", 0)


def _colour_flow(m: LinearModel, grid: Grid, z) -> None:
    """Per-colour flow: s_k sends one unit to each other cell of colour k, on arcs of
    colour k only, at most the cells path k can still hold after its first end."""
    _from_s, _from_t, longest = distances(grid)
    g: dict[int, int] = {}
    net: dict[tuple[int, int], dict[int, float]] = {}
    for i, (s, t, k) in list(m.arcs.items()):
        if t == grid.pairs[k][1]:  # into the second end: exactly d
            expr = {i: 1.0}
        else:
            cap = float(longest[k] - 1)
            g[i] = m.var(f"g_{s}_{t}_{k}", 0, cap, False)
            m.add({g[i]: 1.0, i: -cap}, "<=", 0)
            m.add({g[i]: 1.0, i: -1.0}, ">=", 0)
            expr = {g[i]: 1.0}
        for j, c in expr.items():
            row = net.setdefault((t, k), {})
            row[j] = row.get(j, 0.0) + c
            if s != grid.pairs[k][0]:
                row = net.setdefault((s, k), {})
                row[j] = row.get(j, 0.0) - c
    for (v, k), row in net.items():
        if v not in grid.end_of:
            row[z[v, k]] = -1.0
            m.add(row, "==", 0)
