"""``circuit-cpsat``: one Boolean per directed knight move, and CP-SAT's AddCircuit.

Closed tours: the arcs are exactly the knight moves, with no self-loops (AddCircuit
accepts a node skipped by its self-loop, which would let the circuit miss squares).
Open tours: a dummy node with an arc to and from every square; the circuit through
it is a Hamiltonian path between its two neighbours.

Threads map to ``num_workers``: DESIGN's facts say one worker is faster on big
boards here, and only one worker gives repeatable counters.

Option ``linearization_level`` defaults to 0 (no LP relaxation), not CP-SAT's 1:
measured with one worker, the LP only slows this pure-Boolean circuit search
(deterministic time 30x30 0.161 -> 0.077, 50x50 0.95 -> 0.39; 8x8..20x20 all
faster too). A suite may sweep 1 and 2 to show it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ortools.sat.python import cp_model

from models.base import Encoding, Limits, ModelSize, Outcome
from models.knights_tour.rules import KNIGHT_MOVES
from models.solvers import solve_cpsat


class CircuitCpsat(Encoding):
    name = "circuit-cpsat"
    puzzles = ("knights_tour",)
    solver = "cp-sat"
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {"linearization_level": (0, 1, 2)}

    def build(self, instance: Any, limits: Limits) -> ModelSize:
        rows, cols = instance.rows, instance.cols
        n = rows * cols
        self.rows, self.cols, self.closed = rows, cols, instance.closed
        self.model = cp_model.CpModel()
        self.arcs: list[tuple[int, int, Any]] = []
        for r in range(rows):
            for c in range(cols):
                u = r * cols + c
                for dr, dc in KNIGHT_MOVES:
                    r2, c2 = r + dr, c + dc
                    if 0 <= r2 < rows and 0 <= c2 < cols:
                        self.arcs.append(
                            (u, r2 * cols + c2, self.model.new_bool_var(f"a{u}_{r2}_{c2}"))
                        )
        if not instance.closed:
            self.dummy = n
            for u in range(n):
                self.arcs.append((n, u, self.model.new_bool_var(f"s{u}")))
                self.arcs.append((u, n, self.model.new_bool_var(f"e{u}")))
        constraints = 1
        if self.arcs:
            self.model.add_circuit(self.arcs)
        else:
            self.model.add_bool_or([])  # a single square and no move back: no closed tour
        if instance.closed and n > 1 and not self._all_connected(n):
            # AddCircuit needs each node on some arc; a square without moves has no tour
            self.model.add_bool_or([])
            constraints += 1
        return ModelSize(n_vars=len(self.arcs), n_constraints=constraints)

    def _all_connected(self, n: int) -> bool:
        touched = [False] * n
        for u, v, _ in self.arcs:
            touched[u] = touched[v] = True
        return all(touched)

    def solve(self, limits: Limits) -> Outcome:
        return solve_cpsat(
            self.model,
            limits,
            lambda solver: {"tour": self._tour(solver)},
            linearization_level=self.option("linearization_level"),
        )

    def _tour(self, solver: cp_model.CpSolver) -> list[list[int]]:
        n = self.rows * self.cols
        succ = {}
        for u, v, lit in self.arcs:
            if solver.boolean_value(lit):
                succ[u] = v
        start = succ[self.dummy] if not self.closed else 0
        order, u = [], start
        for _ in range(n):
            order.append([u // self.cols, u % self.cols])
            u = succ[u]
        return order
