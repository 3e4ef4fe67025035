"""Fitted growth of solve time with board size, timeouts kept as censored observations.

Pure functions over per-instance tables (``tables.per_instance``); no solver imports.

Size measure: ``n`` = cells on the board (rows x cols, so 81 for a 9x9 Sudoku, 30 for a
3x10 knight's tour), for every puzzle alike.

Per configuration, two models of ``y = log t``, each with Gaussian noise of spread sigma:

- power law ``log t = a + b log n`` (``t`` grows like ``n^b``; reported: the exponent b);
- exponential ``log t = a + c n`` (``t`` doubles every ``ln 2 / c`` cells; reported: that
  doubling size).

Observed points are the instances the configuration *solved* (median time of its
repeats; an infeasibility proof is another task, so left out). An instance it did not
answer in time (timeout or memout) is a **right-censored** point: all we know is
``t > limit``. Both models are fitted by maximum likelihood with censoring (a Tobit
model): an observed point adds ``log pdf((y - mu) / sigma) - log sigma``, a censored one
``log P(Y > log limit) = log sf((log limit - mu) / sigma)``, maximised by SLSQP (analytic gradient) over
(a, slope, log sigma) from the least-squares fit of the solved points, sigma kept within
[1e-3, 10]. Errors and wrong answers are not timings and are left out; so is a timeout
whose runs stopped before half their limit (``models.base.gave_up``): a search that gave up
(a reference algorithm on a board with no solution) says nothing of ``t > limit``. So a line that
would pass below the limit at sizes that timed out is penalised, and dropping the hard
sizes cannot flatten the curve.

The better model is the one with the lower AIC (both have three parameters, so: the
higher likelihood). Its exponent or doubling size gets a percentile bootstrap interval
over instances (``BOOTSTRAP`` resamples, seed ``SEED``). A fit needs solved points at
``MIN_SIZES`` sizes or more: through two, any curve passes exactly and says nothing.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from bench.analysis.stats import SOLVED
from bench.analysis.tables import size_cells
from models.base import gave_up

POWER, EXPONENTIAL = "power", "exponential"
BOOTSTRAP = 200
SEED = 14
LEVEL = 0.95
SIGMA_BOUNDS = (1e-3, 10.0)
CENSORED = ("timeout", "memout")
MIN_SIZES = 3
MIN_TIME_S = 1e-4  # log of a zero reading would be -inf
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


@dataclass
class Fit:
    """One fitted model of one configuration; ``low``/``high`` bound the reported value."""

    config: str
    model: str
    a: float
    slope: float
    sigma: float
    loglik: float
    other_aic: float  # the AIC of the model not chosen, for the record
    solved: int
    censored: int
    low: float = math.nan
    high: float = math.nan

    @property
    def aic(self) -> float:
        return _aic(self.loglik)

    @property
    def value(self) -> float:
        """The exponent b (power law) or the doubling size in cells (exponential)."""
        return self.slope if self.model == POWER else _doubling(self.slope)

    def predict(self, cells: np.ndarray) -> np.ndarray:
        """Fitted time in seconds at each board size (cells)."""
        return np.exp(self.a + self.slope * _x(self.model, cells))

    def formula(self) -> str:
        """``~n^2.51 [2.3, 2.7]`` or ``x2 every 3.02 cells [2.8, 3.3]``."""
        interval = f" [{_num(self.low)}, {_num(self.high)}]" if not math.isnan(self.low) else ""
        if self.model == POWER:
            return f"t ~ n^{self.slope:.2f}{interval}"
        return f"t x2 every {_num(self.value)} cells{interval}"


def observations(group: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cells, log time or log limit, censored flag) of one configuration's instances."""
    solved = (group["status"] == SOLVED) & group["time_s"].notna()
    censored = group["status"].isin(CENSORED) & group["time_limit_s"].notna()
    if "wall_s" in group:  # per_instance's median wall time of the runs
        stopped = zip(group["status"], group["wall_s"], group["time_limit_s"], strict=True)
        censored &= ~pd.Series([gave_up(*row) for row in stopped], index=group.index)
    keep = solved | censored
    cells = group.loc[keep, "size"].map(size_cells).to_numpy(dtype=float)
    value = group.loc[keep, "time_s"].where(solved[keep], group.loc[keep, "time_limit_s"])
    y = np.log(np.maximum(value.to_numpy(dtype=float), MIN_TIME_S))
    flags = censored[keep].to_numpy(dtype=bool)
    ok = cells > 0
    return cells[ok], y[ok], flags[ok]


