"""Paired statistics between two configurations on the instances both ran: "A beats B".

Pure functions over per-instance tables (``tables.per_instance``); nothing here imports a
solver. The method is ``method_text`` (printed with every table). Censoring an unanswered
run at its time limit is the PAR convention without the factor 2: the true time is at
least that, so every ratio understates the answered side's advantage. Clipping at
``FLOOR_S`` keeps the timer's noise on millisecond runs from reading as a 5x speed-up;
the fixed seed prints the same interval for the same runs.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from bench.analysis.stats import ANSWERED, par2_score, time_limits

TIE_RATIO = 1.10  # the slower within 10 % of the faster: a tie
FLOOR_S = 0.05  # times below this are timer noise: clipped before any ratio
BOOTSTRAP = 2000
SEED = 14
LEVEL = 0.95

PAIR_COLUMNS = ("puzzle", "a", "b", "common", "wins", "losses", "ties", "neither", "speedup",
                "speedup_lo", "speedup_hi", "wilcoxon_p", "tested")  # fmt: skip


def censored_times(instances: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(times, answered): instance x config tables, unanswered censored at the time limit."""
    answered = instances["status"].isin(ANSWERED) & instances["time_s"].notna()
    limits = time_limits(instances["time_limit_s"], instances["time_s"])
    data = instances.assign(
        censored_s=instances["time_s"].where(answered, limits), answered=answered
    )
    times, flags = (
        data.pivot_table(index="instance", columns="config", values=v, aggfunc="first")
        for v in ("censored_s", "answered")
    )
    return times, flags.astype("boolean")


def ranking(instances: pd.DataFrame) -> list[str]:
    """Configurations best first: most instances answered, then lowest PAR-2."""
    data = instances.assign(
        answered=instances["status"].isin(ANSWERED),
        par2_s=par2_score(instances["status"], instances["time_s"], instances["time_limit_s"]),
    )
    table = data.groupby("config").agg(answered=("answered", "sum"), par2_s=("par2_s", "mean"))
    table = table.sort_values(["answered", "par2_s"], ascending=[False, True], kind="stable")
    return list(table.index)


def compare_pair(
    time_a: np.ndarray, time_b: np.ndarray, answered_a: np.ndarray, answered_b: np.ndarray
) -> dict[str, Any]:
    """The paired statistics of A against B on aligned arrays (one entry per common instance)."""
    ta = np.maximum(np.asarray(time_a, dtype=float), FLOOR_S)
    tb = np.maximum(np.asarray(time_b, dtype=float), FLOOR_S)
    aa, ab = np.asarray(answered_a, dtype=bool), np.asarray(answered_b, dtype=bool)
    neither = ~aa & ~ab
    close = np.maximum(ta, tb) <= TIE_RATIO * np.minimum(ta, tb)
    both = aa & ab
    tie = neither | (both & close)
    a_wins = ~tie & ((aa & ~ab) | (both & (ta < tb)))
    informative = ~neither
    log_ratio = np.log(tb[informative]) - np.log(ta[informative])
    low, high = bootstrap_geomean(log_ratio)
    return {
        "common": len(ta),
        "wins": int(a_wins.sum()),
        "losses": int((~tie & ~a_wins).sum()),
        "ties": int(tie.sum()),
        "neither": int(neither.sum()),
        "speedup": float(np.exp(log_ratio.mean())) if len(log_ratio) else math.nan,
        "speedup_lo": low,
        "speedup_hi": high,
        "wilcoxon_p": wilcoxon_p(log_ratio),
        "tested": len(log_ratio),
    }


def bootstrap_geomean(
    log_ratio: np.ndarray, resamples: int = BOOTSTRAP, seed: int = SEED, level: float = LEVEL
) -> tuple[float, float]:
    """Percentile bootstrap interval of exp(mean(log_ratio)), resampling instances."""
    n = len(log_ratio)
    if n == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = log_ratio[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(np.exp(low)), float(np.exp(high))


def wilcoxon_p(differences: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value; NaN when every difference is zero (or none)."""
    nonzero = differences[np.abs(differences) > 1e-12]
    if len(nonzero) == 0:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small samples and tied ranks: scipy says so itself
        return float(scipy_stats.wilcoxon(nonzero, zero_method="wilcox").pvalue)


def paired(instances: pd.DataFrame, puzzle: str | None = None, pairs: str = "all") -> pd.DataFrame:
    """One row per pair of configurations per puzzle, A the better-ranked (``ranking``).

    ``pairs``: ``all`` (every pair) or ``leader`` (the best-ranked against each other).
    Only instances that both configurations ran count.
    """
    rows = []
    puzzles = [puzzle] if puzzle else sorted(instances["puzzle"].unique())
    for name in puzzles:
        data = instances[instances["puzzle"] == name]
        order = ranking(data)
        if pairs == "leader":
            chosen = [(order[0], other) for other in order[1:]]
        else:
            chosen = list(combinations(order, 2))
        times, flags = censored_times(data)
        # plain arrays, a column per configuration: no pandas indexing per pair
        column = {config: i for i, config in enumerate(times.columns)}
        time_of = times.to_numpy(dtype=float)
        flag_of = flags.reindex(index=times.index, columns=times.columns).to_numpy(dtype=object)
        for a, b in chosen:
            ta, tb = time_of[:, column[a]], time_of[:, column[b]]
            both = ~np.isnan(ta) & ~np.isnan(tb)
            if not both.any():
                continue
            fa, fb = flag_of[both, column[a]], flag_of[both, column[b]]
            result = compare_pair(
                ta[both],
                tb[both],
                np.array([f is True or f == 1 for f in fa], dtype=bool),
                np.array([f is True or f == 1 for f in fb], dtype=bool),
            )
            rows.append({"puzzle": name, "a": a, "b": b, **result})
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def readable(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs table as text cells, for the terminal, Markdown and the report."""
    return pd.DataFrame(
        {
            "puzzle": pairs["puzzle"],
            "A": pairs["a"],
            "B": pairs["b"],
            "instances": pairs["common"],
            "A wins": pairs["wins"],
            "B wins": pairs["losses"],
            "ties": [
                f"{t} ({n} neither)" if n else str(t)
                for t, n in zip(pairs["ties"], pairs["neither"], strict=True)
            ],
            "speed-up of A (95% CI)": [
                _speedup(s, lo, hi)
                for s, lo, hi in zip(
                    pairs["speedup"], pairs["speedup_lo"], pairs["speedup_hi"], strict=True
                )
            ],
            "Wilcoxon p": [_p(p) for p in pairs["wilcoxon_p"]],
        }
    )


def method_text() -> str:
    """One paragraph for the report and the command's help: what the numbers mean."""
    return (
        "A is the better-ranked configuration (more instances answered, then lower PAR-2). "
        "Unanswered runs (timeout, memout, error, wrong) count as answering at their time "
        "limit: a conservative censoring that understates the answered side's advantage. "
        f"Times under {FLOOR_S:g} s are clipped to it. A tie: both unanswered, or the slower "
        f"within {TIE_RATIO:g}x of the faster. Speed-up: geometric mean of time(B)/time(A) over "
        f"instances at least one answered, with a {LEVEL:.0%} percentile bootstrap interval "
        f"({BOOTSTRAP} resamples of instances, seed {SEED}). Wilcoxon: two-sided signed-rank "
        "test on the paired log-time differences (small p: one is systematically faster)."
    )


def _speedup(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.3g}x [{low:.3g}, {high:.3g}]"


def _p(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.2g}" if value >= 1e-4 else "<1e-4"
