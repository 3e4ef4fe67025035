"""Which configurations each chart compares, and on which instances: one chart per question.

A cactus plot or a PAR-2 ranking compares configurations over the *same* instances; a
line of 1 of 1 next to one of 87 of 98 says nothing. So a puzzle's runs are cut into:

- the **main comparison**: the encodings at their defaults, on the instances they all
  ran: the largest block of configurations x shared instances (``rectangle``: greedily
  leave out the configuration whose absence adds the most instances, while the block's
  area grows), with the virtual best among them;
- one **case chart** per suite case whose runs the main block does not already hold (an
  option sweep, an encoding run apart on boards where the others time out): its
  configurations, plus the encoding's default configuration when it ran on the same
  instances, over the instances they share.

A run the stop rule did not run counts as planned (a timeout), so a size sweep stays one
block. Pure pandas: nothing here imports a solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bench.analysis.names import md_code, md_text
from bench.analysis.tables import size_cells


@dataclass(frozen=True)
class Group:
    """A chart's question: ``configs`` over ``instances`` (from ``cases``)."""

    key: str  # "main" or the case name
    configs: tuple[str, ...]
    instances: frozenset[str]
    cases: tuple[str, ...]

    def select(self, instances: pd.DataFrame) -> pd.DataFrame:
        """The rows of a per-instance table this chart draws."""
        keep = instances["config"].isin(self.configs) & instances["instance"].isin(self.instances)
        return instances[keep]


def rectangle(ran: dict[str, set[str]], configs: list[str]) -> tuple[list[str], set[str]]:
    """The configurations (a subset of ``configs``, in order) and the instances they all
    ran, maximising configurations x instances by leaving out one configuration at a time."""
    keep = list(configs)
    if not keep:
        return [], set()
    shared = set.intersection(*(ran[c] for c in keep))
    while len(keep) > 1:
        best, best_shared, best_area = None, shared, len(keep) * len(shared)
        for c in keep:
            rest = [o for o in keep if o != c]
            common = set.intersection(*(ran[o] for o in rest))
            if (len(keep) - 1) * len(common) > best_area:
                best, best_shared, best_area = c, common, (len(keep) - 1) * len(common)
        if best is None:
            break
        keep.remove(best)
        shared = best_shared
    return keep, shared


def _defaults_only(configs: list[str]) -> list[str]:
    """Configurations with no option off their encoding's default (``labels``)."""
    return [c for c in configs if "[" not in c.split("@")[0]]


def chart_groups(runs: pd.DataFrame, instances: pd.DataFrame, puzzle: str) -> list[Group]:
    """The main comparison first, then one group per case it does not cover."""
    data = instances[instances["puzzle"] == puzzle]
    ran = {c: set(g) for c, g in data.groupby("config")["instance"]}
    configs = sorted(ran)
    rows = runs[runs["puzzle"] == puzzle]
    case_of = rows.groupby("case")[["config", "instance"]] if "case" in rows else None
    main_configs, main_instances = rectangle(ran, _defaults_only(configs) or configs)
    cases_in_main = (
        sorted(
            {
                case
                for case, pairs in case_of
                if set(pairs["config"]) & set(main_configs)
                and set(pairs["instance"]) & main_instances
            }
        )
        if case_of is not None
        else []
    )
    groups = [Group("main", tuple(main_configs), frozenset(main_instances), tuple(cases_in_main))]
    if case_of is None:
        return groups
    covered = {(c, i) for c in main_configs for i in main_instances}
    encoding_of = dict(zip(data["config"], data["encoding"], strict=False))
    for case, pairs in case_of:
        own = set(zip(pairs["config"], pairs["instance"], strict=True))
        if own <= covered:
            continue
        case_ran = {c: set(g) for c, g in pairs.groupby("config")["instance"]}
        members, shared = rectangle(case_ran, sorted(case_ran))
        for config in _defaults_only(configs):  # the default of a swept encoding, if comparable
            if (
                config not in members
                and encoding_of.get(config) in {encoding_of.get(m) for m in members}
                and shared <= ran[config]
            ):
                members.append(config)
        if shared:
            groups.append(Group(str(case), tuple(sorted(members)), frozenset(shared), (str(case),)))
    return groups


def describe(group: Group, data: pd.DataFrame) -> str:
    """Which instances a chart covers, in words: count, files, sizes, cases."""
    files = sorted({i.split("#")[0] for i in group.instances})
    shown = ", ".join(md_code(f) for f in files[:3]) + (
        f" and {len(files) - 3} more" if len(files) > 3 else ""
    )
    sizes = sorted(
        set(data.loc[data["instance"].isin(group.instances), "size"].astype(str)), key=size_cells
    )
    span = (
        (f"size {sizes[0]}" if len(sizes) == 1 else f"sizes {sizes[0]} to {sizes[-1]}")
        if sizes
        else ""
    )
    cases = f"; cases {', '.join(md_text(c) for c in group.cases)}" if group.cases else ""
    k, n = len(group.configs), len(group.instances)
    configs = f"{k} configuration{'s' if k != 1 else ''}"
    where = f"the {n} instances they all ran" if k > 1 else f"{n} instance{'s' if n != 1 else ''}"
    return f"{configs} on {where} ({span}; from {shown}{cases})"
