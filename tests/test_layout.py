"""The shape of the code: no two modules import each other (directly or around a circle),
every module is on the README's map, and no docstring in models/ outgrows its code."""

from __future__ import annotations

from pathlib import Path

from bench.environment import PROJECT_PACKAGES, module_file, project_imports

ROOT = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Project module -> the project modules it imports (a package's own __init__ aside)."""
    files = [p for pkg in PROJECT_PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    graph = {}
    for path in files:
        name = _module_name(path)
        targets = {_module_name(module_file(t)) for t in project_imports(path)}
        graph[name] = {t for t in targets if t != name and not name.startswith(t + ".")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles() -> None:
    cycle = _cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_an_encoding_hash_covers_every_file_its_result_depends_on() -> None:
    """models/solvers.py decides every CP-SAT and CBC status: editing it changes the hash."""
    import inspect

    from bench.environment import REPO_ROOT, dependency_files
    from models import registry

    for puzzle, name in (("numberlink", "flow-mip-cbc"), ("sudoku", "alldiff-cpsat")):
        cls = registry.get_encoding(puzzle, name)
        files = {
            p.relative_to(REPO_ROOT).as_posix()
            for p in dependency_files(Path(inspect.getfile(cls)))
        }
        own = Path(inspect.getfile(cls)).resolve().relative_to(REPO_ROOT).as_posix()
        assert {own, "models/solvers.py", "models/base.py"} <= files


def test_the_readme_layout_map_names_every_module() -> None:
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout") : readme.index("### Instance specs")]
    for path in sorted((ROOT / "bench").rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py") or path.parent.name == "commands":
            continue
        assert path.name in layout, f"{path.relative_to(ROOT)} is missing from the README's layout"
    for path in sorted((ROOT / "bench" / "commands").glob("*.py")):
        if path.name != "__init__.py":
            assert path.stem in layout, f"command module {path.name} is missing from the layout"


def test_no_module_docstring_in_models_is_longer_than_its_code() -> None:
    """Docstrings describe the model and prove its rules; history and figures live in
    docs/experiments/ and stored sweeps, so no docstring outgrows the code it explains."""
    import ast

    for path in sorted((ROOT / "models").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        doc = ast.get_docstring(tree, clean=False)
        if not doc or not tree.body[1:]:
            continue  # a package's one-line marker has no code to outgrow
        code = [
            line
            for line in source.splitlines()[tree.body[0].end_lineno :]
            if line.strip() and not line.strip().startswith("#")
        ]
        doc_lines = doc.strip().count("\n") + 1
        assert doc_lines <= len(code), f"{path.relative_to(ROOT)}: {doc_lines} > {len(code)}"
