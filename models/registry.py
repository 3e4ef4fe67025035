"""Finds puzzles and encodings by scanning the package, and loads instances by spec.

A puzzle is a package ``models/<name>/`` exposing ``PUZZLE``; its encodings are the
``Encoding`` subclasses defined in the modules of its encodings package
(``Puzzle.encodings_package``, by default ``models/<name>/encodings/``). Only the package
of the puzzle asked for is imported, and a sweep imports only the encodings it runs (their
names are read from the source): a Sudoku sweep loads numba only to run ``bitset-numba``.
Extra modules (test stand-ins, plugins) are imported from the comma-separated environment
variable ``PUZZLE_BENCH_PLUGINS``, so forked runs see them too.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import types
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import models
from models.base import (
    MAX_FILE_BYTES_ENV,
    MAX_SEED,
    Encoding,
    Puzzle,
    read_instance_file,
)
from models.errors import InstanceError, UsageError

PLUGINS_ENV = "PUZZLE_BENCH_PLUGINS"
GENERATED_PREFIX = "gen:"
#: environment variable overriding every puzzle's size cap (``--max-cells`` sets it)
MAX_CELLS_ENV = "PUZZLE_BENCH_MAX_CELLS"


@cache
def puzzles() -> dict[str, Puzzle]:
    """Every puzzle: the packages under ``models/`` and the plugin modules exposing ``PUZZLE``.

    Each comes back with ``package`` set to the module that defines it, so its encodings
    (``<package>.encodings``) and suites (``<package>/suites/``) are found from it."""
    candidates = [
        f"models.{info.name}" for info in pkgutil.iter_modules(models.__path__) if info.ispkg
    ]
    found: dict[str, Puzzle] = {}
    for module_name in [*candidates, *_plugin_modules()]:
        puzzle = getattr(importlib.import_module(module_name), "PUZZLE", None)
        if isinstance(puzzle, Puzzle):
            found[puzzle.name] = replace(puzzle, package=puzzle.package or module_name)
    return dict(sorted(found.items()))


def _plugin_modules() -> list[str]:
    return [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]


def _package_modules(package: str) -> list[str]:
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    return [f"{package}.{info.name}" for info in pkgutil.iter_modules(folders)]


@cache
def _encoding_classes(module_name: str) -> tuple[type[Encoding], ...]:
    module = importlib.import_module(module_name)
    return tuple(
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        # Python 3.10 takes an alias such as ``Cell = tuple[int, int]`` for a class
        if not isinstance(cls, types.GenericAlias)
        and issubclass(cls, Encoding)
        and not inspect.isabstract(cls)
        and cls.__module__ == module.__name__
    )


def _package_of(puzzle: str) -> str:
    rules = get_puzzle(puzzle)
    return rules.encodings_package or f"{rules.package}.encodings"


def encoding_modules(puzzle: str) -> list[str]:
    """The modules that may define a puzzle's encodings: its encodings package's and the plugins."""
    return [*_package_modules(_package_of(puzzle)), *_plugin_modules()]


@cache
def puzzle_encodings(puzzle: str) -> dict[str, type[Encoding]]:
    """Encoding name -> class for one puzzle; imports its encodings package and the plugins."""
    found = {
        cls.name: cls
        for module_name in encoding_modules(puzzle)
        for cls in _encoding_classes(module_name)
        if puzzle in cls.puzzles
    }
    return dict(sorted(found.items()))


@cache
def encoding_names(puzzle: str) -> tuple[str, ...]:
    """The names ``puzzle_encodings`` gives, read from the modules' source without importing
    them, so reporting never loads a solver. A class of the puzzle's own package counts
    unless it names other puzzles; a plugin's class must name the puzzle in ``puzzles``."""
    own = set(_package_modules(_package_of(puzzle)))
    names: set[str] = set()
    for module_name in encoding_modules(puzzle):
        spec = importlib.util.find_spec(module_name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        for node in classes.values():
            name, serves = (
                _class_constant(node, "name", classes),
                _class_constant(node, "puzzles", classes),
            )
            if isinstance(name, str) and (
                puzzle in (serves or ()) or (serves is None and module_name in own)
            ):
                names.add(name)
    return tuple(sorted(names))


def _class_constant(node: ast.ClassDef, key: str, classes: dict[str, ast.ClassDef]) -> Any:
    """A class-level ``key = literal`` of a class statement, or of its bases in the module."""
    for item in node.body:
        target = item.targets[0] if isinstance(item, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id == key:
            with contextlib.suppress(ValueError):
                return ast.literal_eval(item.value)
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes and base.id != node.name:
            found = _class_constant(classes[base.id], key, classes)
            if found is not None:
                return found
    return None


def selected_encodings(
    puzzle_names: Iterable[str] | None = None, pairs: Iterable[tuple[str, str]] | None = None
) -> dict[tuple[str, str], type[Encoding]]:
    """(puzzle, encoding name) -> class: the ``pairs`` named, each imported alone
    (``get_encoding``), or without them every encoding of ``puzzle_names`` (of every
    puzzle when None). What a sweep warms up and records: the encodings it runs. A pair
    not registered here (a resumed plan's plugin) is left out: its runs fail on their own."""
    if pairs is not None:
        found = {}
        for puzzle, name in sorted(set(pairs)):
            with contextlib.suppress(UsageError):
                found[(puzzle, name)] = get_encoding(puzzle, name)
        return found
    names = puzzles() if puzzle_names is None else sorted(set(puzzle_names))
    return {(p, name): cls for p in names for name, cls in puzzle_encodings(p).items()}


def encodings() -> dict[str, dict[str, type[Encoding]]]:
    """puzzle -> encoding name -> class, for every puzzle (possibly empty)."""
    return {puzzle: puzzle_encodings(puzzle) for puzzle in puzzles()}


def get_puzzle(name: str) -> Puzzle:
    try:
        return puzzles()[name]
    except KeyError:
        raise UsageError(f"unknown puzzle {name!r} (known: {', '.join(puzzles())})") from None


def get_encoding(puzzle: str, name: str) -> type[Encoding]:
    """The class of one encoding. Encodings live one to a file named after them, so the
    module ``circuit_cpsat`` is tried alone first; plugins (which may stand in for a
    built-in name) and any other layout go through the whole package."""
    stem = name.replace("-", "_")
    module_name = f"{_package_of(puzzle)}.{stem}"
    if (
        stem.isidentifier()
        and not _plugin_modules()
        and importlib.util.find_spec(module_name) is not None
    ):
        for cls in _encoding_classes(module_name):
            if cls.name == name and puzzle in cls.puzzles:
                return cls
    known = puzzle_encodings(puzzle)
    if name not in known:
        raise UsageError(
            f"unknown encoding {name!r} for puzzle {puzzle!r} (known: {', '.join(known) or 'none'})"
        )
    return known[name]


@dataclass(frozen=True)
class LoadedInstance:
    puzzle: str
    spec: str  # how the instance was named: a path, PATH#N, or gen:...
    instance: Any
    size: str

    @property
    def content_hash(self) -> str:
        """Hash of the instance's canonical text: an edited file is never compared blindly."""
        text = get_puzzle(self.puzzle).format(self.instance)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def guess_puzzle(path: str) -> str | None:
    """The puzzle named by a folder on the path (``instances/numberlink/x.txt``)."""
    for part in reversed(Path(path).parts[:-1]):
        if part in puzzles():
            return part
    return None


def load_instance(spec: str, puzzle: str | None = None) -> LoadedInstance:
    """Load ``PATH``, ``PATH#N`` (N-th entry of a collection, from 1) or a generator spec.

    Generator specs read ``gen:PUZZLE:ROWSxCOLS:SEED[:key=value,...]``. The one home of
    instance loading: `solve`, sweeps and suites (``bench.suite_instances``) all come
    through ``read_entries`` and ``load_entry``, so every board meets the size cap.
    """
    if spec.startswith(GENERATED_PREFIX):
        return _generate(spec)
    path, _, index_text = spec.partition("#")
    puzzle = puzzle or guess_puzzle(path)
    if puzzle is None:
        raise UsageError(f"{path}: cannot tell the puzzle from the path; give --puzzle")
    entries = read_entries(get_puzzle(puzzle), Path(path), path)
    if index_text:
        if not index_text.isdigit() or int(index_text) < 1:
            raise InstanceError(
                spec, f"entry number must be a positive integer, got {index_text!r}"
            )
        index = int(index_text)
        if index > len(entries):
            raise InstanceError(spec, f"entry {index} out of range (the file holds {len(entries)})")
        first_line, entry = entries[index - 1]
    else:
        if len(entries) != 1:
            raise InstanceError(path, f"holds {len(entries)} puzzles; name one as {path}#N")
        first_line, entry = entries[0]
    return load_entry(puzzle, spec, entry, first_line)


def read_entries(rules: Puzzle, file: Path, source: str) -> list[tuple[int, str]]:
    """The puzzles a file holds, each with the line it starts on (InstanceError if none)."""
    text = read_instance_file(file, source, max_file_bytes(rules.name))
    if not text.strip():
        raise InstanceError(source, "empty file")
    entries = rules.split(text)
    if not entries:
        raise InstanceError(source, "holds no puzzle")
    return entries


def load_entry(puzzle: str, spec: str, text: str, first_line: int = 1) -> LoadedInstance:
    """Parse one entry of a file (errors name the file's own line) and check its size cap."""
    rules = get_puzzle(puzzle)
    instance = _parse_at(rules, text, spec, first_line)
    size = rules.size_of(instance)
    check_size(puzzle, size, spec)
    return LoadedInstance(puzzle, spec, instance, size)


def max_cells(puzzle: str) -> int:
    """The size cap of a puzzle, in cells: ``$PUZZLE_BENCH_MAX_CELLS`` or the puzzle's own."""
    return _cap_from_env(MAX_CELLS_ENV) or get_puzzle(puzzle).max_cells


def max_file_bytes(puzzle: str) -> int:
    """The file size cap of a puzzle, in bytes: ``$PUZZLE_BENCH_MAX_FILE_BYTES`` or its own."""
    return _cap_from_env(MAX_FILE_BYTES_ENV) or get_puzzle(puzzle).max_file_bytes


def _cap_from_env(name: str) -> int | None:
    """A cap set in the environment (a positive whole number), or None when it is not set."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{name}={text!r} must be a positive whole number")
    return int(text)


def rows_cols(size: object) -> tuple[int, int] | None:
    """``ROWSxCOLS`` (any case) as two numbers; None for any other label."""
    try:
        rows, cols = (int(x) for x in str(size).lower().split("x"))
    except ValueError:
        return None
    return rows, cols


def cells_of(size: object) -> int | None:
    """The cells of a ``ROWSxCOLS`` size label (None for any other label)."""
    found = rows_cols(size)
    return None if found is None else found[0] * found[1]


def check_size(puzzle: str, size: str, source: str) -> None:
    """Refuse a board over its puzzle's cap (bad input, exit 2) before anything is built."""
    cells = cells_of(size)
    if cells is None:
        return  # a size label that is not ROWSxCOLS: nothing to check
    cap = max_cells(puzzle)
    if cells > cap:
        raise InstanceError(
            source,
            f"a {size} {puzzle} board has {cells} cells, over the cap of {cap}"
            f" (raise it with --max-cells N or {MAX_CELLS_ENV})",
        )


def _parse_at(rules: Puzzle, text: str, source: str, first_line: int) -> Any:
    """Parse one entry, shifting the line numbers of errors to the file's lines; a quote of
    the file's own text in the message (a plugin's parser may quote a token) is cut out."""
    try:
        return rules.parse(text, source)
    except InstanceError as err:
        line = None if err.line is None else err.line + first_line - 1
        raise InstanceError(source, unquoted(err.message, text), line) from None


#: a Python string literal, as ``{token!r}`` writes one into a message (not an apostrophe)
_QUOTED = re.compile(r"(?<!\w)(?:'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*")')


def unquoted(message: str, text: str) -> str:
    """``message`` with every quoted string that holds text of the file replaced by a mark.

    A file that is no puzzle may be a secret (a suite may name ``/proc/self/environ``): an
    error line never shows what a file holds, only where and what is wrong with it."""

    def cut(match: re.Match[str]) -> str:
        try:
            quoted = ast.literal_eval(match.group())
        except (ValueError, SyntaxError):
            return "(the file's text, not shown)"
        words = str(quoted).split()
        if quoted and (str(quoted) in text or any(w in text for w in words)):
            return "(the file's text, not shown)"
        return match.group()

    return _QUOTED.sub(cut, message)


def generated_spec(puzzle: str, rows: int, cols: int, seed: int, **params: Any) -> str:
    extra = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{GENERATED_PREFIX}{puzzle}:{rows}x{cols}:{seed}" + (f":{extra}" if extra else "")


def _generate(spec: str) -> LoadedInstance:
    puzzle, rows, cols, seed, params = parse_generated_spec(spec)
    try:
        instance = get_puzzle(puzzle).generate(rows, cols, seed, **params)
    except (ValueError, TypeError) as err:
        raise UsageError(f"{spec}: {err}") from None
    return LoadedInstance(puzzle, spec, instance, get_puzzle(puzzle).size_of(instance))


def parse_generated_spec(spec: str) -> tuple[str, int, int, int, dict[str, Any]]:
    """Check a ``gen:`` spec without generating: (puzzle, rows, cols, seed, params).

    Bad syntax, an unknown puzzle or a board over the cap are refused here (exit 2), so a
    board is only ever generated within its cap (and, for ``solve``, in the run's child).
    """
    parts = spec[len(GENERATED_PREFIX) :].split(":")
    if len(parts) not in (3, 4):
        raise UsageError(f"{spec}: generator spec must read gen:PUZZLE:ROWSxCOLS:SEED[:k=v,...]")
    puzzle, size, seed_text = parts[:3]
    rules = get_puzzle(puzzle)
    shape = rows_cols(size)
    try:
        if shape is None:
            raise ValueError(size)
        rows, cols = shape
        seed = int(seed_text)
        params = {}
        if len(parts) == 4 and parts[3]:
            for item in parts[3].split(","):
                key, value = item.split("=")
                params[key] = _number_or_text(value)
    except ValueError:
        raise UsageError(
            f"{spec}: generator spec must read gen:PUZZLE:ROWSxCOLS:SEED[:k=v,...]"
        ) from None
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"{spec}: seed must be between 0 and {MAX_SEED} (2^63 - 1), got {seed}")
    if rows < 1 or cols < 1:  # -150x-150 would even pass the cap (22,500 cells)
        raise UsageError(f"{spec}: board size must be at least 1x1, got {rows}x{cols}")
    check_size(rules.name, f"{rows}x{cols}", spec)
    if rules.check_generate is not None:
        try:
            rules.check_generate(rows, cols, seed, **params)
        except (ValueError, TypeError) as err:  # TypeError: a parameter it does not take
            text = re.sub(r"^[\w.]+\(\) ", f"the {rules.name} generator ", str(err))
            raise UsageError(f"{spec}: {text}") from None
    return puzzle, rows, cols, seed, params


def _number_or_text(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value
