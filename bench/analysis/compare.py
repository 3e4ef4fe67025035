"""Line up a baseline and a current set of runs and say what got slower, faster, or broke.

Each (puzzle, instance, configuration) gives one *solve* row; each (puzzle, configuration)
gives one *build* row pooled over its instances. The rules (after BenchExec and asv):

- New and missing cases are listed. An edited instance file is "changed", never compared.
- Status (one per case over its repeats: ``stats.instance_status``): ``wrong`` is always a
  regression; answered -> unanswered is a regression; an unchanged status, two timeouts,
  or a now-correct answer is not. A status no run can have is "unknown status".
- A different solver version on the two sides makes a case's counters and times "not
  comparable" (the versions are printed): they measure another program. Its status is
  judged all the same: a status that got worse is a regression whatever the versions.
  ``across_versions`` compares anyway, by time only, with times scaled by the machines'
  calibration figures.
- The gate (``gate``) fails on what it cannot see, each with a verdict of its own: an
  empty or unfinished current sweep, different suites on the two sides, baseline cases
  missing from the current runs, an unknown status; and on any regression.
- Solve work is judged by the solver's effort counters where they repeat: declared
  repeatable for the run's settings in the solver table (``models.solvers.SOLVERS``), or
  shown repeatable by at least two repeats with identical values on each side. A counter
  that moved beyond ``threshold`` is a regression (or an improvement); unchanged counters
  mean the same work, whatever the clock said.
- Elsewhere, and always for the build (the project's own Python, which counters never
  see), times decide: a ratio of medians with a 95 % bootstrap interval, flagged only
  when the whole interval lies beyond ``time_threshold`` and the medians differ by at
  least a floor, and only with two or more repeats a side (one sample shows no spread).
  Times are CPU seconds (``build_cpu_s``; ``cpu_s - build_cpu_s`` for the
  solve), which a second process on the machine disturbs far less than wall time (wall
  seconds on both sides when one side's records predate ``build_cpu_s``). The
  build is pooled per configuration (geometric mean over instances, bootstrapped over
  instances and repeats; over the repeats only, the instances fixed, where every repeat on
  both sides is a sweep of its own, as ``bench ab``'s rounds are): a change to an
  encoding's model building shows on all of them.
  The median build ratio over all configurations (the machine's drift between the two
  sweeps) is divided out first: one encoding's slower build stands out, a sweep that ran
  slower everywhere does not; a change that slowed every build alike is left to the
  counters and solve times. Sides measured in interleaved rounds on one machine (``bench
  ab``) keep it (``divide_drift=False``): there the machine cannot drift between the sides.
- Times from different machines (another CPU model or core count) are "not comparable"
  unless calibration figures are given to scale them.
Pure pandas and numpy: no solver is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bench.analysis.stats import instance_status, instance_statuses, options_dict
from bench.analysis.tables import ANSWERED, cpu_recorded, with_config, with_work_times
from models.base import STATUSES
from models.errors import UsageError
from models.solvers import effort_counters, repeatable_counters

KEY = ["puzzle", "instance", "config"]
COLUMNS = [
    *KEY,
    "aspect",
    "base_status",
    "cur_status",
    "base",
    "cur",
    "ratio",
    "ratio_low",
    "ratio_high",
    "verdict",
    "reason",
]
#: default slowdown of a deterministic counter that counts as a regression
COUNTER_THRESHOLD = 0.10
#: default slowdown of a time (the whole 95 % interval beyond it) that counts as a regression
TIME_THRESHOLD = 0.25
#: solve medians closer than this (CPU seconds) are never flagged
MIN_SOLVE_DIFF_S = 0.05
#: instances whose median build takes less CPU than this are left out of the pooled build
MIN_BUILD_S = 0.002
BOOTSTRAP_SAMPLES = 2000
#: build drift common to all configurations is divided out only when this many say it
MIN_DRIFT_CONFIGS = 5


#: per-case verdicts that fail the gate
FAILING = ("regression", "missing", "unknown status")
#: the gate's own verdicts, in the order one is named when several hold
GATE_VERDICTS = ("empty", "unfinished", "suites differ", "unknown status", "missing",
                 "regression")  # fmt: skip
#: the largest threshold accepted (100x): anything above is a typo
MAX_THRESHOLD = 100.0


@dataclass(frozen=True)
class Verdicts:
    table: pd.DataFrame  # COLUMNS: one row per solve case and per configuration's build

    def counts(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.table["verdict"].value_counts().items()}


@dataclass(frozen=True)
class Side:
    """What the gate must know of one side besides its runs: is it a sweep that finished."""

    label: str
    runs: pd.DataFrame
    finished: bool = True


@dataclass(frozen=True)
class Gate:
    """The gate's decision: ``verdict`` is "pass" or the first of GATE_VERDICTS that holds;
    ``problems`` says each in one line."""

    verdict: str
    problems: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "pass" else 1


def check_threshold(value: float, what: str = "--threshold") -> float:
    """A threshold must be a finite fraction above 0 (UsageError, exit 2, otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value) or not 0 < value <= MAX_THRESHOLD:
        raise UsageError(
            f"{what} must be a finite fraction above 0 and at most {MAX_THRESHOLD:g}"
            f" (0.1 = 10%), got {value!r}"
        )
    return float(value)


