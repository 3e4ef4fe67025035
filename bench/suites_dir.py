"""Where the project's files live: its root (where suite paths not found beside the suite
are looked up), the
shipped suite files, and how a suite name becomes a path.

Suites ship in two places: ``bench/suites/`` holds the ones over every puzzle (quick, ci,
all, ...), and each puzzle's package holds its own in ``<package>/suites/`` (a plugin's
too), so a new puzzle brings its suites with it.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from bench.home import REPO_ROOT as REPO_ROOT  # the root's one home; imported from here too
from models import registry

SUITES_DIR = Path(__file__).parent / "suites"


def puzzle_suites_dir(puzzle: str) -> Path:
    """``<package>/suites/`` of a puzzle (it may not exist)."""
    module = importlib.import_module(registry.get_puzzle(puzzle).package)
    return Path(module.__file__ or "").parent / "suites"


def shipped_suites() -> dict[str, Path]:
    """Suite name (the file's stem) -> file, over bench/suites/ and every puzzle's suites."""
    folders = [SUITES_DIR, *(puzzle_suites_dir(p) for p in registry.puzzles())]
    return {p.stem: p for folder in folders for p in sorted(folder.glob("*.toml"))}


def suite_names() -> list[str]:
    return sorted(shipped_suites())


def suite_path(name_or_path: str) -> Path:
    """A shipped suite by name (``quick``), or any TOML file a user gives."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate
    return shipped_suites().get(name_or_path, SUITES_DIR / f"{name_or_path}.toml")
