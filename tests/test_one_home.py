"""One home per rule: each test fails when a second copy of a rule comes back.

The rules: the error classes, the project root, the knight's moves, how an option value is
matched to its choices, and who may import the command line (only what starts it).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.test_layout import import_graph

ROOT = Path(__file__).resolve().parent.parent
CODE = sorted(p for d in ("bench", "models", "scripts") for p in (ROOT / d).rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _trees() -> dict[str, ast.Module]:
    return {_rel(p): ast.parse(p.read_text(encoding="utf-8")) for p in CODE}


def test_every_error_class_is_defined_in_models_errors() -> None:
    """Exceptions that end a command live in models/errors.py; an encoding's private
    control-flow signals (a search's own timeout) are not errors and stay private."""
    strays = [
        f"{path}:{node.lineno} {node.name}"
        for path, tree in _trees().items()
        if path != "models/errors.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and (node.name.endswith("Error") or node.name.endswith("Exception"))
    ]
    assert strays == []


def test_only_the_program_imports_the_command_line() -> None:
    """bench.cli maps errors to exit codes and loads the commands: nothing below it imports it
    (the completion command reads the whole parser, which is the command line itself)."""
    allowed = {"bench.console", "bench.__main__", "bench.commands.completion"}
    importers = {m for m, targets in import_graph().items() if "bench.cli" in targets}
    assert importers <= allowed, sorted(importers - allowed)


def test_the_project_root_is_computed_once() -> None:
    """bench/ and models/ find the root from one constant (the scripts run on their own)."""
    homes = [
        path
        for path, tree in _trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "REPO_ROOT" for t in node.targets)
    ]
    assert homes == ["bench/home.py"]
    climbing = re.compile(r"__file__\)[\w.()]*\.(parent\.parent|parents\[)")
    climbers = [
        _rel(p)
        for p in CODE
        if not _rel(p).startswith("scripts/") and climbing.search(p.read_text(encoding="utf-8"))
    ]
    assert climbers == ["bench/home.py"]


def _is_knight_moves(node: ast.AST) -> bool:
    if not isinstance(node, (ast.Tuple, ast.List)) or len(node.elts) != 8:
        return False
    pairs = set()
    for elt in node.elts:
        try:
            pair = ast.literal_eval(elt)
        except ValueError:
            return False
        if not (isinstance(pair, tuple) and len(pair) == 2):
            return False
        pairs.add(pair)
    return pairs == {(a * x, b * y) for a, b in ((1, 2), (2, 1)) for x in (1, -1) for y in (1, -1)}


def test_the_knight_moves_are_written_once() -> None:
    files = sorted(
        [*CODE, *(ROOT / "tests").rglob("*.py")],
    )
    homes = [
        _rel(p)
        for p in files
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if _is_knight_moves(node)
    ]
    assert homes == ["models/knights_tour/rules.py"]


def test_option_values_are_matched_in_one_place() -> None:
    """Encoding.match_option matches a typed or suite value to its choice; nothing else
    looks a value up in ``option_choices`` (listing the choices is fine)."""
    lookup = re.compile(r"option_choices(\[|\.get\()")
    homes = [_rel(p) for p in CODE if lookup.search(p.read_text(encoding="utf-8"))]
    assert homes == ["models/base.py"]


def test_encodings_are_found_in_one_place_plugins_included() -> None:
    """The charts' colours come from the registry's names (read without importing a solver),
    which are the names the registry imports, plugins included; nothing else reads sources."""
    probe = (
        "from models import registry; from bench.analysis import style;"
        "print(all(registry.encoding_names(p) == tuple(registry.puzzle_encodings(p))"
        " == style.registry_encodings()[p] for p in registry.puzzles()),"
        " 'stub-ok' in style.registry_encodings()['knights_tour'])"
    )
    env = {**os.environ, "PUZZLE_BENCH_PLUGINS": "tests.stubs.knights"}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.stdout.split() == ["True", "True"], out.stderr
    readers = [_rel(p) for p in CODE if re.search(r"^import ast$", p.read_text(), re.M)]
    assert "bench/analysis/style.py" not in readers


def test_the_pysat_time_limit_loop_is_written_once() -> None:
    homes = [_rel(p) for p in CODE if "solve_limited(" in p.read_text(encoding="utf-8")]
    assert homes == ["models/solvers.py"]


def test_a_size_label_is_read_as_cells_in_one_place() -> None:
    """registry.cells_of reads ``ROWSxCOLS``; the size cap, the record and the charts use it."""
    splitting = re.compile(r"""\.split\(["']x["']\)""")
    homes = [_rel(p) for p in CODE if splitting.search(p.read_text(encoding="utf-8"))]
    assert [h for h in homes if not h.startswith("scripts/")] == ["models/registry.py"]
