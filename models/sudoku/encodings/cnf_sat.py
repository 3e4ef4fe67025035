"""cnf-sat: Sudoku as CNF (Lynce & Ouaknine 2006) through PySAT.

Variants: ``minimal`` (each cell holds at least one digit; no digit twice in a unit) and
``extended`` (adds: each cell at most one digit; each digit at least once per unit).
At-most-one is pairwise as in the paper, or (option ``amo=sequential``) Sinz's sequential
counter for long groups, which cuts the clause count of sparse 16x16 / 25x25 grids.
Clues are pre-eliminated, not stated as unit clauses: a clue cell gets no variables and
its digit is struck from its peers' candidates, so only (cell, digit) pairs that the
clues leave open become variables. A clash among the clues, or an empty cell with no
candidate left, makes the formula trivially unsatisfiable (the solver still proves it).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from itertools import combinations
from typing import Any, ClassVar

from pysat.solvers import Solver

from models.base import INFEASIBLE, SOLVED, TIMEOUT, Encoding, Limits, ModelSize, Outcome
from models.solvers import solve_sat_within

FIRST_CHUNK = 2_000  # conflicts in the first budgeted call


class CnfSat(Encoding):
    """PySAT, single-threaded; the seed has no effect (the back ends run deterministically).

    The time limit is kept by conflict budgets (``models.solvers.solve_sat_within``) because
    CaDiCaL cannot be interrupted; the harness's hard kill stays the last resort.
    """

    name = "cnf-sat"
    puzzles = ("sudoku", "sudoku_x")
    solver = "pysat"
    option_choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        "variant": ("extended", "minimal"),
        "backend": ("cadical153", "glucose4", "cadical195", "glucose42", "minisat22"),
        "amo": ("pairwise", "sequential"),
    }

    def build(self, instance, limits: Limits) -> ModelSize:
        n, grid = instance.n, instance.grid
        extended = self.option("variant") == "extended"
        units_of: dict[tuple[int, int], list[int]] = {}
        for u, unit in enumerate(instance.units):
            for cell in unit:
                units_of.setdefault(cell, []).append(u)
        placed = [set() for _ in instance.units]  # digits given by clues, per unit
        clash = False
        for (r, c), units in units_of.items():
            if grid[r][c]:
                for u in units:
                    clash |= grid[r][c] in placed[u]
                    placed[u].add(grid[r][c])
        var: dict[tuple[int, int, int], int] = {}
        clauses: list[list[int]] = []
        groups: list[list[int]] = []  # at most one of each (cells: extended only)
        for (r, c), units in units_of.items():
            if grid[r][c]:
                continue
            taken = set().union(*(placed[u] for u in units))
            lits = []
            for d in range(1, n + 1):
                if d not in taken:
                    var[r, c, d] = len(var) + 1
                    lits.append(var[r, c, d])
            clauses.append(lits)  # definedness: at least one digit (empty: no candidate)
            if extended:
                groups.append(lits)
        for u, unit in enumerate(instance.units):
            for d in range(1, n + 1):
                if d in placed[u]:
                    continue
                lits = [var[r, c, d] for r, c in unit if (r, c, d) in var]
                groups.append(lits)
                if extended:
                    clauses.append(lits)
        n_vars = _at_most_one(groups, clauses, len(var), self.option("amo") == "sequential")
        if clash or any(not clause for clause in clauses):
            clauses = [clause for clause in clauses if clause]
            n_vars += 1  # a contradiction the solver sees at once
            clauses += [[n_vars], [-n_vars]]
        self.var, self.clauses, self.grid = var, clauses, grid
        return ModelSize(n_vars, len(clauses))

    def solve(self, limits: Limits) -> Outcome:
        start = time.monotonic()
        deadline = None if limits.time_limit_s is None else start + limits.time_limit_s
        with Solver(name=self.option("backend"), bootstrap_with=self.clauses) as solver:
            result, rounds = solve_sat_within(solver, deadline, FIRST_CHUNK)
            counters = {k: float(v) for k, v in solver.accum_stats().items()}
            counters["rounds"] = float(rounds)
            self.solver_model = solver.get_model() if result else None
        if result is None:
            return Outcome(TIMEOUT, None, counters, "conflict budget used up at the time limit")
        if not result:
            return Outcome(INFEASIBLE, None, counters)
        return Outcome(SOLVED, {"grid": self.decode(self.solver_model)}, counters)

    def check_unique(self, limits: Limits | None = None) -> bool | None:
        """After a solved run: is that the only solution? (None: the limit ran out.)"""
        return check_unique(self, limits)

    def decode(self, model: list[int]) -> list[list[int]]:
        true = {lit for lit in model if lit > 0}
        grid = [list(row) for row in self.grid]
        for (r, c, d), v in self.var.items():
            if v in true:
                grid[r][c] = d
        return grid


def _at_most_one(groups: list[list[int]], clauses: list, top: int, sequential: bool) -> int:
    """Add at-most-one clauses: pairwise (the paper's), or Sinz's sequential counter for
    groups longer than 5 (3m clauses and m-1 new variables instead of m(m-1)/2 clauses).
    Returns the highest variable number used."""
    for lits in groups:
        m = len(lits)
        if not sequential or m <= 5:
            clauses.extend([-a, -b] for a, b in combinations(lits, 2))
            continue
        s = list(range(top + 1, top + m))  # s[i]: one of lits[0..i] is true
        top += m - 1
        clauses.append([-lits[0], s[0]])
        for i in range(1, m - 1):
            clauses += [[-lits[i], s[i]], [-s[i - 1], s[i]], [-lits[i], -s[i - 1]]]
        clauses.append([-lits[m - 1], -s[m - 2]])
    return top


def check_unique(encoding: CnfSat, limits: Limits | None = None) -> bool | None:
    """After a solved run: block the found grid and solve again (None: ran out of time)."""
    limits = limits or Limits()
    if getattr(encoding, "solver_model", None) is None:
        raise ValueError("check_unique needs a solved run first")
    grid = encoding.decode(encoding.solver_model)
    block = [-v for (r, c, d), v in encoding.var.items() if grid[r][c] == d]
    again = CnfSat(encoding.options)
    again.var, again.grid = encoding.var, encoding.grid
    again.clauses = [*encoding.clauses, block]
    outcome = again.solve(limits)
    return None if outcome.status == TIMEOUT else outcome.status == INFEASIBLE
