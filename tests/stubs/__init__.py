"""Test-only stand-in encodings, registered through PUZZLE_BENCH_PLUGINS (never by default).

``stub_env`` is the environment a subprocess needs to see them; the ``stubs`` fixture
registers them in the test process and removes them afterwards, so no other test (the
conformance test runs every registered encoding) ever sees them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from models import registry

STUB_MODULE = "tests.stubs.knights"


def stub_env(**extra: str) -> dict[str, str]:
    return {**os.environ, registry.PLUGINS_ENV: STUB_MODULE, **extra}


@pytest.fixture
def stubs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(registry.PLUGINS_ENV, STUB_MODULE)
    _forget_names()
    registry.encodings()
    yield
    monkeypatch.delenv(registry.PLUGINS_ENV)
    _forget_names()


def _forget_names() -> None:
    """Drop the registry's cached answers that depend on the plugins: the names a suite
    checks (``encoding_names``) and the classes a sweep imports (``puzzle_encodings``)."""
    registry.puzzle_encodings.cache_clear()
    registry.encoding_names.cache_clear()
