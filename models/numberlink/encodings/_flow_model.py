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
* connectivity by a single-commodity flow ``f[a->b] >= 0``: every cell but the first
  ends consumes one unit, first ends are free sources, and flow runs only on used
  arcs. A detached cycle would have to consume flow that nobody can send into it.
  Tight bounds: ``d <= f[a->b] <= U * d`` with ``U = N - 2K + 1`` (the longest
  possible path leaves at most that many cells downstream of its first arc) and
  ``d`` the arc's total over colours; an arc into t_k carries exactly its ``d``.
* valid inequality: a 2x2 block uses at most three of its four edges (its 4-cycle
  holds no end).

Measured choices (seed board 10x10, 8 pairs, 2 cores, HiGHS 1.16 unless named):

* colour-indexed arcs (this model): 24 s; one arc variable per direction with colour
  rows ``d + z[a,k] - z[b,k] <= 1`` (``arcs="plain"``): 27 s, and 40 s+ with the 2x2
  rows; an integer colour per cell tied by big-M (``arcs="potential"``): > 40 s (CBC
  too); one variable per undirected edge and colour (``arcs="edges"``, 2042 instead
  of 2982 columns, flow either way): > 40 s with HiGHS and CBC. Colour-indexed arcs
  without the 2x2 rows: > 40 s, so the rows stay.
* dropping the flow altogether (``flow=False``, so cycles allowed) still took > 30 s:
  the colour routing, not connectivity, is what the MIP solvers find hard here.
* HiGHS options (``_flow_mip.HIGHS_OPTIONS``): switching off the root sub-MIP
  heuristics gave 10-12 s (of which presolve/probing 2.5 s and root cut separation
  7 s; the first solution comes at node 4); cut limits, presolve off, symmetry detection off, more
  heuristic effort, and a distance-guided objective stopped at the first solution did
  not help. CBC: cuts off / heuristics off / preprocess off all > 25 s.
* 2026-11-30, side by side on the seed board (HiGHS 1.16 on the written MPS, random
  seeds 0/1/2; nodes and LP iterations are deterministic, seconds noisy): this model
  4.7-5.4 s / 4 nodes / 9065 LP it, 14 s / 119 nodes, 4.4-6.3 s / 3 nodes: the
  solver's seed, not the model, decides between a root-node solution and 100+ nodes.
  Distance bounds on the flow (valid: an arc of colour k into b carries at least the
  BFS distance from b to t_k and at most the longest path k can have, N minus the
  shortest lengths of the other pairs, less the distance s_k..a): 133 / 98 / 3 nodes,
  10-17 s; the lower half alone 17 / 143 / 128 nodes; the upper half alone 4 / 103 /
  107 nodes. Not kept. HiGHS options feasibility jump off, symmetry detection off,
  probing lifting off, cut separation at nodes off, zero heuristic effort, primal
  simplex, ``mip_pscost_minreliable=0``: identical nodes and LP iterations (no
  effect beyond noise); ``mip_pool_soft_limit=500`` 55 nodes, ``mip_lp_age_limit=2``
  104 nodes, ZI round + shifting 121 nodes, presolve off 71 nodes (all slower).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.numberlink.encodings._common import Grid, useless_edges

Row = tuple[dict[int, float], str, float]  # coefficients, "<=" | ">=" | "==", rhs


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
    grid: Grid, blocks: bool = True, arcs: str = "coloured", flow: bool = True
) -> LinearModel:
    """The formulation described in the module docstring."""
    m = LinearModel()
    npairs = len(grid.pairs)
    first = {s for s, _ in grid.pairs}
    upper = grid.n - 2 * npairs + 1
    banned = useless_edges(grid)
    z: dict[tuple[int, int], int] = {}
    for v in range(grid.n):
        if v not in grid.end_of and arcs != "potential":
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
        _plain_arcs(m, grid, z, banned, on_arc, potential=arcs == "potential")
    for a, b in grid.edges:
        both = on_arc.get((a, b), []) + on_arc.get((b, a), [])
        if len(both) > 1:
            m.add(dict.fromkeys(both, 1.0), "<=", 1)
    # single-commodity flow
    f: dict[tuple[int, int], int] = {}
    for (s, t), ds in on_arc.items() if flow else ():
        if t in grid.end_of and t not in first:  # into a second end: exactly d
            f[s, t] = -1
            continue
        f[s, t] = m.var(f"f_{s}_{t}", 0, upper, False)
        m.add({f[s, t]: 1.0, **{i: -float(upper) for i in ds}}, "<=", 0)
        if arcs != "edges":  # with undirected edges flow may run either way
            m.add({f[s, t]: 1.0, **{i: -1.0 for i in ds}}, ">=", 0)
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


def _plain_arcs(m, grid, z, banned, on_arc, potential=False) -> None:
    """One arc variable per direction; colours tied by d + z[a,k] - z[b,k] <= 1
    (or, with ``potential``, an integer colour per cell equal across a used arc)."""
    npairs = len(grid.pairs)
    col = {}
    if potential:
        for v in range(grid.n):
            k = grid.end_of.get(v)
            col[v] = m.var(f"c_{v}", k or 0, npairs - 1 if k is None else k, True)
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
            if potential:
                big = float(npairs - 1)
                m.add({col[t]: 1.0, col[s]: -1.0, i: big}, "<=", big)
                m.add({col[s]: 1.0, col[t]: -1.0, i: big}, "<=", big)
            for k in range(npairs) if not potential else ():
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
        if v not in grid.end_of and not potential:
            m.add({z[v, k]: 1.0 for k in range(npairs)}, "==", 1)
