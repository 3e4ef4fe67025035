"""The worker side of the Dask executor: run one task in a fresh helper process.

A Dask worker runs tasks in a thread pool, and forking from a threaded process is not
safe; so the task starts ``python -m bench.remote`` (single-threaded, imports the
registry, then forks the run with ``run_isolated`` as the local executor does) and
returns its Measurement as a plain dict. The helper's imports are paid once per run on
the worker, outside the measured times.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.measure import KILL_GRACE_S, Measurement
from models.base import ERROR

REPO_ROOT = Path(__file__).resolve().parent.parent
#: time allowed beyond the run's own limit and kill grace for the helper's start and imports
HELPER_SLACK_S = 120.0


def run_on_worker(task: dict[str, Any], plugins: str = "") -> dict[str, Any]:
    """Called by Dask on a worker: run ``task`` (RunTask fields) in a helper process."""
    env = dict(os.environ)
    if plugins:
        env["PUZZLE_BENCH_PLUGINS"] = plugins
    limit = task.get("time_limit_s")
    timeout = None if limit is None else limit + KILL_GRACE_S + HELPER_SLACK_S
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.remote"],
            input=json.dumps(task),
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,  # instance paths are relative to the project's root
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return failure("the helper process on the worker did not finish in time")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return failure(f"the helper process on the worker failed ({done.returncode}): {tail}")
    return json.loads(lines[-1])


def failure(message: str) -> dict[str, Any]:
    return {
        **asdict(Measurement(ERROR, error=message)),
        "host": socket.gethostname(),
        "started_at": _now(),
    }


def measurement_from(reply: dict[str, Any]) -> Measurement:
    fields = Measurement.__dataclass_fields__
    return Measurement(**{k: v for k, v in reply.items() if k in fields})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def main() -> int:
    """Helper process: read one task (JSON) on stdin, print one Measurement (JSON) line."""
    from bench.execute import warm_up
    from bench.measure import RunTask, run_isolated

    task = RunTask(**json.loads(sys.stdin.read()))
    warm_up()
    started_at = _now()
    result = run_isolated(task)
    reply = {**asdict(result), "host": socket.gethostname(), "started_at": started_at}
    print(json.dumps(reply))
    return 0


if __name__ == "__main__":
    sys.exit(main())
