"""Instance lists of suite cases: paths, globs, ``PATH#N-M`` ranges, samples, generator sweeps.

Paths and globs are resolved against the suite file's folder; a relative path (or glob)
that names nothing there is resolved against the project's root, where the shipped
instances are (so the shipped suites, and copies of them kept anywhere, name
``instances/...``). Each file becomes a spec that can be loaded again without the suite
(``--resume``): its path relative to the project's root when it lies under it, else its
absolute path. A plain path or glob match that holds several puzzles (a collection)
expands to every entry, ``PATH#1..K``; a collection file is read and split once however
many entries a suite takes from it.
"""

from __future__ import annotations

import glob
import itertools
import os
import random
from pathlib import Path
from typing import Any

from bench.suites_dir import REPO_ROOT
from models import registry
from models.base import Puzzle
from models.errors import InstanceError, SuiteError, UsageError


def instance_specs(
    where: str, rules: Puzzle, case: dict[str, Any], folder: Path = REPO_ROOT
) -> list[str]:
    """The instance specs of a case whose suite file lies in ``folder``."""
    specs: list[str] = []
    for item in as_list(case.get("instances", [])):
        specs += _expand_item(where, rules, str(item), folder)
    if "generate" in case:
        specs += _generated(where, rules.name, case["generate"])
    if "sample" in case:
        sample = case["sample"]
        if not isinstance(sample, dict) or "count" not in sample:
            raise SuiteError(f"{where}: sample must read {{ count = N, seed = S }}")
        count = positive_int(where, "sample.count", sample["count"])
        rng = random.Random(checked_int(where, "sample.seed", sample.get("seed", 0)))
        if count < len(specs):
            chosen = sorted(rng.sample(range(len(specs)), count))
            specs = [specs[i] for i in chosen]
    if not specs:
        raise SuiteError(f"{where}: no instances (give instances or generate)")
    return list(dict.fromkeys(specs))


def _expand_item(where: str, rules: Puzzle, item: str, folder: Path) -> list[str]:
    if item.startswith(registry.GENERATED_PREFIX):
        return [item]
    path_text, sep, selector = item.partition("#")
    if any(ch in path_text for ch in "*?["):
        matches = []
        for base in dict.fromkeys((folder, REPO_ROOT)):  # the suite's folder first
            found = sorted(glob.glob(path_text, root_dir=base, recursive=True))
            matches = [spec_of(base / m) for m in found if (base / m).is_file()]
            if matches:
                break
        if not matches:
            raise SuiteError(f"{where}: glob {path_text!r} matches no file")
        if sep:
            raise SuiteError(f"{where}: {item!r}: a #range needs one file, not a glob")
    else:
        file = next(
            (f for f in (folder / path_text, REPO_ROOT / path_text) if os.path.lexists(f)), None
        )
        if file is None:
            raise SuiteError(
                f"{where}: no such instance file {path_text!r} (paths are resolved against"
                " the suite file's folder, then the project's root)"
            )
        matches = [spec_of(file)]  # not a regular file, too big: refused as it is read
    specs = []
    for match in matches:
        count = len(_entries(where, rules, match))
        if sep:
            specs += [f"{match}#{n}" for n in _parse_range(where, item, selector, count)]
        elif count == 1:
            specs.append(match)
        else:
            specs += [f"{match}#{n}" for n in range(1, count + 1)]
    return specs


def spec_of(path: Path) -> str:
    """How a suite's file is named in its runs: relative to the project's root when it lies
    under it (the names of the shipped instances), else absolute; so a resume, which has no
    suite folder, finds it again."""
    absolute = Path(os.path.abspath(path))
    if absolute.is_relative_to(REPO_ROOT):
        return absolute.relative_to(REPO_ROOT).as_posix()
    return absolute.as_posix()


def _parse_range(where: str, item: str, selector: str, count: int) -> list[int]:
    """``7``, ``1-50`` or ``1-5,9`` (entries count from 1)."""
    numbers: list[int] = []
    try:
        for part in selector.split(","):
            first, dash, last = part.strip().partition("-")
            lo, hi = int(first), int(last) if dash else int(first)
            if lo < 1 or hi < lo:
                raise ValueError
            numbers += range(lo, hi + 1)
    except ValueError:
        raise SuiteError(
            f"{where}: bad entry range in {item!r} (write #N, #N-M or #N-M,K)"
        ) from None
    if numbers and max(numbers) > count:
        raise SuiteError(f"{where}: {item!r} reaches entry {max(numbers)}, the file holds {count}")
    return numbers


