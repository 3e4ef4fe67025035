"""The two interfaces everything else is written against: a puzzle's rules and an encoding.

A *puzzle* owns its file format, its independent checker, its generator and its
picture. An *encoding* states one puzzle for one solver. The harness (``bench``)
times ``Encoding.build`` and ``Encoding.solve`` separately and hands every
answer to the puzzle's own ``verify``, which never imports an encoding.
"""

from __future__ import annotations

import math
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from models.errors import InstanceError, UsageError

# Statuses an encoding may return; the harness adds ``wrong`` (checker refused the
# answer) and ``memout``/``timeout``/``error`` for runs it had to stop.
SOLVED = "solved"
INFEASIBLE = "infeasible"
TIMEOUT = "timeout"
MEMOUT = "memout"
ERROR = "error"
WRONG = "wrong"
STATUSES = (SOLVED, INFEASIBLE, TIMEOUT, MEMOUT, ERROR, WRONG)
#: a timeout whose wall time is under this share of its limit gave up (a reference search
#: exhausted on a board with no solution, an assumption that pruned every branch): it did
#: not run out of time, so it neither ends a size sweep nor stands for ``t > limit`` in a fit
GAVE_UP_SHARE = 0.5


#: largest seed a run may have (what the store's 64-bit integer holds); each solver gets it
#: mapped into its own range (``models.solvers.solver_seed``)
MAX_SEED = 2**63 - 1


def gave_up(status: str, wall_s: float | None, time_limit_s: float | None) -> bool:
    """Whether a run stopped without an answer well inside its time limit."""
    if status != TIMEOUT or wall_s is None or not time_limit_s or math.isnan(wall_s):
        return False
    return wall_s < GAVE_UP_SHARE * time_limit_s


#: a puzzle file's default size cap in bytes (``Puzzle.max_file_bytes``): checked with
#: ``os.stat`` before a byte is read, so a 1 GB file is refused instead of read whole
MAX_FILE_BYTES = 16 * 2**20

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "not a plain file")


