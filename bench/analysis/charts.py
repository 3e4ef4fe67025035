"""Charts for write-ups, drawn from per-instance tables (``bench.tables.per_instance``).

Each function returns a matplotlib Figure with a title, units, log axes where times
span decades and a legend naming the configurations; saving is the caller's job.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from bench.analysis.tables import ANSWERED, size_cells

MARKERS = "osD^vP*Xh<>p"


def _styles(configs: list[str]) -> dict[str, dict]:
    colours = plt.get_cmap("tab10" if len(configs) <= 10 else "tab20")
    return {
        c: {"color": colours(i % colours.N), "marker": MARKERS[i % len(MARKERS)]}
        for i, c in enumerate(sorted(configs))
    }


def cactus(instances: pd.DataFrame, puzzle: str) -> Figure:
    """Instances answered (x) within a time (y): further right and lower is better."""
    data = instances[instances["puzzle"] == puzzle]
    styles = _styles(list(data["config"].unique()))
    figure, ax = plt.subplots(figsize=(8, 5))
    for config, group in data.groupby("config"):
        times = np.sort(group.loc[group["status"].isin(ANSWERED), "time_s"].dropna().to_numpy())
        if len(times) == 0:
            continue
        ax.step(
            np.arange(1, len(times) + 1),
            times,
            where="post",
            label=f"{config} ({len(times)}/{len(group)})",
            markevery=max(1, len(times) // 12),
            markersize=4,
            **styles[config],
        )
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("instances answered (solved or proved infeasible)")
    ax.set_ylabel("build + solve time per instance [s] (median of repeats)")
    ax.set_title(f"{puzzle}: cactus plot, {data['instance'].nunique()} instances")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    figure.tight_layout()
    return figure


def scatter(instances: pd.DataFrame, puzzle: str, config_x: str, config_y: str) -> Figure:
    """One point per instance; points above the diagonal favour the x configuration.

    Unanswered runs sit on the border at 1.5x the time limit so they stay visible.
    """
    data = instances[instances["puzzle"] == puzzle]
    limit = float(np.nanmax(data["time_limit_s"])) if data["time_limit_s"].notna().any() else None
    pivot = data.pivot_table(index="instance", columns="config", values="time_s", aggfunc="first")
    status = data.pivot_table(index="instance", columns="config", values="status", aggfunc="first")
    both = pivot.index.intersection(status.dropna(subset=[config_x, config_y]).index)
    border = (limit or float(np.nanmax(pivot.to_numpy()))) * 1.5
    x = pivot.loc[both, config_x].fillna(border).clip(lower=1e-4)
    y = pivot.loc[both, config_y].fillna(border).clip(lower=1e-4)
    figure, ax = plt.subplots(figsize=(5.5, 5.5))
    sizes = data.drop_duplicates("instance").set_index("instance").loc[both, "size"].map(size_cells)
    points = ax.scatter(x, y, c=np.log10(sizes.clip(lower=1)), cmap="viridis", s=22, alpha=0.85)
    low, high = min(x.min(), y.min()) / 1.5, border * 1.2
    ax.plot([low, high], [low, high], color="grey", lw=1)
    for factor in (10, 0.1):
        ax.plot([low, high], [low * factor, high * factor], color="grey", lw=0.6, ls=":")
    ax.axhline(border, color="red", lw=0.6, ls="--")
    ax.axvline(border, color="red", lw=0.6, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_xlabel(f"{config_x}: time [s]")
    ax.set_ylabel(f"{config_y}: time [s]")
    ax.set_title(
        f"{puzzle}: {config_y} against {config_x}\n(dashed red: not answered; dotted: 10x)"
    )
    figure.colorbar(points, ax=ax, label="log10 cells on the board", shrink=0.8)
    figure.tight_layout()
    return figure


def scaling(instances: pd.DataFrame, puzzle: str) -> Figure:
    """Median time to a solution against board size per configuration, IQR shaded.

    Only solved runs count (an infeasibility proof is a different task); sizes where a
    configuration solved under half its instances are left out of its line, so a line
    never dips because only the easy boards remain.
    """
    data = instances[instances["puzzle"] == puzzle].copy()
    data["cells"] = data["size"].map(size_cells)
    styles = _styles(list(data["config"].unique()))
    figure, ax = plt.subplots(figsize=(8, 5))
    plotted_cells: set[int] = set()
    for config, group in data.groupby("config"):
        points = []
        for cells, at_size in group.groupby("cells"):
            solved = at_size["status"] == "solved"
            if solved.mean() < 0.5:
                continue
            times = at_size.loc[solved, "time_s"]
            points.append((cells, times.median(), times.quantile(0.25), times.quantile(0.75)))
        if not points:
            continue
        cells, median, q1, q3 = (np.array(v) for v in zip(*points, strict=True))
        plotted_cells.update(int(c) for c in cells)
        ax.plot(cells, median, label=config, **styles[config])
        ax.fill_between(cells, q1, q3, alpha=0.15, color=styles[config]["color"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    plotted: list[int] = []
    for cells in sorted(plotted_cells):  # labels at least 30 % apart, so they never overlap
        if not plotted or cells >= plotted[-1] * 1.3:
            plotted.append(cells)
    labels = data.drop_duplicates("cells").set_index("cells")["size"]
    ax.set_xticks(plotted)
    ax.set_xticklabels([labels[c] for c in plotted], rotation=45, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("board size (log of cells)")
    ax.set_ylabel("build + solve time [s]: median, IQR shaded")
    ax.set_title(f"{puzzle}: time to a solution (sizes with under half solved left out)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    figure.tight_layout()
    return figure


def scatter_pairs(instances: pd.DataFrame, puzzle: str, limit: int = 4) -> list[tuple[str, str]]:
    """The leader (most answered, then least total time) against each other config, up to ``limit``."""
    data = instances[instances["puzzle"] == puzzle]
    answered = data[data["status"].isin(ANSWERED)]
    ranking = answered.groupby("config")["time_s"].agg(["count", "sum"])
    ranking = ranking.sort_values(["count", "sum"], ascending=[False, True])
    configs = list(ranking.index)
    if len(configs) < 2:
        return []
    return [(configs[0], other) for other in configs[1 : limit + 1]]
