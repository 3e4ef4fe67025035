"""Two revisions of the project measured side by side on one machine (A/B), each by its own code.

A side is a source tree: a git commit checked out in a temporary ``git worktree``, or the
working tree itself. Each side is swept by a child ``python -m bench run`` whose working
directory and ``PYTHONPATH`` are that tree, with this interpreter and its pinned packages:
``python -m`` puts the working directory first on ``sys.path``, so ``bench`` and ``models``
are the side's own; ``check_tree`` proves it before any sweep (the child prints where it
imported them from), and every stored sweep records the commit it ran at, which
``sweep_side`` checks against the side's commit. The harness that runs here only starts
the children and reads their stores: it never imports the code under test.

Each side writes a store of its own (a side's code never writes a store laid out by the
other's; the harness here reads both). The sides alternate round by round (A B A B ...,
one repeat a round), so a machine that slows down for a while slows both. Pure
orchestration: git, subprocesses and the store; nothing here imports a solver.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import tomllib

from bench import store
from models.errors import SideError, UsageError

#: what a child ``bench run`` prints last; its run id
_RUN_ID = re.compile(r"^run id: (\S+)", re.MULTILINE)
#: a requirement's project name (PEP 508), and a pinned line of a uv/pip-compile lock file
_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", re.MULTILINE)
LOCK_FILE = "requirements/ci.lock"


@dataclass
class Side:
    """One side of an A/B: its name, the commit it is, the tree swept and its store."""

    name: str  # "base" or "head"
    commit: str  # full sha ("" for a tree outside git)
    label: str  # what the user gave (a revision, or "working tree")
    tree: Path
    store: Path
    dirty: bool = False
    run_ids: list[str] = field(default_factory=list)


def git(repo: Path, *args: str) -> str:
    """A git command's stdout; UsageError (exit 2) with git's own words when it fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=repo, capture_output=True, text=True, timeout=120, check=False
        )
    except FileNotFoundError:
        raise UsageError("git is not installed: A/B needs it") from None
    if done.returncode:
        words = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise UsageError(f"git {' '.join(args)}: {words}")
    return done.stdout.strip()


def repo_root(start: Path | None = None) -> Path:
    """The top of the git checkout holding ``start`` (default: the working directory)."""
    return Path(git(start or Path.cwd(), "rev-parse", "--show-toplevel"))


def resolve(repo: Path, revision: str) -> str:
    """The full commit id of a revision; bad input if git does not know it."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except UsageError:
        raise UsageError(f"unknown git revision {revision!r} in {repo}") from None


def merge_base(repo: Path, a: str, b: str) -> str:
    return git(repo, "merge-base", a, b)


def is_dirty(repo: Path) -> bool:
    return bool(git(repo, "status", "--porcelain", "--untracked-files=no"))


@contextlib.contextmanager
def worktree(repo: Path, commit: str, parent: Path) -> Iterator[Path]:
    """``commit`` checked out (detached) in a temporary worktree, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"ab-{commit[:8]}-", dir=parent))
    path.rmdir()
    git(repo, "worktree", "add", "--detach", "--quiet", str(path), commit)
    try:
        yield path
    finally:
        with contextlib.suppress(UsageError):
            git(repo, "worktree", "remove", "--force", str(path))
        shutil.rmtree(path, ignore_errors=True)
        with contextlib.suppress(UsageError):
            git(repo, "worktree", "prune")


def _name(project: str) -> str:
    """A project name as PEP 503 compares them (``Python_SAT`` and ``python-sat`` are one)."""
    return re.sub(r"[-_.]+", "-", project).lower()


def declared(text: str | None) -> dict[str, str]:
    """``[project].dependencies`` of a pyproject.toml's text: name -> the requirements as
    written (markers included), several joined by `` and ``; {} without the file."""
    if text is None:
        return {}
    try:
        listed = tomllib.loads(text).get("project", {}).get("dependencies", [])
    except tomllib.TOMLDecodeError:
        return {}
    found: dict[str, list[str]] = {}
    for requirement in listed:
        match = _REQUIREMENT_NAME.match(str(requirement))
        if match:
            found.setdefault(_name(match[1]), []).append(" ".join(str(requirement).split()))
    return {name: " and ".join(sorted(reqs)) for name, reqs in found.items()}


def pinned(text: str | None) -> dict[str, str]:
    """The ``name==version`` pins of a lock file's text; {} without the file."""
    return {_name(m[1]): m[2] for m in _PIN.finditer(text or "")}


def _file_at(repo: Path, commit: str | None, path: str) -> str | None:
    """A file's text at a commit, or in the working tree when ``commit`` is None; None
    when it is not there."""
    if commit is None:
        try:
            return (repo / path).read_text(encoding="utf-8")
        except OSError:
            return None
    try:
        return git(repo, "show", f"{commit}:{path}")
    except UsageError:
        return None


