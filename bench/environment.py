"""The environment of a sweep: machine, versions, source state and a calibration figure.

Stored once per run id so that figures from different machines, library versions or
edited encodings are never compared blindly. ``calibration_s`` is the best of a few
timings of a fixed pure-Python workload: a ratio of two machines' figures scales their
times for comparison (roughly; solvers in C++ do not follow Python speed exactly).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import inspect
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from bench.suites_dir import REPO_ROOT
from models import registry, solvers

PROJECT_PACKAGES = ("bench", "models")
#: distributions whose versions every environment records
LIBRARIES = (
    *(s.package for s in solvers.SOLVERS.values() if s.package),
    "numpy",
    "pandas",
    "dask",
    "distributed",
)
CALIBRATION_ROUNDS = 3


def collect(
    calibrate: bool = True,
    puzzles: Iterable[str] | None = None,
    encodings: Iterable[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """Everything a reader needs to trust or normalise the sweep's figures; the solver
    versions and encoding hashes of ``encodings`` ((puzzle, encoding) pairs: the ones a
    sweep runs, which its records take theirs from), else of every encoding of
    ``puzzles`` (all when None)."""
    found = registry.selected_encodings(puzzles, encodings)
    recorded = [(f"{puzzle}/{name}", cls) for (puzzle, name), cls in found.items()]
    env: dict[str, Any] = {
        "host": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_mb": _memory_mb(),
        # what else the machine ran when the sweep began (1, 5, 15 min): times are less sure
        # where it exceeds the cores (``compare.busy_note``)
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "os": f"{platform.system()} {platform.release()}",
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "libraries": _library_versions(),
        "solvers": {key: solver_version(cls) for key, cls in recorded},  # as each reports it
        "encoding_hashes": {key: encoding_hash(cls) for key, cls in recorded},
    }
    env.update(_git())
    if calibrate:
        env["calibration_s"] = calibration()
        env["calibration_rounds"] = CALIBRATION_ROUNDS
    return env


def collect_isolated(
    calibrate: bool = True,
    puzzles: Iterable[str] | None = None,
    encodings: Iterable[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """``collect`` in a forked child, so no solver is touched in the (forking) parent."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(read_fd)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)  # a solver's banner (HiGHS prints one) stays off the terminal
            os.dup2(devnull, 2)
            data = json.dumps(collect(calibrate, puzzles, encodings)).encode()
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(data)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        # the child failed: collect here rather than go without
        return collect(calibrate, puzzles, encodings)
    return json.loads(data)


@cache
def solver_version(cls: type) -> str:
    try:
        return str(solvers.encoding_version(cls))
    except Exception as err:  # a broken version probe must not stop a sweep
        return f"unknown ({type(err).__name__})"


@cache
def encoding_hash(cls: type) -> str:
    """sha256 (first 16 hex digits) of every project file the encoding's result depends on:
    its own file and, transitively, every ``models`` module it imports (helpers beside it,
    the puzzle's rules, ``models/solvers.py``, which maps solver statuses)."""
    try:
        main = Path(inspect.getfile(cls)).resolve()
    except (TypeError, OSError):
        return ""
    digest = hashlib.sha256()
    for path in sorted(dependency_files(main)):
        # a plugin's file outside the project is named by its file name alone
        name = (
            path.relative_to(REPO_ROOT).as_posix() if path.is_relative_to(REPO_ROOT) else path.name
        )
        try:
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            continue
    return digest.hexdigest()[:16]


def module_file(name: str) -> Path | None:
    """The source file of a project module (``models.x.y``), or None outside the project."""
    base = REPO_ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def project_imports(path: Path) -> frozenset[str]:
    """Project modules (``bench.*``, ``models.*``) a file imports, lazy imports included
    (imports only for type checkers, under ``if TYPE_CHECKING:``, are not)."""
    found: set[str] = set()
    todo: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            todo.extend(ast.iter_child_nodes(node))
            continue
        found.update(n for n in names if n.split(".")[0] in PROJECT_PACKAGES and module_file(n))
    return frozenset(found)


def dependency_files(main: Path) -> set[Path]:
    """``main`` and every project file it imports, transitively (within ``models``)."""
    seen, todo = {main}, [main]
    while todo:
        for name in project_imports(todo.pop()):
            path = module_file(name)
            if path and name.startswith("models") and path not in seen:
                seen.add(path)
                todo.append(path)
    return seen


def calibration(rounds: int = CALIBRATION_ROUNDS) -> float:
    """Best of ``rounds`` timings (seconds) of a fixed workload: integer, dict and list work."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        _reference_workload()
        best = min(best, time.perf_counter() - start)
    return round(best, 6)


def _reference_workload() -> int:
    """Never change this function: its time is the machine's speed figure (~0.1 s here)."""
    total = 0
    table: dict[int, int] = {}
    for i in range(200_000):
        total = (total * 31 + i) % 1_000_003
        table[i % 4099] = total
    values = sorted(table.values())
    for j in range(50):
        values.reverse()
        total += values[j]
    sieve = bytearray([1]) * 100_000
    for p in range(2, 317):
        if sieve[p]:
            sieve[p * p :: p] = bytes(len(range(p * p, 100_000, p)))
    return total + sum(sieve)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _library_versions() -> dict[str, str]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    out["python_executable"] = sys.executable
    return out


def _git() -> dict[str, Any]:
    """Commit and dirty flag of the project's checkout (empty strings outside git)."""

    def run(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = run("rev-parse", "HEAD")
    status = run("status", "--porcelain", "--untracked-files=no") if commit else ""
    return {
        "git_commit": commit,
        "git_dirty": bool(status),
        "git_branch": run("rev-parse", "--abbrev-ref", "HEAD") if commit else "",
    }