def gate(base: Side, cur: Side, verdicts: Verdicts) -> Gate:
    """Pass only when the current runs show every baseline case and nothing got worse."""
    found: dict[str, str] = {}
    if cur.runs.empty:
        found["empty"] = f"{cur.label}: no runs to compare (an empty sweep)"
    if not cur.finished:
        found["unfinished"] = f"{cur.label}: the sweep did not finish"
    suites = [_suites(side.runs) for side in (base, cur)]
    if all(suites) and suites[0] != suites[1]:
        found["suites differ"] = (
            f"suites differ: {', '.join(sorted(suites[0]))} -> {', '.join(sorted(suites[1]))}"
        )
    counts = verdicts.counts()
    for verdict in FAILING:
        if counts.get(verdict):
            found[verdict] = f"{counts[verdict]} case(s) {verdict}"
    for verdict in GATE_VERDICTS:
        if verdict in found:
            return Gate(verdict, tuple(found[v] for v in GATE_VERDICTS if v in found))
    return Gate("pass")


def _suites(runs: pd.DataFrame) -> set[str]:
    if "suite" not in runs:
        return set()
    return {str(s) for s in runs["suite"].dropna() if str(s)}


def compare_runs(
    baseline: pd.DataFrame,
    current: pd.DataFrame,
    threshold: float = COUNTER_THRESHOLD,
    time_threshold: float = TIME_THRESHOLD,
    calibration: tuple[float | None, float | None] = (None, None),
    times_comparable: bool = True,
    across_versions: bool = False,
    divide_drift: bool = True,
) -> Verdicts:
    """Compare two run tables (RunRecord columns).

    ``calibration`` = (baseline, current) figures scale times from two machines;
    ``times_comparable=False`` says the machines differ and no scaling was asked for.
    ``divide_drift=False`` keeps the common build drift: for sides measured in interleaved
    rounds on one machine (``bench ab``), where the machine cannot drift between them, a
    common build slowdown is the change's own doing. Where every repeat of both sides is
    a sweep of its own (``bench ab``'s rounds, or exports of them), a build's interval
    holds the boards fixed (``_pooled_ratio``).
    """
    threshold = check_threshold(threshold, "--threshold")
    time_threshold = check_threshold(time_threshold, "--time-threshold")
    scale = calibration[0] / calibration[1] if all(calibration) else 1.0  # type: ignore[operator]
    (base_build, base_solve), (cur_build, cur_solve) = map(cpu_recorded, (baseline, current))
    build_cpu, solve_cpu = base_build and cur_build, base_solve and cur_solve
    # labels from the options that vary within each side: a changed default stays comparable
    base = with_work_times(with_config(baseline, off_defaults=False), build_cpu, solve_cpu)
    cur = with_work_times(with_config(current, off_defaults=False), build_cpu, solve_cpu)
    boards_fixed = sweep_per_repeat(base) and sweep_per_repeat(cur)
    rules = _Rules(
        threshold, time_threshold, times_comparable, across_versions, scale, boards_fixed
    )
    rng = np.random.default_rng(0)  # fixed: the same inputs always give the same verdicts
    base_groups, cur_groups = dict(list(base.groupby(KEY))), dict(list(cur.groupby(KEY)))
    base_facts, cur_facts = _facts(base), _facts(cur)
    rows = []
    for key in sorted(set(base_groups) | set(cur_groups)):
        row = dict(zip(KEY, key, strict=True), aspect="solve")
        if key not in cur_groups:
            rows.append({**row, "verdict": "missing", "reason": "in the baseline only"})
        elif key not in base_groups:
            rows.append({**row, "verdict": "new", "reason": "in the current runs only"})
        else:
            facts = (base_facts.get(key, {}), cur_facts.get(key, {}))
            rows.append({**row, **rules.solve(base_groups[key], cur_groups[key], rng, facts)})
    both = set(base_groups) & set(cur_groups)
    builds = []
    for puzzle, config in sorted({(p, c) for p, _, c in both}):
        pairs = [
            (base_groups[k], cur_groups[k]) for k in sorted(both) if k[::2] == (puzzle, config)
        ]
        head = {"puzzle": puzzle, "instance": f"(build, {len(pairs)} instances)"}
        builds.append({**head, "config": config, "aspect": "build", **rules.build(pairs, rng)})
    drift = _machine_drift(builds) if divide_drift else 1.0
    rows += [rules.without_drift(row, drift) for row in builds]
    return Verdicts(pd.DataFrame(rows).reindex(columns=COLUMNS))


