"""The brief's model (brief 000): one ``add_circuit`` per pair on CP-SAT.

Each pair gets a circuit over all cells: an arc variable for both directions of every
grid edge plus a self-loop per cell ("this cell is not on this pair's path"). The
arc from the second end back to the first is forced true, which turns the circuit
into the path first end -> ... -> second end. Forcing it matters: ``add_circuit``
accepts the all-self-loop circuit, so without it a pair could simply vanish. Every
cell has exactly one non-self-loop across the pairs, which is the full-cover rule and
keeps paths apart. Nothing else is added: this is the brief's formulation as written.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.numberlink.encodings._common import grid_of, paths_from_edges
from models.numberlink.rules import Board
from models.solvers import solve_cpsat


class CircuitCpsat(Encoding):
    name = "circuit-cpsat"
    puzzles = ("numberlink",)
    solver = "cp-sat"

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        grid = self.grid = grid_of(instance)
        model = self.model = cp_model.CpModel()
        self.arcs: list[list[tuple[int, cp_model.IntVar]]] = []
        skip: list[list[cp_model.IntVar]] = []
        for k, (first, second) in enumerate(grid.pairs):
            arcs, arc_vars = [], []
            for e, (a, b) in enumerate(grid.edges):
                for s, t in ((a, b), (b, a)):
                    v = model.new_bool_var(f"a{k}_{s}_{t}")
                    arcs.append((s, t, v))
                    arc_vars.append((e, v))
            loops = [model.new_bool_var(f"l{k}_{v}") for v in range(grid.n)]
            arcs += [(v, v, loops[v]) for v in range(grid.n)]
            arcs.append((second, first, model.new_constant(1)))
            model.add_circuit(arcs)
            self.arcs.append(arc_vars)
            skip.append(loops)
        for v in range(grid.n):
            model.add_exactly_one([~skip[k][v] for k in range(len(grid.pairs))])
        proto = model.proto
        return ModelSize(len(proto.variables), len(proto.constraints))

    def solve(self, limits: Limits) -> Outcome:
        def decode(solver: cp_model.CpSolver) -> dict:
            used = {e for arc_vars in self.arcs for e, v in arc_vars if solver.boolean_value(v)}
            return {"paths": paths_from_edges(self.grid, used)}

        return solve_cpsat(self.model, limits, decode)
