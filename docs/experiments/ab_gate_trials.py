"""Trials of the A/B gate (docs/experiments/ab-gate.md): A/A pairs and builds made F times slower.

    python docs/experiments/ab_gate_trials.py --aa 10 --slow 1.5:4 1.3:4 1.2:4 --out DIR

In a clean clone of this checkout's HEAD (made under DIR), branch ``slow-F`` makes
``bool-cpsat``'s build spin for (F - 1) times its own build CPU time (the model, the solver's
work and its counters unchanged). Then, typed as a user types them:

- each A/A pair: ``bench ab HEAD HEAD --suite ci --format json --all --dir DIR/aa-N``
  (the whole ``ci`` suite, the suite's 3 rounds);
- each slow trial: ``bench ab HEAD slow-F --suite ci --encoding bool-cpsat ...`` (caught: the
  A/B exits 1 with a build regression of ``bool-cpsat``).

Prints one Markdown row per A/B (verdict counts, the build rows' intervals, the rounds
measured (more where a verdict was unsure), the base sweeps' run ids, wall seconds and the
load average) and keeps every store under DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ENCODING = "models/sudoku/encodings/bool_cpsat.py"
BUILD = "    def build(self, instance, limits: Limits) -> ModelSize:\n"
SPIN = (
    "    def build(self, instance, limits: Limits) -> ModelSize:\n"
    "        import time as _t\n"
    "        _c0 = _t.process_time()\n"
    "        _size = self._build(instance, limits)\n"
    "        _until = _t.process_time() + ({extra}) * (_t.process_time() - _c0)\n"
    "        while _t.process_time() < _until:\n"
    "            pass\n"
    "        return _size\n\n"
    "    def _build(self, instance, limits: Limits) -> ModelSize:\n"
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def make_clone(out: Path, slow: list[float]) -> Path:
    clone = out / "clone"
    if not clone.exists():
        git(Path.cwd(), "clone", "-q", str(Path.cwd()), str(clone))
    for factor in slow:
        branch = f"slow-{factor:g}"
        if git(clone, "branch", "--list", branch):
            continue
        git(clone, "switch", "-q", "-c", branch, "HEAD")
        file = clone / ENCODING
        text = file.read_text()
        assert BUILD in text, f"{ENCODING} no longer has {BUILD.strip()!r}"
        file.write_text(text.replace(BUILD, SPIN.format(extra=factor - 1), 1))
        git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam",
            f"bool-cpsat builds {factor:g}x slower")  # fmt: skip
        git(clone, "switch", "-q", "-")
    return clone


def trial(clone: Path, name: str, head: str, extra: list[str], out: Path) -> str:
    where = out / name
    begun = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("bench")), "ab", "HEAD", head,
                           "--suite", "ci", *extra, "--format", "json", "--all", "--quiet",
                           "--dir", str(where)], cwd=clone, capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - begun
    load = os.getloadavg()[0]
    if done.returncode not in (0, 1):
        return f"| {name} | exit {done.returncode}: {done.stderr.strip()[-200:]} |"
    doc = json.loads(done.stdout)
    (out / f"{name}.json").write_text(done.stdout)
    builds = [v for v in doc["verdicts"] if v["aspect"] == "build" and v.get("ratio_low")]
    caught = any(v["verdict"] == "regression" and v["config"] == "bool-cpsat" for v in builds)
    intervals = ", ".join(f"{v['puzzle']}/{v['config']} {v['ratio']:.2f} [{v['ratio_low']:.2f}, "
                          f"{v['ratio_high']:.2f}]" for v in builds if v["config"] == "bool-cpsat")  # fmt: skip
    highest = max((v["ratio_low"] for v in builds), default=float("nan"))
    counts = ", ".join(f"{n} {k}" for k, n in sorted(doc["counts"].items()))
    return (f"| {name} | exit {done.returncode} | {counts} | caught: {caught} | {intervals} | "
            f"rounds {doc['rounds']} | "
            f"highest build low {highest:.2f} | {doc['base_runs'][0]} | {wall:.0f} s | load {load:.1f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--aa", type=int, default=10, help="A/A pairs")
    parser.add_argument("--slow", nargs="*", default=["1.5:4", "1.3:4", "1.2:4"],
                        help="FACTOR:TRIALS")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    slow = [(float(s.split(":")[0]), int(s.split(":")[1])) for s in args.slow]
    args.out.mkdir(parents=True, exist_ok=True)
    clone = make_clone(args.out.resolve(), [f for f, _ in slow])
    print(f"clone of {git(clone, 'rev-parse', 'HEAD')[:10]} in {clone}", flush=True)
    for number in range(1, args.aa + 1):
        print(trial(clone, f"aa-{number}", "HEAD", [], args.out.resolve()), flush=True)
    for factor, trials in slow:
        for number in range(1, trials + 1):
            name = f"slow-{factor:g}-{number}"
            print(trial(clone, name, f"slow-{factor:g}", ["--encoding", "bool-cpsat"],
                        args.out.resolve()), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
