"""Checks of a run's limits and seed wherever they enter: `solve` and `run` flags, suite keys,
`gen:` specs. A value that no solver of the project can take the same way is refused with one
line (a ``UsageError``, exit code 2) before anything runs.

- Time limits: finite, positive, at most ``MAX_TIME_LIMIT_S`` (Z3 takes its timeout in
  milliseconds as an unsigned 32-bit number: 4,294,968 s wrapped to 0.7 s).
- Memory limits: finite, at least ``MIN_MEMORY_LIMIT_MB`` (what a solver needs to start),
  at most ``MAX_MEMORY_LIMIT_MB``.
- Threads per run and runs at once (``--jobs``): whole numbers from 1 to the cores this
  process may use (``os.sched_getaffinity``): more would measure the scheduler, not the
  solver (``--jobs 1000`` on 2 cores also cut each run's memory to 4 MB).
- Seeds: integers 0..``models.solvers.MAX_SEED`` (2^63 - 1, what the store holds); each
  solver gets the seed mapped into its own range (``models.solvers.solver_seed``).
"""

from __future__ import annotations

import math
import os
from typing import Any

from models.base import MAX_SEED
from models.errors import UsageError

#: the longest time limit accepted: about 11.6 days, well inside every solver's range
MAX_TIME_LIMIT_S = 1_000_000.0
#: the largest memory limit accepted (1 PiB in MB): a typo, not a machine
MAX_MEMORY_LIMIT_MB = float(2**30)
#: the smallest memory limit accepted, in MB: what every solver needs to start on a tiny
#: board, measured (`bench solve --memory-limit N` on easy9 and tiny_5x5): Z3 (distinct-z3)
#: memout at 16 MB, solved at 24 (19 MB peak); CBC's own process memout at 8, solved at 12;
#: CP-SAT, HiGHS and PySAT under 2 MB (the warm parent holds their libraries). 32 leaves
#: Z3 a margin for the parent's 50 ms sampling
MIN_MEMORY_LIMIT_MB = 32.0


def _number(value: Any, what: str, top: float, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{what} must be a number of {unit}, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise UsageError(f"{what} must be a finite positive number of {unit}, got {value!r}")
    if number > top:
        raise UsageError(f"{what} must be at most {top:g} {unit}, got {value!r}")
    return number


def usable_cores() -> int:
    """The cores this process may run on (its affinity, which a container or ``taskset``
    narrows), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover (not Linux)
        return os.cpu_count() or 1


def _cores(value: Any, what: str, unit: str) -> int:
    """A whole number from 1 to the usable cores (UsageError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what} must be a whole number of {unit}, got {value!r}")
    cores = usable_cores()
    if not 1 <= value <= cores:
        raise UsageError(
            f"{what} must be from 1 to the {cores} core(s) this process may use, got {value}"
        )
    return value


def threads(value: Any, what: str = "threads") -> int:
    """Checked threads of one run (`solve --threads`, a suite's ``threads``): one check."""
    return _cores(value, what, "threads")


def jobs(value: Any, what: str = "--jobs") -> int:
    """Checked runs at once: each run's share of the cores and of the memory stays real."""
    return _cores(value, what, "runs")


def time_limit(value: Any, what: str = "time limit") -> float:
    """A checked time limit in seconds (UsageError otherwise)."""
    return _number(value, what, MAX_TIME_LIMIT_S, "seconds")


def memory_limit(value: Any, what: str = "memory limit") -> float:
    """A checked memory limit in MB (UsageError otherwise), never below what a solver needs
    to start: under it every run would be a ``memout`` that says nothing of the encoding."""
    number = _number(value, what, MAX_MEMORY_LIMIT_MB, "MB")
    if number < MIN_MEMORY_LIMIT_MB:
        raise UsageError(
            f"{what} must be at least {MIN_MEMORY_LIMIT_MB:g} MB, the floor a solver needs to"
            f" start (Z3 takes about 20 MB on a tiny board), got {value!r}"
        )
    return number


def seed(value: Any, what: str = "seed") -> int:
    """A checked seed: an integer 0..2^63-1 (UsageError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what} must be an integer, got {value!r}")
    if not 0 <= value <= MAX_SEED:
        raise UsageError(f"{what} must be between 0 and {MAX_SEED} (2^63 - 1), got {value}")
    return value
