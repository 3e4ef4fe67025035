"""Line up a baseline and a current set of runs and say what got slower, faster, or broke.

Rules (after BenchExec and asv):
- the same (puzzle, instance, configuration) is compared; new and missing cases are listed;
- a status change from answered to unanswered, or to ``wrong``, is a regression; an
  unchanged status, two timeouts, or a now-correct answer is not;
- deterministic counters (CP-SAT deterministic time, conflicts, Z3 rlimit, SAT
  conflicts, MIP nodes...) of answered single-thread runs are compared directly: they
  carry no noise, so any change beyond the threshold is real;
- when those counters repeat and did not move, the work was the same and a time
  difference is the machine's, so it is not flagged;
- otherwise times are compared as a ratio of medians with a bootstrap interval over the
  repeats, flagged only when the whole interval lies beyond the threshold and the
  medians differ by at least MIN_TIME_DIFF_S; times from different hosts are first
  divided by each run's calibration figure.
Pure pandas and numpy: no solver is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bench.analysis.tables import ANSWERED, with_config

#: counters that are repeatable at a fixed seed with one thread (DESIGN.md, solver facts)
DETERMINISTIC_COUNTERS = (
    "deterministic_time",
    "conflicts",
    "branches",
    "decisions",
    "propagations",
    "rlimit_count",
    "nodes",
    "lp_iterations",
    "rounds",
)
KEY = ["puzzle", "instance", "config"]
#: differences of median time below this are never flagged: two identical `ci` sweeps on
#: one 2-core machine differed by up to 2.2x on 5-60 ms solves (the work, by the
#: counters, was identical)
MIN_TIME_DIFF_S = 0.05
BOOTSTRAP_SAMPLES = 2000


@dataclass(frozen=True)
class Verdicts:
    table: pd.DataFrame  # one row per case: statuses, medians, ratio and interval, verdict, reason

    @property
    def regressions(self) -> pd.DataFrame:
        return self.table[self.table["verdict"] == "regression"]


def compare_runs(
    baseline: pd.DataFrame,
    current: pd.DataFrame,
    threshold: float = 0.10,
    calibration: tuple[float | None, float | None] = (None, None),
) -> Verdicts:
    """Compare two run tables (RunRecord columns); ``calibration`` = (baseline, current) figures."""
    base, cur = _normalised(baseline, calibration[0]), _normalised(current, calibration[1])
    base_groups = dict(list(base.groupby(KEY)))
    cur_groups = dict(list(cur.groupby(KEY)))
    floor = MIN_TIME_DIFF_S / calibration[0] if calibration[0] else MIN_TIME_DIFF_S  # same units
    rng = np.random.default_rng(0)  # fixed: the same inputs always give the same verdicts
    rows = []
    for key in sorted(set(base_groups) | set(cur_groups)):
        row = dict(zip(KEY, key, strict=True))
        if key not in cur_groups:
            rows.append({**row, "verdict": "missing", "reason": "in the baseline only"})
            continue
        if key not in base_groups:
            rows.append({**row, "verdict": "new", "reason": "in the current runs only"})
            continue
        case = _compare_case(base_groups[key], cur_groups[key], threshold, floor, rng)
        rows.append({**row, **case})
    columns = [*KEY, "base_status", "cur_status", "base_median_s", "cur_median_s", "ratio",
               "ratio_low", "ratio_high", "verdict", "reason"]  # fmt: skip
    return Verdicts(pd.DataFrame(rows).reindex(columns=columns))


def _normalised(runs: pd.DataFrame, calibration_s: float | None) -> pd.DataFrame:
    runs = with_config(runs)
    if calibration_s:
        runs["time_s"] = runs["time_s"] / calibration_s
    return runs


def _status(group: pd.DataFrame) -> str:
    if (group["status"] == "wrong").any():
        return "wrong"
    return str(group["status"].mode().iloc[0])


def _compare_case(
    base: pd.DataFrame, cur: pd.DataFrame, threshold: float, floor: float, rng
) -> dict:
    b_status, c_status = _status(base), _status(cur)
    out = {"base_status": b_status, "cur_status": c_status}
    b_times, c_times = base["time_s"].dropna().to_numpy(), cur["time_s"].dropna().to_numpy()
    if len(b_times) and len(c_times):
        ratio, low, high = _ratio_interval(b_times, c_times, rng)
        out.update(
            base_median_s=float(np.median(b_times)),
            cur_median_s=float(np.median(c_times)),
            ratio=ratio,
            ratio_low=low,
            ratio_high=high,
        )
    hashes = [
        set(h for h in runs.get("instance_hash", pd.Series(dtype=str)).dropna() if h)
        for runs in (base, cur)
    ]
    if hashes[0] and hashes[1] and hashes[0] != hashes[1]:
        return {**out, "verdict": "changed", "reason": "instance file changed: not comparable"}
    if c_status == "wrong" and b_status != "wrong":
        return {**out, "verdict": "regression", "reason": "answer now wrong"}
    if b_status in ANSWERED and c_status not in ANSWERED:
        return {**out, "verdict": "regression", "reason": f"{b_status} -> {c_status}"}
    if b_status not in ANSWERED and c_status in ANSWERED:
        return {**out, "verdict": "improvement", "reason": f"{b_status} -> {c_status}"}
    if b_status != c_status:
        return {**out, "verdict": "changed", "reason": f"{b_status} -> {c_status}"}
    if b_status not in ANSWERED:
        return {**out, "verdict": "same", "reason": f"{b_status} both"}
    counter, repeatable = _counter_change(base, cur, threshold)
    if counter is not None:
        name, ratio = counter
        verdict = "regression" if ratio > 1 else "improvement"
        return {**out, "verdict": verdict, "reason": f"counter {name} x{ratio:.3g}"}
    if repeatable:
        return {**out, "verdict": "same", "reason": "same work: deterministic counters unchanged"}
    if "ratio" not in out or abs(out["cur_median_s"] - out["base_median_s"]) < floor:
        return {**out, "verdict": "same", "reason": "within noise"}
    if out["ratio_low"] > 1 + threshold:
        return {**out, "verdict": "regression", "reason": f"time x{out['ratio']:.3g}"}
    if out["ratio_high"] < 1 / (1 + threshold):
        return {**out, "verdict": "improvement", "reason": f"time x{out['ratio']:.3g}"}
    return {**out, "verdict": "same", "reason": "within noise"}


def _ratio_interval(base: np.ndarray, cur: np.ndarray, rng) -> tuple[float, float, float]:
    """Ratio of medians with a 95 % bootstrap interval (a single sample gives a point interval)."""
    ratio = float(np.median(cur) / max(np.median(base), 1e-9))
    if len(base) < 2 and len(cur) < 2:
        return ratio, ratio, ratio
    b = rng.choice(base, size=(BOOTSTRAP_SAMPLES, len(base)))
    c = rng.choice(cur, size=(BOOTSTRAP_SAMPLES, len(cur)))
    ratios = np.median(c, axis=1) / np.maximum(np.median(b, axis=1), 1e-9)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return ratio, float(low), float(high)


def _counter_change(
    base: pd.DataFrame, cur: pd.DataFrame, threshold: float
) -> tuple[tuple[str, float] | None, bool]:
    """(the deterministic counter that moved most beyond the threshold, or None; whether any
    deterministic counter repeated exactly on both sides). Single-thread runs only."""
    if not ((base["threads"] == 1).all() and (cur["threads"] == 1).all()):
        return None, False
    worst: tuple[str, float] | None = None
    repeatable = False
    for name in DETERMINISTIC_COUNTERS:
        ratio = _counter_ratio(base, cur, name)
        repeatable = repeatable or ratio is not None
        beyond = ratio is not None and (ratio > 1 + threshold or ratio < 1 / (1 + threshold))
        if beyond and (worst is None or abs(np.log(ratio)) > abs(np.log(worst[1]))):
            worst = (name, ratio)
    return worst, repeatable


def _counter_ratio(base: pd.DataFrame, cur: pd.DataFrame, name: str) -> float | None:
    """Current / baseline value of a counter, seed by seed; None unless it repeats exactly."""

    def by_seed(runs: pd.DataFrame) -> dict[int, set]:
        values: dict[int, set] = {}
        for seed, counters in zip(runs["seed"], runs["counters"], strict=True):
            if isinstance(counters, dict) and counters.get(name) is not None:
                values.setdefault(int(seed), set()).add(counters[name])
        return values

    b, c = by_seed(base), by_seed(cur)
    seeds = sorted(set(b) & set(c))
    if not seeds or any(len(b[s]) > 1 or len(c[s]) > 1 for s in seeds):
        return None  # missing, or not repeatable on this solver: times decide instead
    total_b = sum(next(iter(b[s])) for s in seeds)
    total_c = sum(next(iter(c[s])) for s in seeds)
    return float((total_c + 1e-9) / (total_b + 1e-9))
