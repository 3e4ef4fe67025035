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
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from bench.analysis import scaling as fitting
from bench.analysis.paired import ranking
from bench.analysis.style import REPORT, Layout, config_styles
from bench.analysis.tables import ANSWERED, size_cells, summary

TICK_GAP_IN = 0.16  # rotated size labels closer than this would overlap
PANEL_PAD = 5.0  # legend under a panel: clear of its tick labels and x label (font sizes)
RIGHT_LEGEND_CHARS = 28  # longer labels go below the axes, or they squeeze it


def _styles(data: pd.DataFrame) -> dict[str, dict]:
    return config_styles(list(zip(data["config"], data["encoding"], strict=True)))


def _legend(figure: Figure, ax: plt.Axes, layout: Layout) -> None:
    """Right of the axes when the labels are short and the layout allows; else below, in as
    many columns as fit the width (measured, not guessed), the figure growing by its rows."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    longest = max(len(label) for label in labels)
    if layout.legend == "right" and longest <= RIGHT_LEGEND_CHARS:
        figure.legend(handles, labels, loc="outside right upper", frameon=False)
        return
    renderer = figure.canvas.get_renderer()
    width_px = figure.get_size_inches()[0] * figure.dpi
    columns = len(labels)
    wrap, originals = max(len(label) for label in labels), labels
    while True:  # fewest rows whose legend fits inside the figure; then wrapped labels
        legend = figure.legend(handles, labels, loc="lower center", ncols=columns, frameon=False)
        box = legend.get_window_extent(renderer)
        legend.remove()
        if box.width <= 0.98 * width_px or wrap <= 12:
            break
        if columns > 1:
            columns -= 1
        else:
            wrap -= 6
            labels = [_wrapped(label, wrap) for label in originals]
    width, height = figure.get_size_inches()
    figure.set_size_inches(width, height + box.height / figure.dpi + 0.1)
    figure.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False)


def _plain_log(ax: plt.Axes, axes: str = "y") -> None:
    """Log-axis ticks as plain numbers (0.01, 1, 100): readable, and no mathtext to typeset,
    which is most of a log chart's drawing time."""
    for name in axes:
        axis = ax.yaxis if name == "y" else ax.xaxis
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


def _labels(ax: plt.Axes, x: str, y: str | None, heading: str, title: bool) -> None:
    """Axis labels, and the heading unless the figure goes without one (a paper's caption)."""
    ax.set_xlabel(x)
    if y is not None:
        ax.set_ylabel(y)
    if title:
        ax.set_title(heading)


