"""Glue that every encoding of a given solver needs: effort counters and versions.

Encodings share these (they are solver plumbing, not formulations); the puzzles'
verifiers never import this module.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

#: environment variable naming a CBC binary to use instead of the one PuLP ships
CBC_ENV = "PUZZLE_BENCH_CBC"


@cache
def cbc_binary() -> str | None:
    """The one CBC executable that every CBC encoding runs and the version probe reports.

    ``$PUZZLE_BENCH_CBC`` when set (and only it: a binary named on purpose is never
    silently replaced); else the binary PuLP 3.x bundles (read from PuLP's module, without
    instantiating the deprecated ``PULP_CBC_CMD``); else ``cbc`` on the PATH. None when there
    is none, so a CBC run fails with a clear message and ``bench list`` still works.
    """
    import os
    import shutil

    named = os.environ.get(CBC_ENV, "")
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    candidates = []
    try:
        from pulp.apis import coin_api

        candidates.append(os.path.normpath(getattr(coin_api, "pulp_cbc_path", "") or ""))
    except ImportError:
        pass
    candidates.append(shutil.which("cbc") or "")
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


@cache
def cbc_version() -> str:
    """``cbc 2.10.3 (pulp 3.3.2)``: asks ``cbc_binary()`` once per process; never raises."""
    try:
        import pulp

        pulp_version = pulp.__version__
    except ImportError:
        pulp_version = "missing"
    path = cbc_binary()
    cbc = "unavailable"
    if path is not None:
        try:
            banner = subprocess.run(
                [path, "-quit"], capture_output=True, text=True, timeout=10
            ).stdout
            found = re.search(r"Version:\s*(\S+)", banner)
            cbc = found.group(1) if found else "unknown"
        except (OSError, subprocess.SubprocessError, ValueError):
            cbc = "unavailable"
    return f"cbc {cbc} (pulp {pulp_version})"


def run_cbc(prob, limits, options: list[str]) -> tuple[str, dict[str, float], str]:
    """Solve a PuLP problem with ``cbc_binary()`` and read CBC's own log.

    Returns (status, counters, message); status is ``solved`` when PuLP holds an
    integer point, ``infeasible`` only on a proof in CBC's log, else ``timeout``. The log,
    not PuLP's status word, decides: PuLP says "Optimal" for a run stopped on time with a
    feasible point and "Infeasible" for some stopped runs and for a log cut short. ``-threads 1`` would run
    CBC's threaded code (another, slower search), so threads are only asked for above 1.
    """
    import os
    import tempfile

    import pulp

    from models.base import INFEASIBLE, SOLVED, TIMEOUT

    path = cbc_binary()
    if path is None:
        raise RuntimeError(
            f"no CBC binary (${CBC_ENV} names none that runs; PuLP 3.x ships one, or put cbc on PATH)"
        )
    fd, log_path = tempfile.mkstemp(prefix="cbc-", suffix=".log")
    os.close(fd)
    try:
        solver = pulp.COIN_CMD(
            path=path,
            msg=False,
            timeLimit=limits.time_limit_s,
            threads=limits.threads if limits.threads > 1 else None,
            options=options,
            logPath=log_path,
        )
        prob.solve(solver)
        with open(log_path, encoding="utf-8", errors="replace") as fh:
            log = fh.read()
    finally:
        os.unlink(log_path)
    counters: dict[str, float] = {}
    for key, pattern in (
        ("nodes", r"Enumerated nodes:\s+(\d+)"),
        ("lp_iterations", r"Total iterations:\s+(\d+)"),
    ):
        found = re.search(pattern, log)
        if found:
            counters[key] = float(found.group(1))
    result = re.search(r"Result - (.*)", log)
    message = result.group(1).strip() if result else "CBC gave no result line"
    if prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return SOLVED, counters, message
    proofs = ("Problem proven infeasible", "Problem is infeasible", "relaxation infeasible")
    if any(proof in log for proof in proofs):  # only CBC's own proof: PuLP's word is not one
        return INFEASIBLE, counters, message
    return TIMEOUT, counters, message


def cpsat_solver(limits):
    """A CP-SAT solver honouring the run's time limit, seed and thread count."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, limits.threads)
    solver.parameters.random_seed = limits.seed
    if limits.time_limit_s is not None:
        solver.parameters.max_time_in_seconds = max(0.001, limits.time_limit_s)
    return solver