def dependency_note(repo: Path, base: str, head: str | None) -> str:
    """One line when the two sides declare other dependencies (pyproject.toml's
    ``[project].dependencies``, or the pins of requirements/ci.lock); "" when they agree.
    Both sides run on this interpreter's installed packages, so an A/B across such a change
    judges the code under one set of dependencies, not the upgrade: the user must be told."""
    sides = (base, head)
    wanted = [declared(_file_at(repo, c, "pyproject.toml")) for c in sides]
    pins = [pinned(_file_at(repo, c, LOCK_FILE)) for c in sides]
    differ: list[str] = []
    names: list[str] = []
    for name in sorted(set(wanted[0]) | set(wanted[1])):
        a, b = (w.get(name, f"{name} (not declared)") for w in wanted)
        if a != b:
            differ.append(f"{a} -> {b}")
            names.append(name)
    for name in sorted(set(pins[0]) | set(pins[1])):
        a, b = (p.get(name, "(not pinned)") for p in pins)
        if a != b:
            differ.append(f"{name} {a} -> {b} in {LOCK_FILE}")
            names += [] if name in names else [name]
    if not differ:
        return ""
    shown = "; ".join(differ[:6]) + (f"; {len(differ) - 6} more" if len(differ) > 6 else "")
    installed = ", ".join(f"{name} {_installed(name)}" for name in names[:6])
    return (
        f"the sides declare other dependencies ({shown}): both ran on the installed versions "
        f"({installed}), so the verdict is about the code under one set of dependencies, "
        "not about the dependency change"
    )


def _installed(name: str) -> str:
    """The version of a project installed here, or "not installed"."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def side_env(tree: Path) -> dict[str, str]:
    """The environment of a side's child: its tree first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    env.pop("PYTHONHOME", None)
    return env


def check_tree(side: Side) -> None:
    """Prove that a child started as the sweeps are imports ``bench`` and ``models`` from
    the side's tree, not from this harness's (an editable install points elsewhere)."""
    probe = "import bench, models; print(bench.__file__); print(models.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=side.tree, env=side_env(side.tree),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    tree = side.tree.resolve()
    paths = [Path(p).resolve() for p in done.stdout.split()]
    if done.returncode or len(paths) != 2 or not all(p.is_relative_to(tree) for p in paths):
        found = ", ".join(map(str, paths)) or done.stderr.strip()[-200:]
        raise SideError(side.name, 3, f"its code is not imported from {tree} ({found})")