def unsure(table: pd.DataFrame, time_threshold: float = TIME_THRESHOLD) -> pd.DataFrame:
    """Rows judged by time whose ratio lies beyond the threshold while their 95 % interval
    still reaches back across it: a change the point estimate sees and the interval does
    not yet prove. More repeats settle them (``bench ab`` measures more rounds)."""
    if table.empty or "ratio" not in table:
        return table.iloc[:0]
    by_time = (table["verdict"] == "same") & table["reason"].fillna("").str.contains(
        "time within noise", regex=False
    )
    up, down = 1 + time_threshold, 1 / (1 + time_threshold)
    slower = (table["ratio"] > up) & (table["ratio_low"] <= up)
    faster = (table["ratio"] < down) & (table["ratio_high"] >= down)
    return table[by_time & (slower | faster)]


def sweep_per_repeat(runs: pd.DataFrame) -> bool:
    """Is every repeat (of runs with ``config``) a sweep of its own: two or more sweeps,
    and no sweep holding two runs of one case and seed? Then the repeats carry the noise
    between sweeps."""
    if runs.empty or "run_id" not in runs or runs["run_id"].nunique() < 2:
        return False
    return int(runs.groupby([*KEY, "seed", "run_id"], dropna=False).size().max()) == 1


def _machine_drift(builds: list[dict]) -> float:
    """The median build-time ratio over the configurations judged by time: what the machine
    did to every build at once (a shift that no spread within a sweep shows); 1 when too
    few configurations say it."""
    ratios = [row["ratio"] for row in builds if "ratio" in row and not pd.isna(row["ratio"])]
    return float(np.median(ratios)) if len(ratios) >= MIN_DRIFT_CONFIGS else 1.0


def _status(group: pd.DataFrame) -> str:
    """The case's status over its repeats (``stats.instance_status``); a status no run can
    have (a hand-edited baseline) is named as it is, never voted away."""
    unknown = sorted({str(s) for s in group["status"]} - set(STATUSES))
    return unknown[0] if unknown else instance_status(group["status"])


def _values(group: pd.DataFrame, column: str) -> set[str]:
    return {str(v) for v in group.get(column, pd.Series(dtype=str)).dropna() if v != ""}


#: the texts a case's verdict reads from every run (``_values``)
_FACT_COLUMNS = ("instance_hash", "solver_version", "encoding_hash")


def _facts(runs: pd.DataFrame) -> dict[tuple, dict]:
    """Per case: its status (``_status``) and the value sets of ``_FACT_COLUMNS``
    (``_values``), for every case at once rather than a pandas call per case."""
    if runs.empty:
        return {}
    out: dict[tuple, dict] = {}
    for key, status in instance_statuses(runs, KEY).items():
        out.setdefault(key, {})["status"] = status
    odd = runs[~runs["status"].isin(STATUSES)]
    for key, names in odd.groupby(KEY)["status"].agg(lambda s: sorted({str(v) for v in s})).items():
        out.setdefault(key, {})["status"] = names[0]
    for column in _FACT_COLUMNS:
        if column not in runs:
            continue
        kept = runs[[*KEY, column]].dropna()
        kept = kept[kept[column] != ""].drop_duplicates()
        for key, values in kept.groupby(KEY)[column].agg(lambda s: {str(v) for v in s}).items():
            out.setdefault(key, {})[column] = values
    return out


