"""Where the project's files live: its root (instance paths in suites are relative to it), the
shipped suite files, and how a suite name becomes a path."""

from __future__ import annotations

from pathlib import Path

#: the folder holding ``bench/`` and ``models/`` (a checkout, or site-packages when installed)
REPO_ROOT = Path(__file__).resolve().parent.parent
SUITES_DIR = Path(__file__).parent / "suites"


def suite_names() -> list[str]:
    return sorted(p.stem for p in SUITES_DIR.glob("*.toml"))


def suite_path(name_or_path: str) -> Path:
    """A shipped suite by name (``quick``), or any TOML file a user gives."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate
    return SUITES_DIR / f"{name_or_path}.toml"