def read_instance_file(path: Path, source: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of an instance file, the one way every loader reads one.

    Checked before a byte is read: it must be a regular file (a FIFO would block, a device
    never ends) of at most ``max_bytes`` (``os.stat``); it is then read through a bounded
    read (``/proc`` files say size 0), so no file costs more than its cap. UTF-8, with a
    leading byte order mark (Windows editors write one) dropped. Every problem is an
    InstanceError naming the file, and none quotes the file's content."""
    try:
        kind = _not_regular(os.stat(path).st_mode)
        if kind is None:
            _check_bytes(os.stat(path).st_size, source, max_bytes)
        # O_NONBLOCK: a FIFO swapped in after the stat does not block the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC) if kind is None else -1
    except FileNotFoundError:
        raise InstanceError(source, "no such file") from None
    except OSError as err:
        raise InstanceError(source, f"cannot read: {err.strerror or type(err).__name__}") from None
    if kind is not None:
        raise InstanceError(source, f"not a regular file ({kind}): give a puzzle file")
    with os.fdopen(fd, "rb") as file:
        kind = _not_regular(os.fstat(file.fileno()).st_mode)  # the file actually opened
        if kind is not None:
            raise InstanceError(source, f"not a regular file ({kind}): give a puzzle file")
        try:
            data = file.read(max_bytes + 1)
        except OSError as err:
            raise InstanceError(
                source, f"cannot read: {err.strerror or type(err).__name__}"
            ) from None
    _check_bytes(len(data), source, max_bytes, read=True)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:  # its message would quote the byte
        raise InstanceError(
            source, f"not UTF-8 text (byte {err.start + 1} cannot be read)"
        ) from None


def _check_bytes(size: int, source: str, max_bytes: int, read: bool = False) -> None:
    """Refuse a file over the cap: its size by ``os.stat``, or what a bounded ``read`` got."""
    if size > max_bytes:
        said = f"more than {max_bytes:,}" if read else f"{size:,}"
        raise InstanceError(
            source,
            f"{said} bytes, over the cap of"
            f" {max_bytes:,} bytes for this puzzle's files (raise it with {MAX_FILE_BYTES_ENV})",
        )


#: environment variable overriding every puzzle's file size cap, in bytes
MAX_FILE_BYTES_ENV = "PUZZLE_BENCH_MAX_FILE_BYTES"


@dataclass(frozen=True)
class Limits:
    """What a run may use. ``time_limit_s`` is what is left for the solve step."""

    time_limit_s: float | None = None
    seed: int = 0
    threads: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelSize:
    """Size of the built model: variables and constraints (clauses for CNF)."""

    n_vars: int
    n_constraints: int


@dataclass
class Outcome:
    """What a solve returns. ``solution`` is in the puzzle's JSON solution form."""

    status: str
    solution: dict[str, Any] | None = None
    counters: dict[str, float] = field(default_factory=dict)
    message: str = ""


class Encoding(ABC):
    """One formulation of one (or several) puzzles for one solver.

    Subclasses live one per file in ``models/<puzzle>/encodings/``; the registry
    finds them by scanning, so adding an encoding touches one new file.
    ``options`` are per-encoding solver options from a suite (e.g. a SAT back end).
    """

    name: ClassVar[str]
    puzzles: ClassVar[tuple[str, ...]]
    solver: ClassVar[str]
    #: a non-solver reference algorithm (never claims ``infeasible`` unless it proves it)
    reference: ClassVar[bool] = False
    #: the option values a suite may sweep, e.g. {"backend": ("cadical153", "glucose4")}
    option_choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {}

    def __init__(self, options: Mapping[str, Any] | None = None):
        self.options = {
            key: self.match_option(key, value) for key, value in (options or {}).items()
        }

    @classmethod
    def match_option(cls, key: str, value: Any) -> Any:
        """The choice of option ``key`` that ``value`` names (the value itself, or its text as
        typed on a command line or in a suite); UsageError (exit 2) for anything else."""
        choices = cls.option_choices.get(key)
        if choices is None:
            known = ", ".join(cls.option_choices) or "none"
            raise UsageError(f"encoding {cls.name} has no option {key!r} (known: {known})")
        for choice in choices:
            if choice == value or str(choice) == str(value):
                return choice
            if isinstance(choice, bool) and str(value).lower() == str(choice).lower():
                return choice  # `assume_unique=true` as TOML and JSON spell it
        raise UsageError(f"option {key}={value!r} not one of {[str(c) for c in choices]}")

    @classmethod
    def full_options(cls, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every option with its value (defaults filled in), so records stay comparable
        even if a default changes later."""
        return {key: choices[0] for key, choices in cls.option_choices.items()} | dict(given or {})

    def option(self, key: str) -> Any:
        """The chosen value of an option, or its default (the first choice)."""
        return self.options.get(key, self.option_choices[key][0])

    @classmethod
    def proves_infeasible(cls, options: Mapping[str, Any]) -> bool:
        """Whether an exhausted search with these options proves "no solution" (a reference
        algorithm, or an option that prunes by an assumption, only gives up: ``timeout``)."""
        return not cls.reference

    @classmethod
    def solver_version(cls) -> str:
        """A reference algorithm's own version; empty for solver encodings, whose version
        comes from the solver table (``models.solvers.encoding_version``)."""
        return ""

    @abstractmethod
    def build(self, instance: Any, limits: Limits) -> ModelSize:
        """Build the model for ``instance``; timed as build_s."""

    @abstractmethod
    def solve(self, limits: Limits) -> Outcome:
        """Solve the model built last; timed as solve_s. Honour the time limit."""


@dataclass(frozen=True)
class Puzzle:
    """A puzzle's rules. Every function here is independent of every encoding."""

    name: str
    #: (text, source) -> instance; raises InstanceError naming source and line
    parse: Callable[[str, str], Any]
    #: instance -> file text (parse(format(x)) == x)
    format: Callable[[Any], str]
    #: (instance, solution) -> None if the solution is right, else the first problem found
    verify: Callable[[Any, Any], str | None]
    #: (rows, cols, seed, **params) -> instance, deterministic for a seed
    generate: Callable[..., Any]
    #: (instance, solution or None) -> matplotlib Figure
    draw: Callable[[Any, Any], Any]
    #: (instance, solution or None) -> the board as text for a terminal
    render: Callable[[Any, Any], str]
    #: instance -> size label such as "10x10"
    size_of: Callable[[Any], str]
    #: text -> [(first line number, entry text)] for collection files (PATH#N)
    split: Callable[[str], list[tuple[int, str]]] = lambda text: [(1, text)]
    #: instance specs (paths relative to the repo root, or gen:...) that every encoding of
    #: this puzzle solves in about a second: the conformance test runs them all
    tiny: tuple[str, ...] = ()
    #: specs with no solution that complete encodings prove infeasible in about a second
    tiny_infeasible: tuple[str, ...] = ()
    #: the package whose modules define this puzzle's encodings (``<package>.encodings``
    #: when empty); the registry imports only the packages of the puzzles asked for
    encodings_package: str = ""
    #: largest board in cells: beyond it a build only runs out of memory, so a file asking
    #: for more is refused as bad input (``--max-cells`` overrides every puzzle's cap)
    max_cells: int = 1_000_000
    #: largest puzzle file in bytes, checked (``os.stat``) before the file is read; set far
    #: above any real board or collection so that only a file that is no puzzle meets it
    max_file_bytes: int = MAX_FILE_BYTES
    #: (rows, cols, seed, **params) -> anything; raises ValueError (TypeError for an unknown
    #: parameter) where ``generate`` would, without making a board: a ``gen:`` spec is checked
    #: with it before any run (exit 2), as the board itself is made inside its run
    check_generate: Callable[..., Any] | None = None
    #: the module defining the puzzle (its ``PUZZLE``); the registry fills it in
    package: str = ""