def _fact(facts: dict, group: pd.DataFrame, column: str) -> set[str]:
    return facts.get(column, set()) if facts else _values(group, column)


@dataclass(frozen=True)
class _Rules:
    threshold: float
    time_threshold: float
    times_comparable: bool
    across_versions: bool
    time_scale: float  # baseline / current calibration: a ratio of 1 means "as fast, per machine"
    boards_fixed: bool = False  # every repeat a sweep of its own (A/B): see _pooled_ratio

    def solve(
        self, base: pd.DataFrame, cur: pd.DataFrame, rng, facts: tuple[dict, dict] = ({}, {})
    ) -> dict:
        b_status = facts[0].get("status") or _status(base)
        c_status = facts[1].get("status") or _status(cur)
        out = {"base_status": b_status, "cur_status": c_status}
        unknown = [s for s in (b_status, c_status) if s not in STATUSES]
        if unknown:
            return {**out, "verdict": "unknown status",
                    "reason": f"status {unknown[0]!r} is none of {', '.join(STATUSES)}"}  # fmt: skip
        hashes = _fact(facts[0], base, "instance_hash"), _fact(facts[1], cur, "instance_hash")
        if hashes[0] and hashes[1] and hashes[0] != hashes[1]:
            return {**out, "verdict": "changed", "reason": "instance file changed: not comparable"}
        if c_status == "wrong" and b_status != "wrong":
            return {**out, "verdict": "regression", "reason": "answer now wrong"}
        versions = _fact(facts[0], base, "solver_version"), _fact(facts[1], cur, "solver_version")
        other_version = versions[0] != versions[1] and all(versions)
        change = f"{', '.join(sorted(versions[0]))} -> {', '.join(sorted(versions[1]))}"
        note = _edit_note(base, cur, facts) + (
            f" (solver version {change})" if other_version else ""
        )
        if b_status in ANSWERED and c_status not in ANSWERED:  # whatever the versions
            return {**out, "verdict": "regression", "reason": f"{b_status} -> {c_status}{note}"}
        if b_status not in ANSWERED and c_status in ANSWERED:
            return {**out, "verdict": "improvement", "reason": f"{b_status} -> {c_status}{note}"}
        if b_status != c_status:
            return {**out, "verdict": "changed", "reason": f"{b_status} -> {c_status}{note}"}
        if b_status not in ANSWERED:
            return {**out, "verdict": "same", "reason": f"{b_status} both"}
        if other_version and not self.across_versions:
            return {**out, "verdict": "not comparable", "reason": f"solver version {change}"}
        if not other_version:  # across versions: by time only
            judged = self._by_counters(base, cur)
            if judged is not None:
                return {**out, **judged, "reason": judged["reason"] + note}
        judged = self._by_time(base["solve_t"], cur["solve_t"], MIN_SOLVE_DIFF_S, rng, "solve")
        return {**out, **judged, "reason": judged["reason"] + note}

    def build(self, pairs: list[tuple[pd.DataFrame, pd.DataFrame]], rng) -> dict:
        if not self.times_comparable:
            return {"verdict": "not comparable", "reason": "build times from another machine"}
        samples = [
            (b, c)
            for b, c in (
                (b["build_t"].dropna().to_numpy(), c["build_t"].dropna().to_numpy())
                for b, c in pairs
            )
            if len(b) and len(c) and np.median(b) >= MIN_BUILD_S
        ]
        if not samples:
            return {"verdict": "same", "reason": f"every build under {MIN_BUILD_S * 1000:g} ms"}
        if min(min(len(b), len(c)) for b, c in samples) < 2:
            return {"verdict": "same", "reason": "one sample a side: build time not judged"}
        pooled = _pooled_ratio(samples, rng, self.boards_fixed)
        ratio, low, high = (r * self.time_scale for r in pooled)
        base_total = float(sum(np.median(b) for b, _ in samples))
        cur_total = float(sum(np.median(c) for _, c in samples))
        out = _measured(base_total, cur_total, ratio, low, high)
        return {**out, **self._time_verdict(ratio, low, high, "build time")}

    def without_drift(self, row: dict, drift: float) -> dict:
        """A build row judged against the machine's common drift: one encoding's slower
        build still stands out, a sweep that was slower everywhere does not."""
        if "ratio" not in row or pd.isna(row["ratio"]) or abs(drift - 1) < 0.01:
            return row
        ratio, low, high = (row[k] / drift for k in ("ratio", "ratio_low", "ratio_high"))
        judged = self._time_verdict(ratio, low, high, "build time")
        reason = f"{judged['reason']} (all builds x{drift:.2f}: divided out)"
        return {**row, "ratio": ratio, "ratio_low": low, "ratio_high": high, **judged,
                "reason": reason}  # fmt: skip

    def _by_counters(self, base: pd.DataFrame, cur: pd.DataFrame) -> dict | None:
        names = _repeatable(base) & _repeatable(cur)
        worst: tuple[str, float, float, float] | None = None
        for name in sorted(names):
            b, c = _counter_total(base, name), _counter_total(cur, name)
            ratio = (c + 1e-9) / (b + 1e-9)
            if worst is None or abs(np.log(ratio)) > abs(np.log(worst[1])):
                worst = (name, ratio, b, c)
        if worst is None:
            return None
        name, ratio, b, c = worst
        out = _measured(b, c, ratio, ratio, ratio)
        if ratio > 1 + self.threshold:
            return {**out, "verdict": "regression", "reason": f"counter {name} x{ratio:.3g}"}
        if ratio < 1 / (1 + self.threshold):
            return {**out, "verdict": "improvement", "reason": f"counter {name} x{ratio:.3g}"}
        return {**out, "verdict": "same", "reason": "same work: repeatable counters unchanged"}

    def _by_time(self, base: pd.Series, cur: pd.Series, floor: float, rng, what: str) -> dict:
        b, c = base.dropna().to_numpy(), cur.dropna().to_numpy()
        if not (len(b) and len(c)):
            return {"verdict": "same", "reason": f"no {what} times"}
        if not self.times_comparable:
            return {"verdict": "not comparable", "reason": f"{what} times from another machine"}
        if min(len(b), len(c)) < 2:
            return {"verdict": "same", "reason": f"one sample a side: {what} time not judged"}
        ratio, low, high = (r * self.time_scale for r in _ratio_interval(b, c, rng))
        out = _measured(float(np.median(b)), float(np.median(c)), ratio, low, high)
        if abs(out["cur"] * self.time_scale - out["base"]) < floor:
            return {**out, "verdict": "same", "reason": f"{what} time within the noise floor"}
        return {**out, **self._time_verdict(ratio, low, high, f"{what} time")}

    def _time_verdict(self, ratio: float, low: float, high: float, what: str) -> dict:
        if low > 1 + self.time_threshold:
            return {"verdict": "regression", "reason": f"{what} x{ratio:.3g}"}
        if high < 1 / (1 + self.time_threshold):
            return {"verdict": "improvement", "reason": f"{what} x{ratio:.3g}"}
        return {"verdict": "same", "reason": f"{what} within noise"}