def _cactus_lines(ax: plt.Axes, data: pd.DataFrame, styles: dict, virtual_best: bool) -> None:
    """One step line per configuration: its answered times sorted, label ``config (k/n)``."""
    for config, group in data.groupby("config"):
        times = np.sort(group.loc[group["status"].isin(ANSWERED), "time_s"].dropna().to_numpy())
        if len(times) == 0:
            continue
        ax.step(np.arange(1, len(times) + 1), times, where="post",
                label=f"{config} ({len(times)}/{len(group)})",
                markevery=max(1, len(times) // 12), **styles[config])  # fmt: skip
    if virtual_best and data["config"].nunique() > 1:
        answered = data[data["status"].isin(ANSWERED)]
        best = np.sort(answered.groupby("instance")["time_s"].min().dropna().to_numpy())
        if len(best):
            ax.step(np.arange(1, len(best) + 1), best, where="post", lw=2.2, alpha=0.5,
                    label=f"virtual best ({len(best)}/{data['instance'].nunique()})",
                    **styles["virtual best"])  # fmt: skip


def cactus(
    instances: pd.DataFrame,
    puzzle: str,
    layout: Layout = REPORT,
    title: bool = True,
    virtual_best: bool = True,
) -> Figure:
    """Instances answered (x) within a time (y): further right and lower is better. Draw it
    over configurations that ran the same instances (``groups``), or the lines mislead."""
    data = instances[instances["puzzle"] == puzzle]
    styles = _styles(data)
    figure, ax = plt.subplots(figsize=(layout.width, layout.height), layout="constrained")
    _cactus_lines(ax, data, styles, virtual_best)
    ax.set_yscale("log")
    _plain_log(ax)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    heading = f"{puzzle}: cactus plot ({data['instance'].nunique()} instances)"
    _labels(ax, "instances answered", "time per instance [s]", heading, title)
    ax.grid(True, which="major", alpha=0.3)
    _legend(figure, ax, layout)
    return figure


def _unanswered(data: pd.DataFrame) -> str:
    counts = data["status"].value_counts()
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def case_panels(
    panels: list[tuple[str, pd.DataFrame]], puzzle: str, layout: Layout = REPORT
) -> Figure:
    """Small multiples: one cactus per (heading, per-instance rows) panel, two a row, each
    with its own legend below it; the option sweeps of a puzzle side by side."""
    columns = 1 if layout.width < 4 or len(panels) == 1 else 2
    rows = math.ceil(len(panels) / columns)
    tallest = max(p[1]["config"].nunique() for p in panels)
    panel_h = 1.9 + 0.16 * (tallest + 1) * (layout.font - 1) / 7
    figure, axes = plt.subplots(rows, columns, figsize=(layout.width, panel_h * rows),
                                layout="constrained", squeeze=False)  # fmt: skip
    styles = _styles(pd.concat([p[1] for p in panels]))
    for ax, (heading, data) in zip(axes.flat, panels, strict=False):
        _cactus_lines(ax, data, styles, virtual_best=False)
        ax.set_yscale("log")
        _plain_log(ax)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(heading, fontsize="small")
        ax.set_xlabel("instances answered", fontsize="small")
        ax.set_ylabel("time [s]", fontsize="small")
        ax.grid(True, which="major", alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        if not handles:  # say so rather than leave an empty frame
            ax.text(0.5, 0.5, f"nothing answered:\n{data['config'].nunique()} configurations x "
                    f"{data['instance'].nunique()} instances,\nall {_unanswered(data)}",
                    transform=ax.transAxes, ha="center", va="center", fontsize="small")  # fmt: skip
            ax.set_yticks([])
        if handles:
            # anchored a fixed distance under the axes (not a share of their height), so
            # the layout engine, which resizes the axes, converges with the legend in place
            ax.legend(handles, [_wrapped(x, 34 if columns == 2 else 60) for x in labels],
                      loc="upper center", bbox_to_anchor=(0.5, 0.0), borderaxespad=PANEL_PAD,
                      ncols=1, fontsize="x-small", frameon=False)  # fmt: skip
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    gap = "\n" if columns == 1 else " "
    figure.suptitle(f"{puzzle}: option sweeps and cases apart{gap}(a cactus plot each)")
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
    _plain_log(ax, "xy")
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
    _plain_log(ax)
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
    _plain_log(ax, "x")
    ax.set_xlim(right=float(table["par2_s"].max()) * 4)
    x = "PAR-2 [s]\n(per-instance mean;\nunanswered: 2x limit)"
    _labels(ax, x, None, f"{puzzle}:\nPAR-2 and instances answered", title)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    return figure


def _wrapped(label: str, width: int) -> str:
    """A long ``encoding[k=v,...] suffix`` label on several lines: the encoding, then its
    options, then what follows them; never cut inside an option."""
    if len(label) <= width or "[" not in label or "]" not in label:
        return label
    name, rest = label.split("[", 1)
    options, tail = rest.split("]", 1)
    parts = [f"{p}," for p in options.split(",")]
    parts[-1] = parts[-1][:-1] + "]"
    parts[0] = "[" + parts[0]
    lines, line = [name], ""
    for part in parts:
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    if tail.strip():
        lines[-1] += tail if len(lines[-1]) + len(tail) <= width else "\n" + tail.strip()
    return "\n".join(lines)


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
