"""The quick edges of A/B, export and history: bad input is one line and exit 2, a side whose
code would come from elsewhere is refused, and the trend chart never repeats a colour."""

from __future__ import annotations

from pathlib import Path

import matplotlib.colors as mcolors
import pandas as pd
import pytest

from bench.ab import Side, check_tree, filter_suite
from bench.analysis.history import trend_chart
from models.errors import SideError
from tests.conftest import main_cli


def test_an_unknown_revision_is_bad_input() -> None:
    done = main_cli("ab", "no-such-revision-21")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: unknown git revision 'no-such-revision-21' in {Path.cwd()}"
    ]
    done = main_cli("find", "HEAD", "HEAD", "--case", "x")
    assert done.returncode == 2 and "nothing to search" in done.stderr


def test_a_side_whose_code_is_not_in_its_tree_is_refused(tmp_path: Path) -> None:
    """A tree without the project's code: its child would import this checkout's (the
    editable install), so the A/B stops with exit 3 before any sweep."""
    side = Side("base", "", "x", tmp_path, tmp_path / "base.sqlite")
    with pytest.raises(SideError) as refused:
        check_tree(side)
    assert refused.value.code == 3 and "not imported from" in str(refused.value)
    check_tree(Side("head", "", "y", Path.cwd(), tmp_path / "head.sqlite"))  # this tree: fine


def test_history_of_a_missing_or_foreign_folder_is_bad_input(tmp_path: Path) -> None:
    done = main_cli("history", "--store", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and "no results store or history folder" in done.stderr
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "abc.json").write_text('{"format": "other"}')
    done = main_cli("publish", str(tmp_path), "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "not a history export" in done.stderr


def test_filter_suite_keeps_the_named_cases_with_their_options() -> None:
    text = (
        '[suite]\nrepeats = 3\n\n[[cases]]\nname = "a"\npuzzle = "sudoku"\n\n'
        '[[cases]]\nname = "b"\npuzzle = "sudoku"\n[cases.options.cnf-sat]\nvariant = ["minimal"]\n'
    )
    kept = filter_suite(text, "b")
    assert 'name = "a"' not in kept and 'variant = ["minimal"]' in kept and "repeats = 3" in kept
    assert filter_suite(text, "zzz") == text


def test_the_trend_chart_never_repeats_a_colour() -> None:
    cases = [f"sudoku/enc{i}/board" for i in range(12)]
    table = pd.DataFrame(
        [
            {"case": c, "commit": m, "first_run": f"2026-01-0{j + 1}", "commit_date": "",
             "solve_s": 0.1 * (i + 1) * (j + 1)}
            for i, c in enumerate(cases)
            for j, m in enumerate(("aaa", "bbb"))
        ]
    )  # fmt: skip
    figure = trend_chart(table)
    colours = [mcolors.to_hex(line.get_color()) for line in figure.axes[0].get_lines()]
    assert len(colours) == 12 and len(set(colours)) == 12, colours