def tobit(x: np.ndarray, y: np.ndarray, censored: np.ndarray, start=None) -> tuple:
    """(a, slope, sigma, loglik) of ``y = a + slope x + N(0, sigma^2)``, right-censored points
    counting ``P(Y > y)``; None when the solved points span fewer than two x values."""
    seen = ~censored
    if len(np.unique(x[seen])) < 2:
        return None
    slope, a = np.polyfit(x[seen], y[seen], 1)
    spread = float(np.std(y[seen] - (a + slope * x[seen])))
    low, high = SIGMA_BOUNDS
    sigma0 = min(max(spread, low), high)
    if not censored.any():  # the maximum-likelihood line is least squares itself
        return a, slope, sigma0, -_negloglik((a, slope, math.log(sigma0)), x, y, censored)[0]
    # from a loose spread: at a tight one, a censored point far off the line has no gradient
    guess = start if start is not None else (a, slope, math.log(max(sigma0, 0.5)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = optimize.minimize(
            _negloglik,
            np.asarray(guess, dtype=float),
            args=(x, y, censored),
            jac=True,
            method="SLSQP",
            bounds=[(None, None), (None, None), (math.log(low), math.log(high))],
        )
    a, slope, log_sigma = result.x
    return a, slope, math.exp(log_sigma), -float(result.fun)


def _negloglik(params, x: np.ndarray, y: np.ndarray, censored: np.ndarray):
    """Minus the censored log-likelihood and its gradient in (a, slope, log sigma)."""
    a, slope, log_sigma = params
    sigma = math.exp(log_sigma)
    z = (y - (a + slope * x)) / sigma
    zs, zc, xs, xc = z[~censored], z[censored], x[~censored], x[censored]
    log_tail = special.log_ndtr(-zc)
    value = float((-0.5 * zs**2 - _HALF_LOG_2PI - log_sigma).sum() + log_tail.sum())
    mills = np.exp(-0.5 * zc**2 - _HALF_LOG_2PI - log_tail)  # pdf / sf at z
    grad = np.array(
        [
            (zs.sum() + mills.sum()) / sigma,
            ((zs * xs).sum() + (mills * xc).sum()) / sigma,
            (zs**2 - 1).sum() + (mills * zc).sum(),
        ]
    )
    return -value, -grad


def fit_config(group: pd.DataFrame, config: str = "", resamples: int = BOOTSTRAP) -> Fit | None:
    """The better of the power law and the exponential for one configuration, with interval."""
    cells, y, censored = observations(group)
    if len(np.unique(cells[~censored])) < MIN_SIZES:
        return None
    results = {}
    for model in (POWER, EXPONENTIAL):
        fitted = tobit(_x(model, cells), y, censored)
        if fitted is not None:
            results[model] = fitted
    if not results:
        return None
    model = max(results, key=lambda m: results[m][3])
    a, slope, sigma, loglik = results[model]
    other = [_aic(r[3]) for m, r in results.items() if m != model]
    fit = Fit(config, model, a, slope, sigma, loglik, other[0] if other else math.nan,
              int((~censored).sum()), int(censored.sum()))  # fmt: skip
    fit.low, fit.high = _bootstrap(fit, cells, y, censored, resamples)
    return fit


def _bootstrap(fit: Fit, cells, y, censored, resamples: int) -> tuple[float, float]:
    """Percentile interval of the reported value, resampling instances (seeded)."""
    x = _x(fit.model, cells)
    rng = np.random.default_rng(SEED)
    slopes = []
    for _ in range(resamples):
        pick = rng.integers(0, len(x), len(x))
        fitted = tobit(
            x[pick], y[pick], censored[pick], start=(fit.a, fit.slope, math.log(fit.sigma))
        )
        if fitted is not None:
            slopes.append(fitted[1])
    if not slopes or len(slopes) < resamples / 2:
        return math.nan, math.nan
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(slopes, [tail, 100 - tail])
    if fit.model == POWER:
        return float(low), float(high)
    return _doubling(high), _doubling(low)


def fits(instances: pd.DataFrame, puzzle: str, resamples: int = BOOTSTRAP) -> dict[str, Fit]:
    """config -> fitted scaling, for the configurations of ``puzzle`` that can be fitted."""
    data = instances[instances["puzzle"] == puzzle]
    out = {}
    for config, group in data.groupby("config", sort=True):
        fit = fit_config(group, str(config), resamples)
        if fit is not None:
            out[str(config)] = fit
    return out


def fit_table(found: dict[str, Fit]) -> pd.DataFrame:
    """The fits as a table for the report and the terminal."""
    return pd.DataFrame(
        [
            {
                "config": config,
                "better fit": fit.model,
                "growth (95% CI)": fit.formula(),
                "solved": fit.solved,
                "censored": fit.censored,
                "AIC gap": "" if math.isnan(fit.other_aic) else f"{fit.other_aic - fit.aic:.1f}",
                "sigma (log t)": f"{fit.sigma:.2f}",
            }
            for config, fit in found.items()
        ]
    )


def _x(model: str, cells: np.ndarray) -> np.ndarray:  # the regressor: log n or n
    return np.log(cells) if model == POWER else np.asarray(cells, dtype=float)


def _aic(loglik: float) -> float:
    return 2 * 3 - 2 * loglik  # both models have three parameters


def _doubling(slope: float) -> float:
    return math.log(2) / slope if slope > 0 else math.inf


def _num(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.3g}"
