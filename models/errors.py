"""Every error class of the project, in one module of the lowest layer.

Each class is a way of ending a command: bad input is exit code 2 (``UsageError`` and its
kinds), the harness failing at its own job is exit code 3 (``HarnessError`` and its kinds).
Living below both ``models`` and ``bench``, the classes are raised anywhere without any
module importing the command line (``bench.cli``), which only maps them to exit codes.
"""

from __future__ import annotations


class UsageError(ValueError):
    """Bad input: an unknown puzzle, encoding, option, run id or flag value (exit code 2)."""


class InstanceError(ValueError):
    """A puzzle file that cannot be read as its puzzle; names the file and line (exit code 2)."""

    def __init__(self, source: str, message: str, line: int | None = None):
        self.source, self.message, self.line = source, message, line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")


class SuiteError(UsageError):
    """A suite that cannot run as written; the message names the file and the problem."""


class UnknownRunError(UsageError):
    """A run id (or ``latest``) that the store does not hold: exit code 2."""


class HarnessError(Exception):
    """The harness could not do its job (store unreadable or unwritable, disk full): exit 3."""


class StoreError(HarnessError):
    """The store cannot be read or written (corrupt, foreign, newer, disk full): exit code 3."""


class SweepStopped(HarnessError):
    """A loss of runs that every later run would share (the scheduler is gone, the runs'
    temporary disk is full): the sweep stops unfinished and resumable (``bench.lost``), exit 3."""


class SideError(HarnessError):
    """One side of an A/B (``bench ab``) could not sweep; its own exit code is kept (2: the
    suite or a flag was bad input to that side's code too)."""

    def __init__(self, side: str, code: int, message: str) -> None:
        super().__init__(f"{side}: its sweep failed (exit {code}): {message}")
        self.code = code
