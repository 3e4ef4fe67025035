"""Per-encoding solver options given as KEY=VALUE on the command line."""

from __future__ import annotations

from typing import Any

from models.base import Encoding
from models.registry import UsageError


def parse_options(encoding_cls: type[Encoding], items: list[str]) -> dict[str, Any]:
    """Turn ``["backend=glucose4"]`` into a checked options dict (values matched to the choices)."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep:
            raise UsageError(f"option {item!r} must read KEY=VALUE")
        choices = encoding_cls.option_choices.get(key)
        if choices is None:
            known = ", ".join(encoding_cls.option_choices) or "none"
            raise UsageError(f"encoding {encoding_cls.name} has no option {key!r} (known: {known})")
        matches = [c for c in choices if str(c) == text]
        if not matches:
            raise UsageError(f"option {key}={text!r} not one of {[str(c) for c in choices]}")
        options[key] = matches[0]
    return options