def cpsat_counters(solver) -> dict[str, float]:
    """CP-SAT's effort: deterministic time, conflicts and branches repeat with one worker."""
    return {
        "deterministic_time": float(solver.deterministic_time),
        "conflicts": float(solver.num_conflicts),
        "branches": float(solver.num_branches),
        "wall_time": float(solver.wall_time),
    }


def solve_cpsat(model, limits, decode, **parameters):
    """Solve a CP-SAT model under the run's limits and map its status to an Outcome;
    ``decode(solver)`` reads the solution, ``parameters`` set CP-SAT parameters."""
    from ortools.sat.python import cp_model

    from models.base import INFEASIBLE, SOLVED, TIMEOUT, Outcome

    solver = cpsat_solver(limits)
    for key, value in parameters.items():
        setattr(solver.parameters, key, value)
    status = solver.solve(model)
    counters = cpsat_counters(solver)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Outcome(SOLVED, decode(solver), counters)
    if status == cp_model.INFEASIBLE:
        return Outcome(INFEASIBLE, None, counters)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT says the model is invalid: {model.validate()}")
    return Outcome(TIMEOUT, None, counters, solver.status_name(status))


def z3_counters(solver) -> dict[str, float]:
    """Every numeric Z3 statistic, lower_snake_case ("rlimit count" -> rlimit_count)."""
    stats = solver.statistics()
    out: dict[str, float] = {}
    for key in stats.keys():  # noqa: SIM118 (z3.Statistics is not a dict)
        value = stats.get_key_value(key)
        if isinstance(value, (int, float)):
            out[re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")] = float(value)
    return out


def solve_sat_conflicts(sat, conflicts: int, assumptions: Sequence[int] = ()) -> bool | None:
    """One PySAT ``solve_limited`` call of at most ``conflicts`` conflicts (None: undecided),
    under ``assumptions``; for callers that share the time in turns counted in work."""
    sat.conf_budget(conflicts)
    return sat.solve_limited(assumptions=list(assumptions))


def solve_sat_within(
    sat, deadline: float | None, first_budget: int = 5_000
) -> tuple[bool | None, int]:
    """(answer or None at the deadline, calls made): a PySAT ``solve_limited`` in conflict
    budgets, since CaDiCaL cannot be interrupted. After the first budget each aims at a
    quarter of the time left (0.5-5 s) at the rate seen so far: fewer, longer calls, since
    each restarts part of the search; one call's overrun stays within the harness's kill
    margin."""
    if deadline is None:
        return sat.solve(), 1
    budget, rate, calls = first_budget, None, 0
    while True:
        start = time.monotonic()
        if start >= deadline:
            return None, calls
        if rate is not None:
            target = min(5.0, max(0.5, (deadline - start) / 4))
            budget = max(1_000, int(rate * target))
        before = sat.accum_stats().get("conflicts", 0)
        answer = solve_sat_conflicts(sat, budget)
        calls += 1
        if answer is not None:
            return answer, calls
        took = max(1e-3, time.monotonic() - start)
        rate = max(1.0, (sat.accum_stats().get("conflicts", 0) - before) / took)


@dataclass(frozen=True)
class Solver:
    """What the harness knows about one solver, by the name encodings give it (``Encoding.solver``).

    ``effort`` names the counters that measure the solver's work (not its clock or
    memory); they repeat exactly at a fixed seed under the settings ``repeats_when``
    accepts (thread count, the run's options). ``bench compare`` judges solve work by them
    where they are declared or shown to repeat, and by time otherwise.
    """

    name: str
    package: str  # the distribution whose version a run records ("" for plain Python)
    warm_modules: tuple[str, ...] = ()  # imported by the forking parent before any run
    effort: tuple[str, ...] = ()
    repeats_when: Callable[[int, Mapping[str, Any]], bool] = lambda threads, options: True
    note: str = ""


def _one_thread(threads: int, options: Mapping[str, Any]) -> bool:
    return threads == 1


def _z3_simple_solver(threads: int, options: Mapping[str, Any]) -> bool:
    return threads == 1 and options.get("z3_solver", "SimpleSolver") == "SimpleSolver"


SOLVERS: dict[str, Solver] = {
    s.name: s
    for s in (
        Solver(
            "cp-sat",
            "ortools",
            ("ortools.sat.python.cp_model",),
            ("deterministic_time", "conflicts", "branches"),
            _one_thread,
            "with one worker only (num_workers = 1)",
        ),
        Solver(
            "z3",
            "z3-solver",
            ("z3",),
            ("rlimit_count", "conflicts", "decisions", "propagations"),
            _z3_simple_solver,
            "with z3.SimpleSolver(); z3.Solver() varies its rlimit count run to run",
        ),
        Solver(
            "pysat",
            "python-sat",
            ("pysat.solvers",),
            ("conflicts", "decisions", "propagations", "restarts", "rounds"),
            note="always (sequential CDCL)",
        ),
        Solver(
            "cbc",
            "PuLP",
            ("pulp",),
            ("nodes", "lp_iterations"),
            _one_thread,
            "with one thread",
        ),
        Solver(
            "highs",
            "highspy",
            ("highspy",),
            ("nodes", "lp_iterations"),
            _one_thread,
            "with one thread",
        ),
        Solver(
            "python", "", (), ("nodes", "backtracks"), note="reference algorithms: deterministic"
        ),
        Solver(
            "numba",
            "numba",
            (),
            ("nodes", "backtracks", "forced", "fails"),
            note="compiled searches: deterministic (restarts are seeded)",
        ),
    )
}


#: largest seed each solver takes (CP-SAT and HiGHS: a 32-bit signed int; CBC gets seed + 1
#: in a 32-bit int; Z3: unsigned 32-bit); a reference algorithm takes any seed up to MAX_SEED
SEED_RANGES: dict[str, int] = {
    "cp-sat": 2**31 - 1,
    "highs": 2**31 - 1,
    "cbc": 2**31 - 2,
    "z3": 2**32 - 1,
}


def solver_seed(solver: str, seed: int) -> int:
    """The seed a run hands its solver: its own seed when the solver takes it, else the seed
    mapped into the solver's range (modulo, so every run of a seed gets the same one).
    The record keeps the run's own seed; ``bench.limits`` refuses seeds outside
    0..``models.base.MAX_SEED``."""
    top = SEED_RANGES.get(solver)
    return seed if top is None or 0 <= seed <= top else seed % (top + 1)


def effort_counters(solver: str) -> tuple[str, ...]:
    """The counters that measure a solver's work (empty for an unknown solver)."""
    known = SOLVERS.get(solver)
    return known.effort if known else ()


def repeatable_counters(solver: str, threads: int, options: Mapping[str, Any]) -> tuple[str, ...]:
    """The effort counters of a run that repeat exactly under these settings (empty if none)."""
    known = SOLVERS.get(solver)
    if known is None or not known.repeats_when(int(threads), options or {}):
        return ()
    return known.effort


def version(solver: str) -> str:
    """The version of a solver by the name encodings give it (``Encoding.solver``)."""
    from importlib.metadata import version as installed

    if solver == "cbc":
        return cbc_version()
    known = SOLVERS.get(solver)
    if known is not None and known.package:
        return f"{known.package} {installed(known.package)}"
    raise ValueError(
        f"no version known for solver {solver!r}: a reference overrides solver_version()"
    )


def encoding_version(encoding_cls: type) -> str:
    """What a run records as ``solver_version``: a reference algorithm's own version, else
    the version of the solver the encoding names."""
    return encoding_cls.solver_version() or version(encoding_cls.solver)