def _measured(base: float, cur: float, ratio: float, low: float, high: float) -> dict:
    return {"base": base, "cur": cur, "ratio": ratio, "ratio_low": low, "ratio_high": high}


def _edit_note(base: pd.DataFrame, cur: pd.DataFrame, facts: tuple[dict, dict] = ({}, {})) -> str:
    hashes = _fact(facts[0], base, "encoding_hash"), _fact(facts[1], cur, "encoding_hash")
    return " (encoding source changed)" if all(hashes) and hashes[0] != hashes[1] else ""


def _repeatable(runs: pd.DataFrame) -> set[str]:
    """Effort counters of these runs that repeat: declared so for their settings in the
    solver table, or shown by two or more runs of one seed with identical values. A
    counter that varied anyway is never trusted; clocks and memory never count."""
    values: dict[str, dict[int, set]] = {}
    for seed, counters in zip(runs["seed"], runs["counters"], strict=True):
        for name, value in (counters if isinstance(counters, dict) else {}).items():
            values.setdefault(name, {}).setdefault(int(seed), set()).add(value)
    declared: set[str] = set()
    effort: set[str] = set()
    for solver, threads, options in zip(
        runs["solver"], runs["threads"], runs["options"], strict=True
    ):
        declared |= set(repeatable_counters(str(solver), int(threads or 1), options_dict(options)))
        effort |= set(effort_counters(str(solver)))
    seeds = runs.groupby("seed").size()
    shown = {n for n in values if all(seeds.get(s, 0) >= 2 for s in values[n])}
    # on every run: one run of a mostly solved instance that stopped early reports no counter
    names_per_run = [set(c) if isinstance(c, dict) else set() for c in runs["counters"]]
    everywhere = set.intersection(*names_per_run) if names_per_run else set()
    return {
        name
        for name, by_seed in values.items()
        if name in effort
        and (name in declared or name in shown)
        and all(len(v) == 1 for v in by_seed.values())
        and name in everywhere
    }


