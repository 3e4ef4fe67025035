"""All pairs as routes of ONE ``add_multiple_circuit`` (CP-SAT's vehicle-routing
constraint), against the brief's one ``add_circuit`` per pair (``circuit-cpsat``).

Node 0 is a depot; every cell is node ``v + 1``. The depot's arcs are fixed: depot ->
first end and second end -> depot for every pair, so each pair is one route that
leaves the depot at its first end and comes back from its second end. Grid arcs are
made for both directions of every edge, except those no solution uses (into a first
end, out of a second end, between ends of different pairs). The constraint itself
gives every cell in- and out-degree one (full cover; no self-loops are offered) and
forbids any cycle that avoids the depot, so detached cycles are impossible by
construction, with no flow and no lazy loop. What keeps route k on pair k is a colour:
an integer ``colour[v]`` in ``0..K-1``, fixed at the ends, with ``colour[a] ==
colour[b]`` enforced by the arc literal a -> b. A route that left at s_k and came back
from t_j would carry two colours.

Why it exists: it is the same solver as the brief's model, with the circuit reasoning on
one graph of N+1 nodes instead of K copies of an N-node graph, so the pair
``circuit-cpsat`` / ``routes-cpsat`` separates formulation from solver.

Options: ``blocks=2x2`` adds "a 2x2 block uses at most three edges" (valid: its
4-cycle holds no end); ``linearization_level`` is CP-SAT's LP relaxation (default 1,
as in CP-SAT). Measurements of both: docs/experiments/numberlink-encodings.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import grid_of, paths_from_edges, useless_edges
from models.numberlink.rules import Board
from models.solvers import solve_cpsat


class RoutesCpsat(Encoding):
    name = "routes-cpsat"
    puzzles = ("numberlink",)
    solver = "cp-sat"
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "blocks": ("none", "2x2"),
        "linearization_level": (1, 0, 2),
    }

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        grid = self.grid = grid_of(instance)
        model = self.model = cp_model.CpModel()
        npairs = len(grid.pairs)
        firsts = {a for a, _ in grid.pairs}
        seconds = {b for _, b in grid.pairs}
        colour = [model.new_int_var(0, npairs - 1, f"colour{v}") for v in range(grid.n)]
        for v, k in grid.end_of.items():
            model.add(colour[v] == k)
        banned = useless_edges(grid)
        self.edge_arcs: list[tuple[int, cp_model.IntVar]] = []
        arcs: list[tuple[int, int, cp_model.IntVar]] = []
        per_edge: dict[int, list[cp_model.IntVar]] = {}
        for e, (a, b) in enumerate(grid.edges):
            if e in banned:
                continue
            for s, t in ((a, b), (b, a)):
                if s in seconds or t in firsts:
                    continue
                lit = model.new_bool_var(f"arc{s}_{t}")
                model.add(colour[s] == colour[t]).only_enforce_if(lit)
                arcs.append((s + 1, t + 1, lit))
                per_edge.setdefault(e, []).append(lit)
                self.edge_arcs.append((e, lit))
        for first, second in grid.pairs:
            arcs.append((0, first + 1, model.new_constant(1)))
            arcs.append((second + 1, 0, model.new_constant(1)))
        model.add_multiple_circuit(arcs)
        if self.option("blocks") == "2x2":
            self._block_rows(per_edge)
        proto = model.proto
        return ModelSize(len(proto.variables), len(proto.constraints))

    def _block_rows(self, per_edge: dict[int, list[cp_model.IntVar]]) -> None:
        """A 2x2 block uses at most three of its edges (its 4-cycle holds no end)."""
        grid, index = self.grid, {ab: e for e, ab in enumerate(self.grid.edges)}
        for r in range(grid.rows - 1):
            for c in range(grid.cols - 1):
                v = r * grid.cols + c
                sides = ((v, v + 1), (v, v + grid.cols), (v + 1, v + 1 + grid.cols))
                sides += ((v + grid.cols, v + grid.cols + 1),)
                lits = [lit for ab in sides for lit in per_edge.get(index[ab], [])]
                self.model.add(sum(lits) <= 3)

    def solve(self, limits: Limits) -> Outcome:
        def decode(solver: cp_model.CpSolver) -> dict:
            used = {e for e, lit in self.edge_arcs if solver.boolean_value(lit)}
            return {"paths": paths_from_edges(self.grid, used)}

        level = self.option("linearization_level")
        return solve_cpsat(self.model, limits, decode, linearization_level=level)
