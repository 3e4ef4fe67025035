"""Charts for write-ups, drawn from per-instance tables (``tables.per_instance``).

Each function returns a matplotlib Figure with units, log axes where times span decades and
a legend naming the configurations, sized by a ``style.Layout`` (the report's, or a paper's
one or two columns) with each encoding in its fixed colour and marker (``style``). Saving is
the caller's job; draw inside ``style.paper_rc(layout)`` so fonts are sized and embed.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from bench.analysis import scaling as fitting
from bench.analysis.paired import ranking
from bench.analysis.style import REPORT, Layout, config_styles
from bench.analysis.tables import ANSWERED, size_cells, summary

TICK_GAP_IN = 0.16  # rotated size labels closer than this would overlap
RIGHT_LEGEND_CHARS = 28  # longer labels go below the axes, or they squeeze it


def _styles(data: pd.DataFrame) -> dict[str, dict]:
    return config_styles(list(zip(data["config"], data["encoding"], strict=True)))


def _legend(figure: Figure, ax: plt.Axes, layout: Layout) -> None:
    """Right of the axes when the labels are short and the layout allows; else below, in as
    many columns as fit the width, the figure growing by the legend's rows."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    longest = max(len(label) for label in labels)
    if layout.legend == "right" and longest <= RIGHT_LEGEND_CHARS:
        figure.legend(handles, labels, loc="outside right upper", frameon=False)
        return
    char_in = 0.058 * (layout.font - 1) / 7  # a legend character's width, roughly
    columns = max(1, min(len(labels), int(layout.width // (longest * char_in + 0.5))))
    rows = math.ceil(len(labels) / columns)
    width, height = figure.get_size_inches()
    figure.set_size_inches(width, height + rows * 0.19 * (layout.font - 1) / 7)
    figure.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False)


def _labels(ax: plt.Axes, x: str, y: str | None, heading: str, title: bool) -> None:
    """Axis labels, and the heading unless the figure goes without one (a paper's caption)."""
    ax.set_xlabel(x)
    if y is not None:
        ax.set_ylabel(y)
    if title:
        ax.set_title(heading)


def cactus(
    instances: pd.DataFrame, puzzle: str, layout: Layout = REPORT, title: bool = True
) -> Figure:
    """Instances answered (x) within a time (y): further right and lower is better."""
    data = instances[instances["puzzle"] == puzzle]
    styles = _styles(data)
    figure, ax = plt.subplots(figsize=(layout.width, layout.height), layout="constrained")
    for config, group in data.groupby("config"):
        times = np.sort(group.loc[group["status"].isin(ANSWERED), "time_s"].dropna().to_numpy())
        if len(times) == 0:
            continue
        ax.step(np.arange(1, len(times) + 1), times, where="post",
                label=f"{config} ({len(times)}/{len(group)})",
                markevery=max(1, len(times) // 12), **styles[config])  # fmt: skip
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    heading = f"{puzzle}: cactus plot ({data['instance'].nunique()} instances)"
    _labels(ax, "instances answered", "time per instance [s]", heading, title)
    ax.grid(True, which="major", alpha=0.3)
    _legend(figure, ax, layout)
    return figure


def scatter(instances: pd.DataFrame, puzzle: str, config_x: str, config_y: str,
            layout: Layout = REPORT, title: bool = True) -> Figure:  # fmt: skip
    """One point per instance; points above the diagonal favour the x configuration.

    Unanswered runs sit on the border at 1.5x the time limit so they stay visible.
    """
    data = instances[instances["puzzle"] == puzzle]
    limit = float(np.nanmax(data["time_limit_s"])) if data["time_limit_s"].notna().any() else None
    configs = sorted(set(data["config"]))  # a config that never answered has no time column
    pivot, status = (
        data.pivot_table(index="instance", columns="config", values=v, aggfunc="first").reindex(
            columns=configs
        )
        for v in ("time_s", "status")
    )
    both = pivot.index.intersection(status.dropna(subset=[config_x, config_y]).index)
    border = (limit or float(np.nanmax(pivot.to_numpy()))) * 1.5
    x, y = (pivot.loc[both, c].fillna(border).clip(lower=1e-4) for c in (config_x, config_y))
    width = min(layout.width, 4.7)  # square axes plus the colour bar, never past the column
    figure, ax = plt.subplots(figsize=(width, width * 0.89), layout="constrained")
    sizes = data.drop_duplicates("instance").set_index("instance").loc[both, "size"].map(size_cells)
    points = ax.scatter(x, y, c=np.log10(sizes.clip(lower=1)), cmap="viridis", s=14, alpha=0.85)
    low, high = min(x.min(), y.min()) / 1.5, border * 1.2
    ax.plot([low, high], [low, high], color="grey", lw=0.8)
    for factor in (10, 0.1):
        ax.plot([low, high], [low * factor, high * factor], color="grey", lw=0.5, ls=":")
    ax.axhline(border, color="#D55E00", lw=0.6, ls="--")
    ax.axvline(border, color="#D55E00", lw=0.6, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal")
    heading = f"{puzzle}: {len(both)} instances\n(dashed: not answered; dotted: 10x)"
    x_label, y_label = (_wrapped(f"{c}: time [s]", 44) for c in (config_x, config_y))
    _labels(ax, x_label, y_label, heading, title)
    figure.colorbar(points, ax=ax, label="log10 cells", shrink=0.8)
    return figure


def scaling(instances: pd.DataFrame, puzzle: str, layout: Layout = REPORT, title: bool = True,
            fits: dict[str, fitting.Fit] | None = None) -> Figure:  # fmt: skip
    """Median time to a solution against board size per configuration, IQR shaded, with the
    fitted growth (``bench.analysis.scaling``, timeouts censored) dashed, formula in the legend.

    One point per distinct board size (a 5x6 and a 3x10 board share x = 30 cells but stay two
    points, and the tick names both); sizes where a configuration solved under half its
    instances are left out of its line, so a line never dips because only easy boards remain.
    """
    data = instances[instances["puzzle"] == puzzle].copy()
    data["cells"] = data["size"].map(size_cells)
    fits = fitting.fits(instances, puzzle) if fits is None else fits
    limit = data["time_limit_s"].max()
    styles = _styles(data)
    figure, ax = plt.subplots(figsize=(layout.width, layout.height), layout="constrained")
    for config, group in data.groupby("config"):
        points = []
        for (cells, _size), at_size in group.groupby(["cells", "size"], sort=True):
            solved = at_size["status"] == "solved"
            if solved.mean() < 0.5:
                continue
            times = at_size.loc[solved, "time_s"]
            points.append((cells, times.median(), times.quantile(0.25), times.quantile(0.75)))
        fit = fits.get(config)
        label = (
            f"{config}: {fit.formula()}"
            if fit
            else f"{config} (no fit: under {fitting.MIN_SIZES} sizes solved)"
        )
        if points:
            cells, median, q1, q3 = (np.array(v) for v in zip(*points, strict=True))
            ax.plot(cells, median, label=label, **styles[config])
            ax.fill_between(cells, q1, q3, alpha=0.15, color=styles[config]["color"], lw=0)
        if fit:
            span = group["cells"][group["status"].isin(["solved", *fitting.CENSORED])]
            grid = np.geomspace(max(span.min(), 1), max(span.max(), 2), 60)
            line = fit.predict(grid)
            if pd.notna(limit):  # past 10x the limit it says nothing more
                line = np.where(line <= 10 * limit, line, np.nan)
            ax.plot(grid, line, color=styles[config]["color"], lw=0.9, ls=(0, (4, 2)),
                    alpha=0.9, label=None if points else label)  # fmt: skip
    if pd.notna(limit) and data["status"].isin(fitting.CENSORED).any():
        ax.axhline(limit, color="grey", lw=0.7, ls=":")
        ax.annotate("time limit", (0.99, limit), xycoords=("axes fraction", "data"),
                    ha="right", va="bottom", fontsize="small", color="grey")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    _size_ticks(ax, data, layout)
    heading = f"{puzzle}: time against size\n(median, IQR shaded; dashed: fitted growth)"
    _labels(ax, "board size (rows x cols; log scale of cells)", "time to a solution [s]",
            heading, title)  # fmt: skip
    ax.grid(True, which="major", alpha=0.3)
    _legend(figure, ax, layout)
    return figure


def _size_ticks(ax: plt.Axes, data: pd.DataFrame, layout: Layout) -> None:
    """A tick at every distinct cell count naming every board size there (``3x10/5x6``),
    dropping only ticks that would overlap at this figure width."""
    names = data.groupby("cells")["size"].agg(
        lambda s: "/".join(sorted(set(map(str, s)), key=_order))
    )
    names = names[names.index > 0]
    if names.empty:
        return
    low, high = math.log(names.index.min()), math.log(max(names.index.max(), names.index.min() + 1))
    width = layout.width * 0.7  # the axes' share of the figure, roughly
    kept: list[int] = []
    for cells in names.index:
        where = (math.log(cells) - low) / (high - low) * width if high > low else 0.0
        if not kept or where - (math.log(kept[-1]) - low) / (high - low) * width >= TICK_GAP_IN:
            kept.append(int(cells))
    ax.set_xticks(kept)
    ax.set_xticklabels([names[c] for c in kept], rotation=90)
    ax.minorticks_off()
    span = max(names.index.max() / names.index.min(), 1.5)
    pad = span**0.04  # a margin of 4 % of the log range on each side
    ax.set_xlim(names.index.min() / pad, names.index.max() * pad)


def _order(size: str) -> tuple[int, str]:
    return size_cells(size), size


def par2_bars(
    instances: pd.DataFrame, puzzle: str, layout: Layout = REPORT, title: bool = True
) -> Figure:
    """PAR-2 per configuration (log scale, best at the top) with the virtual best, and the
    answered count at each bar: the one-glance ranking."""
    data = instances[instances["puzzle"] == puzzle]
    table = summary(data).sort_values("par2_s", ascending=False)
    styles = _styles(data)
    labels = [_wrapped(c, 26 if layout.width < 4 else 60) for c in table["config"]]
    lines = sum(label.count("\n") + 1 for label in labels)
    height = max(layout.height, 0.16 * lines * layout.font / 8 + 0.06 * len(table) + 1.0)
    figure, ax = plt.subplots(figsize=(layout.width, height), layout="constrained")
    colours = [styles.get(c, {}).get("color", "grey") for c in table["config"]]
    ax.barh(range(len(table)), table["par2_s"], color=colours, height=0.65)
    ax.set_yticks(range(len(table)), labels, fontsize="small")
    for y, row in enumerate(table.itertuples()):
        answered = row.solved + row.infeasible
        ax.annotate(f" {answered}/{row.instances}", (row.par2_s, y), va="center", fontsize="small")
    ax.set_xscale("log")
    ax.set_xlim(right=float(table["par2_s"].max()) * 4)
    x = "PAR-2 [s]\n(per-instance mean;\nunanswered: 2x limit)"
    _labels(ax, x, None, f"{puzzle}:\nPAR-2 and instances answered", title)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    return figure


def _wrapped(label: str, width: int) -> str:
    """A long ``encoding[k=v,...]`` label on several lines: the encoding, then its options."""
    if len(label) <= width or "[" not in label:
        return label
    name, options = label.split("[", 1)
    lines, line = [name], "["
    for part in options.split(","):
        if len(line) + len(part) > width and line != "[":
            lines.append(line)
            line = ""
        line += part + ("," if not part.endswith("]") else "")
    return "\n".join([*lines, line])


def scatter_pairs(instances: pd.DataFrame, puzzle: str, limit: int = 4) -> list[tuple[str, str]]:
    """The leader (``paired.ranking``) against each next-ranked config that ran on at least
    one of its instances, up to ``limit``."""
    data = instances[instances["puzzle"] == puzzle]
    configs = ranking(data)
    if len(configs) < 2:
        return []
    ran = data.groupby("config")["instance"].agg(set)
    others = [c for c in configs[1:] if ran[configs[0]] & ran[c]]
    return [(configs[0], other) for other in others[:limit]]
