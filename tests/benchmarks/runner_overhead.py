"""The harness's own cost per run: a trivial sweep, locally and through a Dask LocalCluster.

Runs ``python -m bench run --suite tests/benchmarks/trivial-sweep.toml --repeat R`` (each
repeat is 100 runs: 2 small Sudoku boards x 50 seeds of ``bitset-numba``, microseconds of
solving each) with ``--executor local`` and ``--executor dask`` (a LocalCluster on
127.0.0.1, one single-threaded worker per job), side by side in one session, and reports
for each:

- runs per second, over the whole command and in the steady state (the middle 80 % of the
  runs, from their stored ``started_at``);
- the CPU time of the sweep's whole process tree: this script makes itself a child
  subreaper, so every descendant (forked runs, the guard, Dask's nannies, workers and their
  helper processes) is reaped here or by its own parent and counted in ``RUSAGE_CHILDREN``;
  the Dask workers' and helpers' own share is sampled from /proc while they live;
- the runs' own measured ``cpu_s`` and ``wall_s`` summed from the store;
- the harness's own core time per run: (tree CPU - runs' own CPU) / runs, for the whole
  command (start-up included) and, with ``--base-repeat``, per extra run (the difference
  between a sweep of R and of the base repeats: the start-up cancels out).

Not a pytest test (no ``test_`` prefix): it takes minutes. Reproduce the figures of
docs/experiments/runner-overhead.md with

    python tests/benchmarks/runner_overhead.py --repeat 16 --base-repeat 6 --jobs 2

the 20,000-run pair with ``--repeat 200 --executor dask local``, and 100,000 runs with
``--repeat 1000``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "benchmarks" / "trivial-sweep.toml"
RUNS_PER_REPEAT = 100  # 2 boards x 50 seeds
TICKS = os.sysconf("SC_CLK_TCK")


def become_subreaper() -> None:
    """Orphans of the sweep (a helper whose worker exited first) come to us to be reaped."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def tree_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def descendants(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        current = stack.pop()
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{current}/task"):
                with contextlib.suppress(OSError, ValueError):
                    text = Path(f"/proc/{current}/task/{task}/children").read_text()
                    kids = [int(c) for c in text.split()]
                    out.extend(kids)
                    stack.extend(kids)
    return out


def proc_cpu(pid: int) -> tuple[str, float] | None:
    """(kind, own CPU seconds) of a live process: 'worker' (Dask), 'helper' or None."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    if "bench.remote" in cmdline:
        return "helper", own
    if "multiprocessing" in cmdline or "distributed" in cmdline:
        return "worker", own
    return None


class Sampler:
    """Every 0.5 s: the CPU so far of each Dask worker and helper process of the sweep."""

    def __init__(self, root: int):
        self.root, self.seen = root, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            for pid in descendants(self.root):
                found = proc_cpu(pid)
                if found:
                    self.seen[pid] = found

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        out: dict[str, float] = {}
        for kind, cpu in self.seen.values():
            out[kind] = out.get(kind, 0.0) + cpu
        return out


def sweep(executor: str, repeat: int, jobs: int, store: Path, extra: list[str]) -> dict:
    command = [sys.executable, "-m", "bench", "run", "--suite", str(SUITE), "--repeat",
               str(repeat), "--jobs", str(jobs), "--executor", executor, "--store", str(store),
               "--no-report", *extra]  # fmt: skip
    cpu0, t0 = tree_cpu(), time.perf_counter()
    with open(store.with_suffix(".log"), "w") as log:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        sampler = Sampler(proc.pid)
        code = proc.wait()
    wall = time.perf_counter() - t0
    with contextlib.suppress(ChildProcessError):  # orphans handed to us: reap them all
        while True:
            os.waitpid(-1, 0)
    workers = sampler.stop()
    cpu = tree_cpu() - cpu0
    with sqlite3.connect(store) as conn:
        run_id = conn.execute("SELECT run_id FROM sweeps ORDER BY started_at DESC").fetchone()[0]
        n, run_cpu, run_wall = conn.execute(
            "SELECT COUNT(*), SUM(cpu_s), SUM(wall_s) FROM runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        stamps = [
            r[0]
            for r in conn.execute(
                "SELECT started_at FROM runs WHERE run_id = ? ORDER BY started_at", (run_id,)
            )
        ]
    steady = _steady_rate(stamps)
    return {
        "executor": executor,
        "exit": code,
        "run_id": run_id,
        "runs": n,
        "wall_s": round(wall, 2),
        "runs_per_s": round(n / wall, 1),
        "steady_runs_per_s": None if steady is None else round(steady, 1),
        "tree_cpu_s": round(cpu, 2),
        "workers_cpu_s": round(workers.get("worker", 0.0), 2),
        "helpers_cpu_s": round(workers.get("helper", 0.0), 2),
        "runs_cpu_s": round(run_cpu or 0.0, 3),
        "runs_wall_s": round(run_wall or 0.0, 3),
        "harness_cpu_ms_per_run": round(1000 * (cpu - (run_cpu or 0.0)) / max(1, n), 2),
    }


def _steady_rate(stamps: list[str]) -> float | None:
    """Runs per second between the 10 % and 90 % marks of the runs' start times."""
    from datetime import datetime

    if len(stamps) < 50:
        return None
    lo, hi = len(stamps) // 10, len(stamps) * 9 // 10
    a, b = (datetime.fromisoformat(stamps[i]) for i in (lo, hi))
    seconds = (b - a).total_seconds()
    return (hi - lo) / seconds if seconds > 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="x 100 runs (at most 1000)")
    parser.add_argument("--base-repeat", type=int, default=0,
                        help="also sweep this many repeats: the difference is per extra run")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--executor", nargs="+", default=["local", "dask"])
    parser.add_argument("--rounds", type=int, default=1, help="alternate the executors N times")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    parser.add_argument("extra", nargs="*", help="more arguments for `bench run` (after --)")
    args = parser.parse_args()
    become_subreaper()
    results = []
    with tempfile.TemporaryDirectory(prefix="runner-overhead-") as folder:
        for round_ in range(args.rounds):
            for executor in args.executor:
                for repeat in [r for r in (args.base_repeat, args.repeat) if r]:
                    store = Path(folder) / f"{executor}-{repeat}-{round_}.sqlite"
                    result = sweep(executor, repeat, args.jobs, store, args.extra)
                    result["repeat"], result["round"] = repeat, round_
                    results.append(result)
                    print(json.dumps(result), flush=True)
                    if result["exit"] != 0:
                        print(store.with_suffix(".log").read_text()[-3000:], file=sys.stderr)
    if args.base_repeat:
        for executor in args.executor:
            for round_ in range(args.rounds):
                pick = {r["repeat"]: r for r in results
                        if r["executor"] == executor and r["round"] == round_}  # fmt: skip
                big, small = pick[args.repeat], pick[args.base_repeat]
                extra_runs = big["runs"] - small["runs"]
                own = (big["tree_cpu_s"] - big["runs_cpu_s"]) - (
                    small["tree_cpu_s"] - small["runs_cpu_s"]
                )
                rate = extra_runs / (big["wall_s"] - small["wall_s"])
                line = {"executor": executor, "round": round_, "extra_runs": extra_runs,
                        "harness_cpu_ms_per_extra_run": round(1000 * own / extra_runs, 2),
                        "runs_per_s_extra": round(rate, 1)}  # fmt: skip
                results.append(line)
                print(json.dumps(line), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
