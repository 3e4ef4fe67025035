"""Tables as text for write-ups: Markdown (pipe tables) and LaTeX (booktabs), one writer each.

Small writers of our own rather than ``DataFrame.to_latex``/``to_markdown``: those need
jinja2 and tabulate, and a paper wants booktabs rules and escaped underscores anyway.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pandas as pd

from bench.analysis.names import latex_text, md_text


def missing(value: object) -> bool:
    """None or NaN: a value a table shows as blank (or a dash)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def cell(value: object, digits: int = 3) -> str:
    """One cell as text: blanks for missing values, ``digits`` significant figures for floats."""
    if missing(value):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def markdown_table(table: pd.DataFrame, markup: tuple[str, ...] = ()) -> str:
    """A GitHub pipe table; numbers right-aligned. Every cell is text (``names.md_text``):
    a name holding ``|``, ``[l](x)``, a backtick or a newline stays in its cell, as written;
    only the columns named in ``markup`` hold Markdown of our own (pipes still escaped)."""
    header = "| " + " | ".join(md_text(c, line_start=False) for c in table.columns) + " |"
    rule = "|" + "".join(
        "---:|" if pd.api.types.is_numeric_dtype(table[c]) else "---|" for c in table.columns
    )
    rows = [
        "| "
        + " | ".join(
            cell(v).replace("|", "\\|") if c in markup else md_text(cell(v), line_start=False)
            for c, v in zip(table.columns, row, strict=True)
        )
        + " |"
        for row in table.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])


def latex_escape(text: str) -> str:
    """Text for LaTeX (``names.latex_text``: specials, brackets and ligatures escaped)."""
    return latex_text(text)


def latex_table(table: pd.DataFrame, caption: str = "", label: str = "") -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``); numbers right-aligned."""
    align = "".join("r" if pd.api.types.is_numeric_dtype(table[c]) else "l" for c in table.columns)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{align}}}"]
    lines.append(r"\toprule")
    lines.append(" & ".join(latex_escape(str(c)) for c in table.columns) + r" \\")
    lines.append(r"\midrule")
    for row in table.itertuples(index=False):
        lines.append(" & ".join(latex_escape(cell(v)) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


#: width of a table written to a pipe or a file: wide enough that no cell is ever cut
PIPE_WIDTH = 100_000


def fitting_console(file: Any = None) -> Any:
    """A rich Console that fits where its output goes: the terminal's width on a terminal;
    to a pipe or a file (CI logs) a width no table reaches, so no column is cut at 80
    characters and every verdict line stays whole."""
    from rich.console import Console

    console = Console(file=file or sys.stdout)
    if console.is_terminal:
        return console
    return Console(file=file or sys.stdout, width=PIPE_WIDTH, no_color=True)
