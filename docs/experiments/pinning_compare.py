"""Set sweeps of one suite side by side, grouped by how they were run.

Per mode: the geometric mean over (instance, encoding) of the median wall and CPU time
divided by the first mode's, the range of those ratios, and the median of max/min wall
time over each configuration's samples (a spread: 1.0 = every sample alike).

    python docs/experiments/pinning_compare.py STORE j1=RUN,RUN j2-pinned=RUN,RUN ...
"""

from __future__ import annotations

import sys

import numpy as np

from bench import store

KEYS = ["instance", "encoding"]


def main(store_path: str, groups: list[str]) -> None:
    modes = dict(group.split("=", 1) for group in groups)
    ids = {run: mode for mode, runs in modes.items() for run in runs.split(",")}
    frame = store.load(store_path, list(ids))
    frame = frame[frame["status"].isin(["solved", "infeasible"])].assign(
        mode=lambda f: f["run_id"].map(ids)
    )
    medians = frame.groupby(["mode", *KEYS])[["wall_s", "cpu_s"]].median()
    base = medians.loc[next(iter(modes))]
    print(f"{'mode':14} {'wall ratio':>10} {'range':>13} {'cpu ratio':>10} {'spread':>7}")
    for mode in modes:
        both = medians.loc[mode].merge(
            base, left_index=True, right_index=True, suffixes=("", "_base")
        )
        wall = np.log(both["wall_s"] / both["wall_s_base"])
        cpu = np.log(both["cpu_s"] / both["cpu_s_base"])
        samples = frame[frame["mode"] == mode].groupby(KEYS)["wall_s"]
        spread = (samples.max() / samples.min()).median()
        span = f"{np.exp(wall.min()):.2f}-{np.exp(wall.max()):.2f}"
        print(f"{mode:14} {np.exp(wall.mean()):10.3f} {span:>13} {np.exp(cpu.mean()):10.3f}"
              f" {spread:7.2f}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
