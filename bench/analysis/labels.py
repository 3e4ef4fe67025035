"""Names a reader can take in: an encoding plus only the options that differ from its defaults.

An encoding's default for an option is the first of its ``option_choices`` (``Encoding.
full_options``). Reporting never imports an encoding (that would load its solver), so the
defaults are read from the source of the modules the registry would import for the puzzle
(``registry.encoding_modules``: its encodings package and the plugins) with ``ast``: a
dict literal of tuples, ``**Other.option_choices`` or ``dict(Other.option_choices)`` of a
class of those modules, and ``tuple(NAME)`` of a module-level dict literal (its first key).
An option whose default cannot be read this way is named when its value varies among the
runs at hand.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from models import registry

SLUG_CHARS = 80  # a file name's stem from a label: at most this long, cut between words
_UNKNOWN = object()


def _class_attr(node: ast.ClassDef, attr: str) -> ast.expr | None:
    for item in node.body:
        if isinstance(item, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == attr for t in item.targets
        ):
            return item.value
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and item.target.id == attr
        ):
            return item.value
    return None


def _sources(puzzle: str) -> tuple[dict[str, ast.ClassDef], dict[str, ast.expr]]:
    """Every class and every module-level assignment of the modules that may define the
    puzzle's encodings (a class may take its options from another module's class)."""
    classes: dict[str, ast.ClassDef] = {}
    names: dict[str, ast.expr] = {}
    for module_name in registry.encoding_modules(puzzle):
        spec = importlib.util.find_spec(module_name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        try:
            tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = node.value
    return classes, names


def _first(value: ast.expr, names: dict[str, ast.expr]) -> Any:
    """The first choice of an option's choices expression, or ``_UNKNOWN``."""
    if isinstance(value, ast.Tuple | ast.List) and value.elts:
        try:
            return ast.literal_eval(value.elts[0])
        except ValueError:
            return _UNKNOWN
    if (  # tuple(NAME) of a dict literal: its first key
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("tuple", "list")
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Name)
        and isinstance(names.get(value.args[0].id), ast.Dict)
    ):
        keys = names[value.args[0].id].keys  # type: ignore[union-attr]
        if keys and keys[0] is not None:
            try:
                return ast.literal_eval(keys[0])
            except ValueError:
                return _UNKNOWN
    return _UNKNOWN


def _defaults_of(
    cls: str,
    classes: dict[str, ast.ClassDef],
    names: dict[str, ast.expr],
    seen: frozenset = frozenset(),
) -> dict[str, Any]:
    node = classes.get(cls)
    if node is None or cls in seen:
        return {}
    choices = _class_attr(node, "option_choices")
    out: dict[str, Any] = {}
    if choices is None:  # inherited from a base class of the package
        for base in node.bases:
            if isinstance(base, ast.Name):
                out = _defaults_of(base.id, classes, names, seen | {cls}) | out
        return out
    if (  # dict(Other.option_choices)
        isinstance(choices, ast.Call)
        and isinstance(choices.func, ast.Name)
        and choices.func.id == "dict"
        and len(choices.args) == 1
        and isinstance(choices.args[0], ast.Attribute)
        and isinstance(choices.args[0].value, ast.Name)
    ):
        return _defaults_of(choices.args[0].value.id, classes, names, seen | {cls})
    if not isinstance(choices, ast.Dict):
        return out
    for key, value in zip(choices.keys, choices.values, strict=True):
        if key is None:  # **Other.option_choices
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
                out |= _defaults_of(value.value.id, classes, names, seen | {cls})
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            first = _first(value, names)
            if first is not _UNKNOWN:
                out[key.value] = first
    return out


@cache
def encoding_defaults(puzzle: str) -> dict[str, dict[str, Any]]:
    """Encoding name -> {option: default} for the puzzle's encodings, every option whose
    default the source states plainly; read from source, nothing imported."""
    classes, names = _sources(puzzle)
    found: dict[str, dict[str, Any]] = {}
    for cls_name, node in classes.items():
        name = _class_attr(node, "name")
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            continue
        served = _class_attr(node, "puzzles")
        try:
            serves = ast.literal_eval(served) if served is not None else None
        except ValueError:
            serves = None
        if serves is None or puzzle in serves:
            found[name.value] = _defaults_of(cls_name, classes, names)
    return found


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def shown_options(
    puzzle: str, encoding: str, options: dict[str, Any], varying: set[str]
) -> dict[str, Any]:
    """The options a label names: those off the encoding's default, and those whose
    default is unknown here but whose value varies among the runs (``varying``)."""
    try:
        defaults = encoding_defaults(puzzle).get(encoding, {})
    except registry.UsageError:  # runs of a puzzle not installed here: no defaults known
        defaults = {}
    return {
        k: v
        for k, v in options.items()
        if (k in defaults and not _same(v, defaults[k])) or (k not in defaults and k in varying)
    }


def slug(text: str, limit: int = SLUG_CHARS) -> str:
    """A file-name stem from a label: ``degree-sat[card=totalizer]`` becomes
    ``degree-sat_card-totalizer``; past ``limit`` it is cut between words, never inside one."""
    words = [w for w in re.split(r"[^A-Za-z0-9.+-]+", text.replace("=", "-")) if w]
    out = ""
    for word in words:
        joined = f"{out}_{word}" if out else word
        if len(joined) > limit:
            break
        out = joined
    return out or (words[0][:limit] if words else "x")