def _counter_total(runs: pd.DataFrame, name: str) -> float:
    """Sum over seeds of the (repeating) value of a counter."""
    by_seed = {int(s): c[name] for s, c in zip(runs["seed"], runs["counters"], strict=True)}
    return float(sum(by_seed.values()))


def _ratio_interval(base: np.ndarray, cur: np.ndarray, rng) -> tuple[float, float, float]:
    """Ratio of medians with a 95 % bootstrap interval over the repeats."""
    ratio = float(np.median(cur) / max(np.median(base), 1e-9))
    b = rng.choice(base, size=(BOOTSTRAP_SAMPLES, len(base)))
    c = rng.choice(cur, size=(BOOTSTRAP_SAMPLES, len(cur)))
    ratios = np.median(c, axis=1) / np.maximum(np.median(b, axis=1), 1e-9)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return ratio, float(low), float(high)


def _pooled_ratio(
    samples: list[tuple[np.ndarray, np.ndarray]], rng, boards_fixed: bool = False
) -> tuple[float, float, float]:
    """Geometric mean over instances of the ratio of medians, with a 95 % interval from a
    bootstrap of the repeats within each instance, and of the instances too unless
    ``boards_fixed``.

    Repeats of one sweep share its process, so they miss what differs from sweep to sweep
    (another process's memory layout, the machine's state); resampling the boards widens
    the interval by their spread, which stands in for it. Where every repeat is a sweep of
    its own (``bench ab``: one repeat a round, the sides alternating), the repeats carry
    that noise themselves, so the boards are held fixed: with the few boards of a gate
    suite, resampling them made the lower bound about the smallest board's ratio, and one
    noisy board hid a doubled build (``tests/test_ab.py``)."""
    logs = np.log([np.median(c) / np.median(b) for b, c in samples])
    boot = np.empty((BOOTSTRAP_SAMPLES, len(samples)))
    for i, (b, c) in enumerate(samples):
        bm = np.median(rng.choice(b, size=(BOOTSTRAP_SAMPLES, len(b))), axis=1)
        cm = np.median(rng.choice(c, size=(BOOTSTRAP_SAMPLES, len(c))), axis=1)
        boot[:, i] = np.log(cm / np.maximum(bm, 1e-12))
    if not boards_fixed:
        pick = rng.integers(0, len(samples), size=(BOOTSTRAP_SAMPLES, len(samples)))
        boot = np.take_along_axis(boot, pick, axis=1)
    low, high = np.exp(np.percentile(boot.mean(axis=1), [2.5, 97.5]))
    return float(np.exp(logs.mean())), float(low), float(high)


def busiest(environments: dict[str, dict]) -> tuple[float, int] | None:
    """(1-minute load, cores) of the sweep that began on the busiest machine, when that
    load reached its cores (another job's share in its times); None otherwise, or when no
    sweep recorded its load."""
    loads = [
        (float(e["load_avg"][0]), int(e.get("cores") or 1))
        for e in environments.values()
        if isinstance(e.get("load_avg"), list | tuple) and len(e["load_avg"])
    ]
    worst = max(loads, default=None, key=lambda lc: lc[0] / lc[1])
    return worst if worst is not None and worst[0] >= worst[1] else None


def busy_note(side: str, environments: dict[str, dict]) -> str:
    """A note when a side's sweep began on a machine already as busy as its cores: its
    time verdicts are less sure there (counters are not affected); "" otherwise."""
    worst = busiest(environments)
    if worst is None:
        return ""
    return (
        f"the {side} sweep began at load {worst[0]:.1f} on {worst[1]} cores: the machine was "
        "busy, so its time verdicts are less sure (counter verdicts are not affected)"
    )


def machine(environment: dict) -> str:
    """What makes two machines' times comparable: CPU model and core count (the host name
    alone is not: CI containers get a new one each time)."""
    return f"{environment.get('cpu_model', '?')} x{environment.get('cores', '?')}"