_ENTRY_CACHE: dict[tuple[str, str], list[tuple[int, str]]] = {}


def _entries(where: str, rules: Puzzle, path: str) -> list[tuple[int, str]]:
    key = (rules.name, path)
    if key not in _ENTRY_CACHE:
        try:
            _ENTRY_CACHE[key] = registry.read_entries(rules, REPO_ROOT / path, path)
        except InstanceError as err:
            raise SuiteError(f"{where}: {err}") from None
    return _ENTRY_CACHE[key]


def load(where: str, rules: Puzzle, spec: str) -> registry.LoadedInstance:
    """Load one instance (collections read once); any problem is a SuiteError naming the case."""
    try:
        if spec.startswith(registry.GENERATED_PREFIX):
            loaded = registry.load_instance(spec)
            if loaded.puzzle != rules.name:
                raise SuiteError(f"{where}: {spec} generates a {loaded.puzzle}, not a {rules.name}")
            return loaded
        path, _, index = spec.partition("#")
        first_line, text = _entries(where, rules, path)[int(index) - 1 if index else 0]
        return registry.load_entry(rules.name, spec, text, first_line)  # the size cap too
    except (InstanceError, UsageError) as err:
        if isinstance(err, SuiteError):
            raise
        raise SuiteError(f"{where}: {err}") from None


def _generated(where: str, puzzle: str, sweep: Any) -> list[str]:
    if not isinstance(sweep, dict) or "sizes" not in sweep:
        raise SuiteError(
            f"{where}: generate must read {{ sizes = [...], seeds = [...], params = {{...}} }}"
        )
    _check_keys(f"{where}: generate", sweep, {"sizes", "seeds", "params"})
    params = sweep.get("params", {})
    if not isinstance(params, dict):
        raise SuiteError(f"{where}: generate.params must be a table")
    keys = sorted(params)
    values = [params[k] if isinstance(params[k], list) else [params[k]] for k in keys]
    specs = []
    for size in as_list(sweep["sizes"]):
        rows, cols = _size(where, size)
        for seed in as_list(sweep.get("seeds", [0])):
            for combo in itertools.product(*values):
                extra = dict(zip(keys, combo, strict=True))
                specs.append(registry.generated_spec(puzzle, rows, cols, int(seed), **extra))
    return specs


def _size(where: str, size: Any) -> tuple[int, int]:
    if isinstance(size, int) and size > 0:
        return size, size
    rows, cols = registry.rows_cols(size) or (0, 0)
    if rows > 0 and cols > 0:
        return rows, cols
    raise SuiteError(f"{where}: generate size {size!r} must read ROWSxCOLS (or one number)")


def load_planned_instances(
    runs: list,
) -> dict[tuple[str, str], registry.LoadedInstance]:
    """Load the file instances of a stored plan (for ``--resume``); problems raise SuiteError.

    Generated boards are only checked: their runs make them, inside the runs' limits.
    """
    loaded: dict[tuple[str, str], registry.LoadedInstance] = {}
    for run in runs:
        if run.instance.startswith(registry.GENERATED_PREFIX):  # made by the run itself
            try:
                registry.parse_generated_spec(run.instance)
            except (InstanceError, UsageError) as err:
                raise SuiteError(f"resumed plan: case {run.case!r}: {err}") from None
            continue
        if (run.puzzle, run.instance) not in loaded:
            rules = registry.get_puzzle(run.puzzle)
            loaded[(run.puzzle, run.instance)] = load(
                f"resumed plan: case {run.case!r}", rules, run.instance
            )
    return loaded


def _check_keys(where: str, table: dict, allowed: set[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SuiteError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(allowed))})"
        )


def as_list(value: Any) -> list:
    """A TOML value that may be one item or an array of them, as a list."""
    return value if isinstance(value, list) else [value]


def checked_int(where: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SuiteError(f"{where}: {key} must be an integer, got {value!r}")
    return value


def positive_int(where: str, key: str, value: Any) -> int:
    if checked_int(where, key, value) < 1:
        raise SuiteError(f"{where}: {key} must be at least 1, got {value!r}")
    return value
