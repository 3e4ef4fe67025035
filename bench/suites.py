"""Read a suite TOML file, check everything it names, and expand it into planned runs.

Everything is checked before anything runs: an unknown puzzle, encoding or option, a
missing file, an empty glob, a bad ``#N-M`` range or a TOML syntax error raises
``SuiteError`` (a ``UsageError``: one line naming the suite file, exit code 2).
Defaults cascade: a case's own keys, then its file's ``[suite]`` table, then the
``[suite]`` of the file that included it, then the built-in defaults below.
Instance paths and globs are resolved against the suite file's folder, then the project's
root (``bench.suite_instances``); a plain path or glob match that holds several puzzles (a
collection) expands to every entry, ``PATH#1..K``.
The planned runs themselves, and what the command line does to them, are ``bench.plan``'s.
"""

from __future__ import annotations

import hashlib
import itertools
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import limits
from bench.plan import MAX_PLANNED_RUNS, MAX_REPEATS, PlannedRun, in_rounds
from bench.suite_instances import (
    REPO_ROOT,
    SuiteError,
    as_list,
    instance_specs,
    load,
    positive_int,
)
from bench.suite_instances import load_planned_instances as load_planned_instances
from bench.suites_dir import puzzle_suites_dir, shipped_suites, suite_names, suite_path
from models import registry
from models.errors import InstanceError, UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULTS: dict[str, Any] = {
    "repeats": 1,
    "time_limit_s": 60.0,
    "memory_limit_mb": None,
    "seeds": [0],
    "threads": [1],
    "stop_at_timeout": True,  # bench.schedule: no larger board after a limit is hit
}
#: keys only the suite file named on the command line may set (not its includes)
TOP_KEYS = {"report", "max_time_limit_s", "jobs"}
SUITE_KEYS = {"description", "include", "parts", *TOP_KEYS, *DEFAULTS}
CASE_KEYS = {
    "name",
    "description",
    "puzzle",
    "instances",
    "sample",
    "generate",
    "encodings",
    "exclude_encodings",
    "options",
    *DEFAULTS,
}


@dataclass
class Suite:
    """A checked, expanded suite: its planned runs and the instances they use (loaded)."""

    name: str
    path: Path
    text: str  # the suite file as written
    sha256: str  # over the file and everything it includes
    description: str
    runs: list[PlannedRun]
    instances: dict[tuple[str, str], registry.LoadedInstance]  # (puzzle, spec) -> loaded
    report: bool = False  # `run` renders the report at the end (the file's own [suite])
    jobs: int | None = None  # `run`'s default --jobs (None: one per core)


#: generated boards up to this many cells are made (and so checked) when a suite loads
PARENT_GENERATE_CELLS = 10_000


def load_suite(
    name_or_path: str,
    generate: bool = True,
    puzzle: str | None = None,
    encoding: str | None = None,
) -> Suite:
    """Parse, check and expand a shipped suite (by name) or any suite file.

    ``generate=False`` checks everything but leaves generated boards (``gen:...``) unmade
    and out of ``instances``: large generated boards can take a minute to make.
    ``puzzle``/``encoding`` (``run --puzzle/--encoding``) expand only the runs they select:
    the other cases are still read and their files, puzzles and encoding names checked,
    but their encodings are not imported to check their options, since importing a
    compiled search compiles it (over a minute on a fresh install).
    """
    path = suite_path(name_or_path)
    if not path.is_file():
        shipped = ", ".join(suite_names()) or "none"
        raise SuiteError(f"{name_or_path}: no such suite file (shipped suites: {shipped})")
    loader = _Loader()
    cases = loader.read(path, dict(DEFAULTS), ())
    names: dict[str, Path] = {}
    for case_path, case in cases:
        if case["name"] in names:
            raise SuiteError(
                f"{case_path}: case name {case['name']!r} is used twice "
                f"(also in {names[case['name']]})"
            )
        names[case["name"]] = case_path
    instances: dict[tuple[str, str], registry.LoadedInstance] = {}
    runs: list[PlannedRun] = []
    seen: set[tuple] = set()
    for case_path, case in cases:
        for run in _expand_case(case_path, case, instances, generate, (puzzle, encoding)):
            if run.key() not in seen:
                seen.add(run.key())
                runs.append(run)
        if len(runs) > MAX_PLANNED_RUNS:
            raise SuiteError(f"{path}: plans over {MAX_PLANNED_RUNS} runs (the bound of a sweep)")
    if loader.max_time_limit_s is not None:  # a budget over every case, included ones too
        cap = loader.max_time_limit_s
        runs = [replace(r, time_limit_s=min(r.time_limit_s or cap, cap)) for r in runs]
    text = path.read_text(encoding="utf-8")
    return Suite(
        name=path.stem,
        path=path,
        text=text,
        sha256=loader.digest.hexdigest(),
        description=loader.description,
        runs=in_rounds(runs),
        instances=instances,
        report=loader.report,
        jobs=loader.jobs,
    )


