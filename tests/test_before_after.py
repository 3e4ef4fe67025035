"""Issue 57, item 4: the store's layout 2 and its columnar reads change nothing users see.

``tests/golden/before/`` was written by ``tests/golden/outputs.py`` with the code of
86624e5 (layout 1, every run read whole into pandas); the same module run with this code
must write the same bytes: every export, statistic, verdict and the report's Markdown.
Issue 58 (names are data) then changed six of them on purpose, and only so: Markdown and
LaTeX specials escaped (``\\[s\\]``, ``{[}s{]}``) and board pictures named with a hash
(``knights_tour-board-3x10.txt~091013cee525.png``); they were written again by this module,
and with those escapes undone each equals the file of 86624e5.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.golden.outputs import COMMANDS, write

BEFORE = Path(__file__).parent / "golden" / "before"
#: the one value that is the moment of writing, not the sweep's
NOW = re.compile(r'"datetime": "[^"]*"')


@pytest.fixture(scope="module")
def after(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("after")
    write(out)
    return out


@pytest.mark.parametrize("name", [*COMMANDS, "report.md"])
def test_output_is_the_same_as_before_layout_2(after: Path, name: str) -> None:
    before = NOW.sub("", (BEFORE / name).read_text())
    assert before.startswith("exit 0") or name == "report.md", before[:200]
    assert NOW.sub("", (after / name).read_text()) == before
