"""Set sweeps of the same suite side by side: per run id, the geometric mean over
(instance, encoding) of its median wall, CPU and solve time divided by the first run's.

    python docs/experiments/pinning_compare.py RUN_JOBS1 RUN_JOBS2_UNPINNED RUN_JOBS2_PINNED
"""

from __future__ import annotations

import sys

import numpy as np

from bench import store

KEYS = ["instance", "encoding"]
MEASURES = ("wall_s", "cpu_s", "solve_s")


def main(run_ids: list[str], store_path: str = str(store.DEFAULT_STORE)) -> None:
    frame = store.load(store_path, run_ids)
    frame = frame[frame["status"].isin(["solved", "infeasible"])]
    medians = frame.groupby(["run_id", *KEYS])[list(MEASURES)].median()
    spread = frame.groupby(["run_id", *KEYS])["wall_s"].agg(lambda s: s.max() / s.min())
    base = medians.loc[run_ids[0]]
    print(f"{'run id':24} {'runs':>5} " + " ".join(f"{m + ' ratio':>14}" for m in MEASURES)
          + f" {'max/min wall':>13} {'sweep s':>8}")  # fmt: skip
    for run_id in run_ids:
        mine = medians.loc[run_id].join(base, rsuffix="_base", how="inner")
        ratios = [np.exp(np.log(mine[m] / mine[f"{m}_base"]).mean()) for m in MEASURES]
        runs = frame[frame["run_id"] == run_id]
        span = runs["started_at"].agg(["min", "max"])
        took = (np.datetime64(span["max"][:23]) - np.datetime64(span["min"][:23])) / np.timedelta64(
            1, "s"
        )
        print(f"{run_id:24} {len(runs):5d} " + " ".join(f"{r:14.3f}" for r in ratios)
              + f" {spread.loc[run_id].median():13.3f} {took:8.1f}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