class _Loader:
    """Reads a suite file and its includes into a flat list of cases with defaults applied."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.description = ""
        self.report = False
        self.max_time_limit_s: float | None = None
        self.jobs: int | None = None

    def read(self, path: Path, inherited: dict[str, Any], stack: tuple[Path, ...]):
        resolved = path.resolve()
        if resolved in stack:
            raise SuiteError(f"{path}: includes itself (through {' -> '.join(map(str, stack))})")
        try:
            raw = path.read_bytes()
            doc = tomllib.loads(raw.decode("utf-8-sig"))  # a BOM (some editors write one) is read
        except tomllib.TOMLDecodeError as err:
            raise SuiteError(f"{path}: TOML syntax error: {err}") from None
        except RecursionError:
            raise SuiteError(f"{path}: TOML nested too deep to be a suite") from None
        except (OSError, UnicodeDecodeError) as err:
            raise SuiteError(f"{path}: cannot read: {err}") from None
        self.digest.update(raw)
        _check_keys(path, "top level", doc, {"suite", "cases"})
        head = doc.get("suite", {})
        if not isinstance(head, dict):
            raise SuiteError(f"{path}: [suite] must be a table")
        _check_keys(path, "[suite]", head, SUITE_KEYS)
        if not stack:
            self.description = str(head.get("description", ""))
            self.report = head.get("report", False)
            if not isinstance(self.report, bool):
                raise SuiteError(f"{path}: [suite] report must be true or false")
            cap = head.get("max_time_limit_s")
            self.max_time_limit_s = _limit(
                f"{path}: [suite]", limits.time_limit, "max_time_limit_s", cap
            )
            if "jobs" in head:
                self.jobs = positive_int(f"{path}: [suite]", "jobs", head["jobs"])
        defaults = {**inherited, **{k: head[k] for k in DEFAULTS if k in head}}
        out: list[tuple[Path, dict[str, Any]]] = []
        for item in as_list(head.get("include", [])):
            out += self.read(_include_path(path, str(item)), defaults, (*stack, resolved))
        if "parts" in head:
            out += self._parts(path, str(head["parts"]), defaults, (*stack, resolved))
        cases = doc.get("cases", [])
        if not isinstance(cases, list):
            raise SuiteError(f"{path}: cases must be an array of tables ([[cases]])")
        for number, case in enumerate(cases, start=1):
            if not isinstance(case, dict):
                raise SuiteError(f"{path}: case {number} must be a table")
            if "name" not in case:
                raise SuiteError(f"{path}: case {number} has no name")
            _check_keys(path, f"case {case['name']!r}", case, CASE_KEYS)
            out.append((path, {**defaults, **case}))
        return out

    def _parts(self, path: Path, pattern: str, defaults: dict[str, Any], stack: tuple[Path, ...]):
        """``parts = "{puzzle}-quick"``: every puzzle found, by its part of that name in its
        own suites folder; a puzzle with no part and no case elsewhere runs on its tiny boards,
        so no puzzle is left out of ``quick`` or ``all`` and none needs a line here."""
        out: list[tuple[Path, dict[str, Any]]] = []
        for puzzle in registry.puzzles():
            try:
                name = pattern.format(puzzle=puzzle)
            except (KeyError, IndexError, ValueError):
                raise SuiteError(f'{path}: parts must read like "{{puzzle}}-quick"') from None
            part = puzzle_suites_dir(puzzle) / f"{name}.toml"
            if part.is_file():
                out += self.read(part, defaults, stack)
        covered = {case["puzzle"] for _, case in out if "puzzle" in case}
        for puzzle, rules in registry.puzzles().items():
            if puzzle not in covered:
                self.digest.update(f"tiny boards of {puzzle}".encode())
                tiny = [*rules.tiny, *rules.tiny_infeasible]
                out.append(
                    (
                        path,
                        {**defaults, "name": f"{puzzle}-tiny", "puzzle": puzzle, "instances": tiny},
                    )
                )
        return out


def _include_path(path: Path, item: str) -> Path:
    for candidate in (path.parent / item, REPO_ROOT / item):
        if candidate.is_file():
            return candidate
    shipped = shipped_suites().get(Path(item).stem)
    if shipped is not None and item in (shipped.name, shipped.stem):
        return shipped
    raise SuiteError(f"{path}: included suite {item!r} not found")


def _check_keys(path: Path, where: str, table: dict, allowed: set[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SuiteError(
            f"{path}: {where}: unknown key(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(allowed))})"
        )


def _expand_case(
    path: Path,
    case: dict[str, Any],
    instances: dict[tuple[str, str], registry.LoadedInstance],
    generate: bool = True,
    only: tuple[str | None, str | None] = (None, None),
) -> list[PlannedRun]:
    """The case's runs, those of ``only`` = (puzzle, encoding) alone where given."""
    where = f"{path}: case {case['name']!r}"
    if "puzzle" not in case:
        raise SuiteError(f"{where}: no puzzle given")
    try:
        rules = registry.get_puzzle(str(case["puzzle"]))
    except UsageError as err:
        raise SuiteError(f"{where}: {err}") from None
    specs = instance_specs(where, rules, case, path.parent)
    for spec in specs:
        if spec.startswith(registry.GENERATED_PREFIX) and not _made_here(where, spec, generate):
            continue
        if (rules.name, spec) not in instances:
            instances[(rules.name, spec)] = load(where, rules, spec)
    named = _encodings(where, rules.name, case)
    _check_option_targets(where, case, named)
    wanted = only[0] in (None, rules.name)
    encodings = [e for e in named if wanted and only[1] in (None, e)]
    option_sets = {enc: _option_sets(where, rules.name, enc, case) for enc in encodings}
    repeats = positive_int(where, "repeats", case["repeats"])
    seeds = [_limit(where, limits.seed, "seeds", s) for s in as_list(case["seeds"])]
    threads = [_limit(where, limits.threads, "threads", t) for t in as_list(case["threads"])]
    limit = _limit(where, limits.time_limit, "time_limit_s", case["time_limit_s"])
    memory = _limit(where, limits.memory_limit, "memory_limit_mb", case["memory_limit_mb"])
    if repeats > MAX_REPEATS:
        raise SuiteError(f"{where}: repeats must be at most {MAX_REPEATS}, got {repeats}")
    planned = len(specs) * sum(map(len, option_sets.values())) * len(seeds) * len(threads)
    if planned * repeats > MAX_PLANNED_RUNS:
        raise SuiteError(
            f"{where}: plans {planned * repeats} runs, over the bound of {MAX_PLANNED_RUNS}"
            " (fewer instances, seeds, threads or repeats)"
        )
    stop = case["stop_at_timeout"]
    if not isinstance(stop, bool):
        raise SuiteError(f"{where}: stop_at_timeout must be true or false, got {stop!r}")
    runs = []
    for spec in specs:
        for enc in encodings:
            for options in option_sets[enc]:
                for seed, thread_count, repeat in itertools.product(seeds, threads, range(repeats)):
                    run = PlannedRun(
                        case=case["name"], puzzle=rules.name, instance=spec, encoding=enc,
                        options=options, seed=seed, threads=thread_count, repeat=repeat,
                        time_limit_s=limit, memory_limit_mb=memory, stop_at_timeout=stop,
                    )  # fmt: skip
                    runs.append(run)
    return runs


