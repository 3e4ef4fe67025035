"""The flow formulation shared by ``flow-mip-cbc``, ``flow-mip-highs`` and ``flow-cpsat``,
written once as a solver-neutral linear model so all three solve the same thing.

Each pair k's path is directed from its first end s_k to its second end t_k.

* ``d[a->b,k]`` binary: arc a->b is on path k. Arcs are only made where they can be
  used: none touch an end of another pair, none enter s_k, none leave t_k (what the
  ends force).
* ``z[v,k]`` binary: cell v is on path k (ends are constants, so no variable).
* degrees: a non-end cell has in-degree = out-degree = ``z[v,k]`` in colour k; s_k has
  out-degree 1, t_k in-degree 1; ``sum_k z[v,k] = 1`` is the full-cover rule. Colour
  consistency needs no extra row: an arc of colour k enters and leaves cells of
  colour k by the per-colour degree rows.
* an edge carries at most one arc: ``sum_k d[a->b,k] + d[b->a,k] <= 1`` (kills 2-cycles
  in the LP).
* connectivity by a single-commodity flow ``f[a->b] >= 0``: every non-end cell
  consumes one unit, first ends are free sources, arcs into a second end carry none,
  and flow runs only on used arcs: ``d <= f[a->b] <= U * d`` with ``U = N - 2K + 1``
  and ``d`` the arc's total over colours. A detached cycle would have to consume flow
  that nobody can send into it.
* valid inequality: a 2x2 block uses at most three of its four edges (its 4-cycle
  holds no end).

The model is a pure feasibility problem (objective 0). What made CBC fast was not the
model but how it searches (``_flow_mip.CBC_OPTIONS``): with a zero objective its
pseudo-costs, cuts and feasibility pump learn nothing, and branching down first it
needed 850 nodes / 315k LP iterations / 128 s on the seed board. Depth first, branch
up first (``nodeStrategy updepth``) with cuts, feasibility pump and heuristics off:
236 nodes / 62420 LP iterations / 18-21 s, the same tree for CBC seeds 1, 2, 3;
"-threads 1" (which PuLP passed) runs CBC's threaded code, another and slower search
(346 nodes unsolved at 40 s), so one thread is now asked for by passing none. CBC
breaks branching ties by column, and PuLP hands columns over in alphabetical name
order; in the model's own order (arcs row-major, then colours, then flows;
``_flow_mip.FlowMip(order="arcs")``) the search grows a connected frontier: 50
nodes / 17777 it / 6.5-7 s. Same config on generated 10x10 boards, alphabetical vs
arcs order: p10_s1 871 nodes unsolved at 30 s vs 188 nodes 6.5 s; p10_s2 284 nodes
14.3 s vs 55 nodes 3.6 s; p5_s1 1605 vs 1043 nodes, both unsolved at 30 s. A cost:
the old setup (defaults, "-threads 1", alphabetical) solved p5_s1 at the root (pump,
0 nodes, 3.5 s; p10_s1 71 nodes 12.5 s, p10_s2 0 nodes 5.3 s); this one times out
there at 120 s (5856 nodes). Luck of the column order dominates both ways. Colours
first (z row-major, then arcs) 439 nodes and arcs sorted by BFS distance from their
own ends 418 nodes, both unsolved at 40 s: order matters a lot and only this one
was found to help. HiGHS keeps the alphabetical order (arcs order: 144 / 187 / 195
nodes, 13-19 s for seeds 0/1/2; alphabetical 4 / 119 / 3 nodes).

Measured and dropped (seed board 10x10, 8 pairs, 2 shared cores; CBC 2.10.3 serial on
the written MPS unless named; nodes / LP iterations deterministic, seconds noisy):

* earlier (HiGHS 1.16): one arc variable per direction with colour rows
  ``d + z[a,k] - z[b,k] <= 1`` (``arcs="plain"``) 27 s, 40 s+ with the 2x2 rows; an
  integer colour per cell by big-M (code since removed) > 40 s (CBC too); one
  variable per undirected edge and colour (``arcs="edges"``) > 40 s HiGHS and CBC;
  no 2x2 rows > 40 s; no flow at all (cycles allowed) still > 30 s: the colour routing,
  not connectivity, is what the MIP solvers find hard.
* domain reduction by BFS distance and length budget (``distances``): removes none of
  the 672 colour variables on the seed board (budgets 46-54 cells), not kept.
* per-colour flow instead of the single one (``commodity="colour"``, 4718 columns) or
  both (4992): CBC 1 / 0 nodes in 30 s (root only), HiGHS 0 nodes in 30 s for seeds
  0/1/2 (root only); with updepth 21 nodes in 40 s. Tighter LP, far slower root.
* ``d[a->b,k] + d[b->a,k] <= z[v,k]`` for both ends v (``tie=True``, implies
  ``2 z[v,k] <= sum of neighbours' z``): HiGHS 11 / 32 nodes unsolved at 30 s, 8 nodes
  21 s (seeds 0/1/2); CBC 0 nodes in 30 s, with updepth 16 nodes in 40 s.
* guiding objective: each cell's detour for its colour (``objective="dist"``; LP
  bound 85, the solution costs 342): CBC 143 nodes unsolved at 30 s; with updepth
  and ``maxSolutions 1`` 294 nodes / 121812 it / 23.8 s (stops at the first solution).
* distance bounds on the flow (``bounds="ul"``: an arc of colour k into b carries at
  least dist(b,t_k), and at most path k's budget less dist(s_k,a)), with updepth:
  179 nodes unsolved at 40 s; upper half 275, lower half 252 nodes unsolved at 40 s.
* binary-coded colours (3 bits per cell, plain arcs, ``arcs="bits"``, 826 columns):
  HiGHS 949 / 1214 nodes 19-21 s and seed 2 unsolved at 30 s; CBC 903 nodes unsolved
  at 60 s, 1211 with updepth at 40 s.
* CBC options, default down branching (nodes, all unsolved): 30 s: default 66, feas
  off 156, strategy 2 65 / 0 154, nodeStrategy depth 63, all diving 23, rins+dins+
  proximity 66, dist objective + costStrategy priorities 153; 60 s: cuts+feas off
  750, preprocess sos 314, seeds 2/3 218/232. A ``-prio`` file (colours first) makes
  CBC 2.10.3 crash (SIGSEGV) unless preprocess is off: then 523 nodes at 60 s.
* on top of updepth + cuts/feas/heur off (40 s, unsolved): strong 0 531 nodes, trust
  0 224, probing on 431 / forceOn 518, costStrategy length 684, preprocess off 366 /
  equal 383, with cuts and pump on 105, upfewest 391; preprocess sos or heuristics
  on: the same 236-node tree. With the arcs order (20 s): strong 0 15 nodes 2.4 s
  on the seed board but unsolved at 30 s on gen 10x10 p10_s1 / p10_s2 / p5_s1
  (1724 / 1279 / 3023 nodes; 188 / 55 nodes solved with strong branching), so not
  kept; trust 0 83, no 2x2 rows 168, cuts on 105, strong 10 138 nodes, unsolved;
  arcs colour-major 237 unsolved; heuristics on or preprocess sos: the same 50 nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.numberlink.encodings._common import Grid, useless_edges

Row = tuple[dict[int, float], str, float]  # coefficients, "<=" | ">=" | "==", rhs

#: the measured alternatives above, by name, as the flow encodings' ``variant`` option
#: (first = the model kept), so each figure can be rerun through the harness
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
    #: objective coefficients (minimised); empty = feasibility
    objective: dict[int, float] = field(default_factory=dict)

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
    arcs: str = "coloured",
    flow: bool = True,
    commodity: str = "single",
    tie: bool = False,
    objective: str = "none",
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
        if v not in grid.end_of and arcs != "bits":
            for k in range(npairs):
                z[v, k] = m.var(f"z_{v}_{k}", 0, 1, True)
    d_out: dict[tuple[int, int], list[int]] = {}
    d_in: dict[tuple[int, int], list[int]] = {}
    on_arc: dict[tuple[int, int], list[int]] = {}
    if arcs == "coloured":
        _coloured_arcs(m, grid, z, banned, d_out, d_in, on_arc)
    elif arcs == "edges":
        _coloured_edges(m, grid, z, banned, on_arc)
    else:
        _plain_arcs(m, grid, z, banned, on_arc, bits=arcs == "bits")
    for a, b in grid.edges:
        both = on_arc.get((a, b), []) + on_arc.get((b, a), [])
        if len(both) > 1:
            m.add(dict.fromkeys(both, 1.0), "<=", 1)
    if tie and arcs == "coloured":
        _tie_rows(m, grid, z)
    if commodity in ("colour", "both") and arcs == "coloured":
        _colour_flow(m, grid, z)
    if objective != "none":
        _objective(m, grid, z, objective)
    if commodity == "colour":
        flow = False
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
        if bounds and arcs == "coloured":
            for i in ds:
                k = m.arcs[i][2]
                if "u" in bounds:
                    hi[i] = float(max(0, longest[k] - 2 - from_s[k].get(s, grid.n)))
                if "l" in bounds:
                    lo[i] = float(from_t[k].get(t, grid.n))
        m.add({f[s, t]: 1.0, **{i: -c for i, c in hi.items()}}, "<=", 0)
        if arcs != "edges":  # with undirected edges flow may run either way
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


def _coloured_edges(m, grid, z, banned, on_arc) -> None:
    """One variable per undirected edge and colour (half the binaries of the arcs);
    degree 2 z[v,k] per colour, 1 at an end; the flow runs either way along it."""
    npairs = len(grid.pairs)
    at: dict[tuple[int, int], list[int]] = {}
    for e, (a, b) in enumerate(grid.edges):
        if e in banned:
            continue
        for k in range(npairs):
            if any(v in grid.end_of and grid.end_of[v] != k for v in (a, b)):
                continue
            i = m.var(f"x_{a}_{b}_{k}", 0, 1, True)
            m.arcs[i] = (a, b, k)
            at.setdefault((a, k), []).append(i)
            at.setdefault((b, k), []).append(i)
            on_arc.setdefault((a, b), []).append(i)
            on_arc.setdefault((b, a), []).append(i)
    for v in range(grid.n):
        if v in grid.end_of:
            k = grid.end_of[v]
            m.add(dict.fromkeys(at.get((v, k), []), 1.0), "==", 1)
            continue
        m.add({z[v, k]: 1.0 for k in range(npairs)}, "==", 1)
        for k in range(npairs):
            row = dict.fromkeys(at.get((v, k), []), 1.0)
            row[z[v, k]] = -2.0
            m.add(row, "==", 0)


def _plain_arcs(m, grid, z, banned, on_arc, bits=False) -> None:
    """One arc variable per direction; colours tied by d + z[a,k] - z[b,k] <= 1
    (or, with ``bits``, by each bit of a binary-coded colour per cell)."""
    npairs = len(grid.pairs)
    nbits = max(1, (npairs - 1).bit_length())
    bit: dict[tuple[int, int], int | bool] = {}
    for v in range(grid.n) if bits else ():
        for j in range(nbits):
            k = grid.end_of.get(v)
            bit[v, j] = m.var(f"b_{v}_{j}", 0, 1, True) if k is None else bool(k >> j & 1)
    first = {s for s, _ in grid.pairs}
    second = {t for _, t in grid.pairs}
    into: dict[int, list[int]] = {}
    out: dict[int, list[int]] = {}
    for e, (a, b) in enumerate(grid.edges):
        if e in banned:
            continue
        for s, t in ((a, b), (b, a)):
            if t in first or s in second:
                continue
            i = m.var(f"d_{s}_{t}", 0, 1, True)
            m.arcs[i] = (s, t, -1)
            on_arc[s, t] = [i]
            into.setdefault(t, []).append(i)
            out.setdefault(s, []).append(i)
            for j in range(nbits) if bits else ():
                for x, y in ((s, t), (t, s)):
                    row, rhs = {i: 1.0}, 1.0
                    for w, sign in ((x, 1.0), (y, -1.0)):
                        if isinstance(bit[w, j], bool):
                            rhs -= sign * bit[w, j]
                        else:
                            row[bit[w, j]] = sign
                    if len(row) > 1 or rhs < 1:
                        m.add(row, "<=", rhs)
            for k in range(npairs) if not bits else ():
                row: dict[int, float] = {i: 1.0}
                rhs = 1.0
                for v, sign in ((s, 1.0), (t, -1.0)):
                    if v in grid.end_of:
                        rhs -= sign * (grid.end_of[v] == k)
                    else:
                        row[z[v, k]] = sign
                if len(row) > 1 or rhs < 1:
                    m.add(row, "<=", rhs)
    for v in range(grid.n):
        if v not in first:
            m.add(dict.fromkeys(into.get(v, []), 1.0), "==", 1)
        if v not in second:
            m.add(dict.fromkeys(out.get(v, []), 1.0), "==", 1)
        if v not in grid.end_of and not bits:
            m.add({z[v, k]: 1.0 for k in range(npairs)}, "==", 1)


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


def _objective(m: LinearModel, grid: Grid, z, kind: str) -> None:
    """A guide only (every solution is as good): colour k costs the detour a cell
    forces on path k, so the LP prefers cells near their own pair."""
    from_s, from_t, _longest = distances(grid)
    for (v, k), i in z.items():
        detour = from_s[k].get(v, grid.n) + from_t[k].get(v, grid.n)
        m.objective[i] = float(detour - from_s[k].get(grid.pairs[k][1], 0))
