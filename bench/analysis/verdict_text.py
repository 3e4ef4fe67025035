"""Verdicts as Markdown for a pull request: regressions first, what was compared, how sure.

A reviewer reads the top of a CI summary and stops: so the regressions lead, then the
other changes; the header says what the change was measured against (a base commit
measured beside it, or the committed baseline from another sweep), whether both sides
ran on one machine, and what a verdict rests on. The ``basis`` of a row says how sure
it is: a repeatable counter is exact (the solver did other work, certainly); a time
verdict rests on a 95 % bootstrap interval over the repeats, printed with their number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from bench.analysis.formats import markdown_table, missing
from bench.analysis.names import md_text

#: verdicts in the order a reviewer needs them
ORDER = ("regression", "changed", "missing", "new", "not comparable", "improvement", "same")
HEADERS = ["verdict", "puzzle", "instance", "config", "aspect", "status", "base -> cur",
           "ratio [95% CI]", "reason", "basis"]  # fmt: skip


@dataclass
class Context:
    """What was compared: a line for each side, the machine, and the repeats behind times."""

    base: str
    current: str
    same_machine: bool
    machine: str = ""
    repeats: tuple[int, int] = (0, 0)
    notes: list[str] = field(default_factory=list)


def ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Rows regressions first (then changed, missing, new, ..., same), stable within each."""
    rank = {v: i for i, v in enumerate(ORDER)}
    keys = table["verdict"].map(lambda v: rank.get(v, len(ORDER)))
    return table.assign(_rank=keys).sort_values("_rank", kind="stable").drop(columns="_rank")


def basis(row, repeats: tuple[int, int]) -> str:
    """How sure a verdict is, from what it rests on."""
    reason = str(row.reason)
    if reason.startswith("counter") or "counters unchanged" in reason:
        return "exact: repeatable counter"
    if not missing(row.ratio_low) and " time " in f" {reason} ":
        n = f", {repeats[0]}+{repeats[1]} repeats" if all(repeats) else ""
        return f"95% CI {row.ratio_low:.2f}-{row.ratio_high:.2f}{n}"
    if row.verdict in ("regression", "improvement", "changed") and "->" in reason:
        return "status"
    return ""


def markdown(
    title: str, context: Context, counts: dict, table: pd.DataFrame, gate_line: str = ""
) -> str:
    """The Markdown of a comparison (``table``: the rows to show, any order; ``gate_line``:
    the gate's decision, shown first when given)."""
    regressions = int(counts.get("regression", 0))
    lead = (
        f"**{regressions} regression{'s' if regressions != 1 else ''}**"
        if regressions
        else "no regression"
    )
    where = f"same machine ({context.machine})" if context.same_machine else "NOT the same machine"
    lines = [
        f"### {md_text(title, line_start=False)}",
        "",
        *([gate_line, ""] if gate_line else []),
        f"{lead} — {_counts_line(counts)}",
        "",
        f"- compared: base {context.base} -> current {context.current}",
        f"- where: {where}",
        "- how sure: a counter verdict is exact (the counter repeats run to run); a time "
        "verdict needs its whole 95 % bootstrap interval beyond the threshold"
        + (
            f" ({context.repeats[0]} base and {context.repeats[1]} current repeats)"
            if all(context.repeats)
            else ""
        ),
    ]
    lines += [f"- {note}" for note in context.notes]
    lines.append("")
    if len(table):
        cells = [_cells(row, context.repeats) for row in ordered(table).itertuples()]
        for row in cells:
            row[0] = f"**{row[0]}**" if row[0] == "regression" else row[0]
        lines.append(markdown_table(pd.DataFrame(cells, columns=HEADERS), markup=("verdict",)))
    return "\n".join(lines)


def gate_line(decision) -> str:
    """The gate's decision (``compare.Gate``) in one line: what CI shows first."""
    if decision.verdict == "pass":
        return "gate: pass"
    return f"gate: FAIL ({decision.verdict}): " + "; ".join(decision.problems)


def _cells(row, repeats: tuple[int, int]) -> list[str]:
    status = f"{row.base_status} -> {row.cur_status}" if isinstance(row.base_status, str) else ""
    values = "" if missing(row.cur) or missing(row.base) else f"{row.base:.4g} -> {row.cur:.4g}"
    ratio = (
        "" if missing(row.ratio) else f"{row.ratio:.2f} [{row.ratio_low:.2f}, {row.ratio_high:.2f}]"
    )
    return [row.verdict, row.puzzle, row.instance, row.config, row.aspect, status, values, ratio,
            row.reason, basis(row, repeats)]  # fmt: skip


def _counts_line(counts: dict) -> str:
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to compare"