def _made_here(where: str, spec: str, generate: bool) -> bool:
    """Check a gen: spec (syntax, size cap); say whether the parent makes the board now.

    Only small boards are made here (to refuse a bad generator parameter before anything
    runs); bigger ones are made by their runs, inside the runs' time and memory limits.
    """
    try:
        _, rows, cols, _, _ = registry.parse_generated_spec(spec)
    except (InstanceError, UsageError) as err:
        raise SuiteError(f"{where}: {err}") from None
    return generate and rows * cols <= PARENT_GENERATE_CELLS


def _encodings(where: str, puzzle: str, case: dict[str, Any]) -> list[str]:
    known = registry.encoding_names(puzzle)  # read, not imported: only the chosen are
    chosen = [str(e) for e in as_list(case.get("encodings", list(known)))]
    excluded = [str(e) for e in as_list(case.get("exclude_encodings", []))]
    for name in chosen + excluded:
        if name not in known:
            raise SuiteError(
                f"{where}: unknown encoding {name!r} for puzzle {puzzle!r} "
                f"(known: {', '.join(known) or 'none'})"
            )
    result = [e for e in dict.fromkeys(chosen) if e not in excluded]
    if not result:
        raise SuiteError(f"{where}: no encoding left to run for puzzle {puzzle!r}")
    return result


def _option_sets(where: str, puzzle: str, encoding: str, case: dict[str, Any]) -> list[dict]:
    """Every combination of the swept option values for one encoding, defaults filled in."""
    table = (case.get("options") or {}).get(encoding, {})
    if not isinstance(table, dict):
        raise SuiteError(f"{where}: options.{encoding} must be a table")
    cls = registry.get_encoding(puzzle, encoding)
    keys = sorted(table)
    choices = []
    for key in keys:
        values = table[key] if isinstance(table[key], list) else [table[key]]
        try:
            choices.append([cls.match_option(key, value) for value in values])
        except UsageError as err:
            raise SuiteError(f"{where}: {encoding}: {err}") from None
    return [
        cls.full_options(dict(zip(keys, combo, strict=True)))
        for combo in itertools.product(*choices)
    ]


def _check_option_targets(where: str, case: dict[str, Any], encodings: list[str]) -> None:
    options = case.get("options") or {}
    if not isinstance(options, dict):
        raise SuiteError(f"{where}: options must be a table of tables, one per encoding")
    stray = sorted(set(options) - set(encodings))
    if stray:
        raise SuiteError(
            f"{where}: options given for encoding(s) not in the case: {', '.join(stray)}"
        )


def _limit(where: str, check: Any, key: str, value: Any) -> Any:
    """A limit or seed checked by ``bench.limits`` (None stays None), as a SuiteError."""
    if value is None:
        return None
    try:
        return check(value, key)
    except UsageError as err:
        raise SuiteError(f"{where}: {err}") from None