def sweep_side(side: Side, suite: str, extra: list[str]) -> str:
    """One round: the side's own ``python -m bench run`` of one repeat into its store."""
    command = [sys.executable, "-m", "bench", "run", "--suite", suite, "--repeat", "1",
               "--jobs", "1", "--store", str(side.store), *extra]  # fmt: skip
    done = subprocess.run(
        command, cwd=side.tree, env=side_env(side.tree), capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    found = _RUN_ID.findall(done.stdout)
    if done.returncode not in (0, 1) or not found:
        words = (done.stderr.strip().splitlines() or ["no run id printed"])[-1]
        raise SideError(side.name, done.returncode, words)
    run_id = found[-1]
    ran_at = store.environments(side.store, [run_id]).get(run_id, {}).get("git_commit", "")
    if side.commit and ran_at != side.commit:
        raise SideError(side.name, 3, f"sweep {run_id} ran at {ran_at or '?'}, not {side.commit}")
    return run_id


def suite_repeats(path: Path) -> int:
    """The suite's own repeats (the number of A/B rounds unless told); 1 if it says none."""
    try:
        return int(tomllib.loads(path.read_text()).get("suite", {}).get("repeats", 1))
    except (OSError, tomllib.TOMLDecodeError, ValueError) as err:
        raise UsageError(f"{path}: cannot read the suite: {err}") from None


def interleave(
    sides: tuple[Side, Side],
    suites: dict[str, str],
    rounds: int,
    extra: list[str],
    say: Callable[[str], None] = lambda _: None,
) -> None:
    """A B A B ...: ``rounds`` more rounds, each side sweeping one repeat of its suite a round."""
    for side in sides:
        check_tree(side)
    first = len(sides[0].run_ids)
    for number in range(first + 1, first + rounds + 1):
        for side in sides:
            run_id = sweep_side(side, suites[side.name], extra)
            side.run_ids.append(run_id)
            say(f"round {number}/{first + rounds}: {side.name} {side.label} -> {run_id}")


def side_runs(side: Side) -> tuple[pd.DataFrame, dict[str, dict]]:
    """Every run of the side's rounds (repeat numbered by round) and their environments."""
    frames = []
    for number, run_id in enumerate(side.run_ids):
        frames.append(store.load(side.store, run_id).assign(repeat=number))
    runs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return runs, store.environments(side.store, side.run_ids)


def filter_suite(text: str, pattern: str) -> str:
    """The suite's text with only the ``[[cases]]`` whose name matches ``pattern`` (a glob);
    each case keeps its sub-tables (options). Unchanged when no case name matches."""
    import fnmatch

    head, *blocks = re.split(r"(?m)^(?=\[\[cases\]\])", text)
    names = [re.search(r'(?m)^name\s*=\s*"([^"]*)"', b) for b in blocks]
    kept = [
        b for b, n in zip(blocks, names, strict=True) if n and fnmatch.fnmatchcase(n[1], pattern)
    ]
    return head + "".join(kept) if kept else text


@dataclass
class Plan:
    """What an A/B measures: the repository, both revisions, the suite text, the rounds."""

    repo: Path
    base: str  # a revision
    head: str | None  # a revision, or None for the working tree as it is
    suite: str  # a shipped suite name or a FILE.toml
    rounds: int | None = None  # default: the suite's repeats
    case: str | None = None  # keep only the suite's cases of this name glob
    extra: list[str] = field(default_factory=list)  # more `bench run` flags for both sides


def suite_text(tree: Path, suite: str) -> str:
    """The text of a suite named (shipped in ``tree``) or given as a file."""
    path = Path(suite)
    if path.suffix == ".toml" or path.is_file():
        try:
            return path.read_text(encoding="utf-8")
        except OSError as err:
            raise UsageError(f"{suite}: cannot read the suite: {err.strerror}") from None
    shipped = tree / "bench" / "suites" / f"{suite}.toml"
    if not shipped.is_file():
        raise UsageError(f"unknown suite {suite!r} (no {shipped.relative_to(tree)})")
    return shipped.read_text(encoding="utf-8")


def measure(
    plan: Plan,
    workdir: Path,
    say: Callable[[str], None] = lambda _: None,
    more: Callable[[Side, Side], int] = lambda base, head: 0,
) -> tuple[Side, Side, list[str]]:
    """Sweep base and head in interleaved rounds, each side by its own code; (base, head,
    notes). Both sides run the head's suite (its text, written to ``workdir``); a base
    that cannot run it (a case the change adds) runs its own suite of that name. After
    the rounds, ``more(base, head)`` may ask for further rounds (0: enough), again and
    again: how many a verdict needs is known only once some are measured."""
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    base_commit = resolve(plan.repo, plan.base)
    head_commit = resolve(plan.repo, plan.head or "HEAD")
    notes: list[str] = []
    dependencies = dependency_note(plan.repo, base_commit, plan.head and head_commit)
    if dependencies:
        notes.append(dependencies)
        say(f"ab: {dependencies}")
    with contextlib.ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-ab-")))
        base_tree = stack.enter_context(worktree(plan.repo, base_commit, scratch))
        if plan.head is None:
            head_tree, dirty = plan.repo, is_dirty(plan.repo)
        else:
            head_tree, dirty = stack.enter_context(worktree(plan.repo, head_commit, scratch)), False
        text = suite_text(head_tree, plan.suite)
        if plan.case:
            text = filter_suite(text, plan.case)
        shared = workdir / f"{Path(plan.suite).stem}.toml"  # records carry the suite's name
        shared.write_text(text, encoding="utf-8")
        rounds = plan.rounds or suite_repeats(shared)
        base = Side("base", base_commit, plan.base, base_tree, workdir / "base.sqlite")
        head = Side("head", head_commit, plan.head or "working tree", head_tree,
                    workdir / "head.sqlite", dirty=dirty)  # fmt: skip
        if dirty:
            head.commit = ""  # a dirty tree records its HEAD commit: not a proof of the code
        for side in (base, head):
            for path in side.store.parent.glob(side.store.name + "*"):
                path.unlink()  # a fresh store a side: the rounds are all this A/B's
        suites = {"base": str(shared), "head": str(shared)}
        check_tree(base)
        suites["base"] = _base_suite(base, plan, shared, notes)
        interleave((base, head), suites, rounds, plan.extra, say)
        while (extra := more(base, head)) > 0:
            interleave((base, head), suites, extra, plan.extra, say)
        return base, head, notes


def _base_suite(base: Side, plan: Plan, shared: Path, notes: list[str]) -> str:
    """The shared suite when the base's code accepts it; else the base's own suite of that
    name (a change that adds a case the base cannot run: that case is then "new")."""
    if Path(plan.suite).suffix == ".toml" or Path(plan.suite).is_file():
        return str(shared)
    check = subprocess.run(
        [sys.executable, "-c", _PLAN_PROBE, str(shared)], cwd=base.tree, env=side_env(base.tree),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if check.returncode == 0:
        return str(shared)
    words = (check.stderr.strip().splitlines() or ["?"])[-1]
    notes.append(f"the base cannot run the change's suite ({words}): it ran its own {plan.suite}")
    return plan.suite


#: a child that plans a suite with the side's own code and exits 2 when it cannot
_PLAN_PROBE = """
import sys
from bench import suites
try:
    suites.load_suite(sys.argv[1])
except Exception as err:
    print(err, file=sys.stderr)
    sys.exit(2)
"""
