"""Checks of a run's limits and seed wherever they enter: `solve` and `run` flags, suite keys,
`gen:` specs. A value that no solver of the project can take the same way is refused with one
line (a ``UsageError``, exit code 2) before anything runs.

- Time limits: finite, positive, at most ``MAX_TIME_LIMIT_S`` (Z3 takes its timeout in
  milliseconds as an unsigned 32-bit number: 4,294,968 s wrapped to 0.7 s).
- Memory limits: finite, positive, at most ``MAX_MEMORY_LIMIT_MB``.
- Seeds: integers 0..``models.solvers.MAX_SEED`` (2^63 - 1, what the store holds); each
  solver gets the seed mapped into its own range (``models.solvers.solver_seed``).
"""

from __future__ import annotations

import math
from typing import Any

from models.base import MAX_SEED
from models.errors import UsageError

#: the longest time limit accepted: about 11.6 days, well inside every solver's range
MAX_TIME_LIMIT_S = 1_000_000.0
#: the largest memory limit accepted (1 PiB in MB): a typo, not a machine
MAX_MEMORY_LIMIT_MB = float(2**30)


def _number(value: Any, what: str, top: float, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{what} must be a number of {unit}, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise UsageError(f"{what} must be a finite positive number of {unit}, got {value!r}")
    if number > top:
        raise UsageError(f"{what} must be at most {top:g} {unit}, got {value!r}")
    return number


def time_limit(value: Any, what: str = "time limit") -> float:
    """A checked time limit in seconds (UsageError otherwise)."""
    return _number(value, what, MAX_TIME_LIMIT_S, "seconds")


def memory_limit(value: Any, what: str = "memory limit") -> float:
    """A checked memory limit in MB (UsageError otherwise)."""
    return _number(value, what, MAX_MEMORY_LIMIT_MB, "MB")


def seed(value: Any, what: str = "seed") -> int:
    """A checked seed: an integer 0..2^63-1 (UsageError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what} must be an integer, got {value!r}")
    if not 0 <= value <= MAX_SEED:
        raise UsageError(f"{what} must be between 0 and {MAX_SEED} (2^63 - 1), got {value}")
    return value
