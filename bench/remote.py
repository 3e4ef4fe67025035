"""The worker side of the Dask executor: runs go through a helper process on the worker.

A Dask worker runs tasks in a thread pool, and forking from a threaded process is not
safe; so each worker thread keeps one single-threaded helper, ``python -m bench.remote``,
which has imported the registry and the solver libraries once and forks every run from
itself with ``run_isolated``, exactly like the local executor. A Dask task holds a batch
of runs (``run_batch_on_worker``), which the helper runs one after the other. Tasks and
Measurements travel as JSON lines over the helper's stdin and stdout. A helper that dies or hangs is
replaced, and its run is *lost* (``bench.lost``: not stored, run again by ``--resume``),
never recorded as the encoding's error: so is a run the helper could not start.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any

from bench.measure import KILL_GRACE_S
from bench.suites_dir import REPO_ROOT
from bench.task import Measurement

#: time allowed beyond a run's own limit and kill grace (helper start-up, imports, verification)
HELPER_SLACK_S = 120.0
#: reply lines start with this, so anything else a library prints is ignored
REPLY = "BENCH-REPLY "

_local = threading.local()


def run_on_worker(task: dict[str, Any], plugins: str = "") -> dict[str, Any]:
    """Called by Dask on a worker: run ``task`` (RunTask fields) in this thread's helper."""
    helper = _helper(plugins)
    limit = task.get("time_limit_s")
    timeout = None if limit is None else limit + KILL_GRACE_S + HELPER_SLACK_S
    try:
        helper.stdin.write(json.dumps(task) + "\n")
        helper.stdin.flush()
        while True:
            ready, _, _ = select.select([helper.stdout], [], [], timeout)
            if not ready:
                _drop(helper)
                return lost_reply("the helper process on the worker did not answer in time")
            line = helper.stdout.readline()
            if not line:
                code = helper.wait()
                _drop(helper)
                return lost_reply(f"the helper process on the worker died ({code})")
            if line.startswith(REPLY):
                return json.loads(line[len(REPLY) :])
    except (OSError, ValueError) as err:
        _drop(helper)
        return lost_reply(f"the helper process on the worker failed: {err}")


def run_batch_on_worker(tasks: list[dict[str, Any]], plugins: str = "") -> dict[str, Any]:
    """Called by Dask on a worker: run several tasks, one after the other, each forked by
    this thread's helper exactly as ``run_on_worker`` runs one (its own process, limits,
    measurement). One Dask task for many short runs: no scheduler round trip per run.

    Returns ``{"replies": [one reply per task, in order], "seconds": wall time of the
    batch}``. A run the helper could not measure is a lost reply (``bench.lost``); once
    the helper died or hung, the batch's later runs are lost too (not run: the sweep's
    ``--resume`` runs them), so a batch never hides a fault behind a retry.
    """
    begun = time.perf_counter()
    replies: list[dict[str, Any]] = []
    for task in tasks:
        if replies and replies[-1].get("lost") and getattr(_local, "helper", None) is None:
            replies.append(lost_reply(f"not run: {replies[-1]['lost']} earlier in its batch"))
            continue
        replies.append(run_on_worker(task, plugins))
    return {"replies": replies, "seconds": time.perf_counter() - begun}


def _helper(plugins: str) -> subprocess.Popen:
    helper = getattr(_local, "helper", None)
    if helper is not None and helper.poll() is None and _local.plugins == plugins:
        return helper
    if helper is not None:
        _drop(helper)
    env = dict(os.environ)
    if plugins:
        env["PUZZLE_BENCH_PLUGINS"] = plugins
    else:
        env.pop("PUZZLE_BENCH_PLUGINS", None)
    _local.helper = subprocess.Popen(
        [sys.executable, "-m", "bench.remote"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,  # instance paths are relative to the project's root
        env=env,
    )
    _local.plugins = plugins
    return _local.helper


def _drop(helper: subprocess.Popen) -> None:
    helper.kill()
    helper.wait()
    _local.helper = None


def worker_environment(puzzles: list[str] | None = None) -> dict[str, Any]:
    """Run by ``Client.run`` on every worker: its machine, versions (of the encodings of
    ``puzzles``, all when None) and calibration figure."""
    from bench.environment import collect

    return collect(calibrate=True, puzzles=puzzles)


def lost_reply(message: str) -> dict[str, Any]:
    """The reply for a run the worker could not measure (``bench.lost``): no record."""
    return {"lost": message, "host": socket.gethostname(), "started_at": _now()}


def provenance(task_line: str, made: Any = None) -> dict[str, str]:
    """The solver version and encoding hash of a task's encoding as installed on this worker:
    a record says what ran it, even when the client has other versions installed. With
    ``made`` (a board the run generated), also that board's size and content hash."""
    from bench import environment
    from models import registry

    out: dict[str, str] = {}
    try:
        task = json.loads(task_line)
        cls = registry.get_encoding(task["puzzle"], task["encoding"])
        out["solver_version"] = environment.solver_version(cls)
        out["encoding_hash"] = environment.encoding_hash(cls)
        if made is not None:
            board = registry.LoadedInstance(task["puzzle"], task["instance"], made, "")
            out["size"] = registry.get_puzzle(task["puzzle"]).size_of(made)
            out["instance_hash"] = board.content_hash
    except Exception:  # the run's own record says what was wrong with the task
        pass
    return out


class _Boards:
    """The helper's boards, loaded (and checked) once a file rather than once a run, and
    loaded again when the file changed (its size or modification time)."""

    def __init__(self) -> None:
        self._loaded: dict[tuple, Any] = {}

    def get(self, task: Any) -> Any:
        """The task's board, or None for a ``gen:`` board (its run makes it)."""
        from bench.measure import prepare
        from models import registry

        if task.instance.startswith(registry.GENERATED_PREFIX):
            return None
        try:
            info = os.stat(task.instance.split("#", 1)[0])
        except OSError:
            return prepare(task)  # says what is wrong with the file, as a run would
        key = (task.puzzle, task.instance, info.st_size, info.st_mtime_ns)
        if key not in self._loaded:
            if len(self._loaded) > 256:
                self._loaded.clear()
            self._loaded[key] = prepare(task)
        else:  # the board is known: only check the run's encoding and options
            registry.get_encoding(task.puzzle, task.encoding)(task.options)
        return self._loaded[key]


def measurement_from(reply: dict[str, Any]) -> Measurement:
    fields = Measurement.__dataclass_fields__
    return Measurement(**{k: v for k, v in reply.items() if k in fields})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def main() -> int:
    """Helper process: one task (JSON) per stdin line, one Measurement per stdout line."""
    from bench import procs
    from bench.measure import run_isolated, warm_up
    from bench.task import RunTask

    procs.die_with_parent(os.getppid())  # a killed worker takes its helper (and runs) along
    host = socket.gethostname()
    boards = _Boards()
    for line in sys.stdin:
        if not line.strip():
            continue
        started_at = _now()
        try:
            task = RunTask(**json.loads(line))
            # once an encoding: every later run of it forks warm (only the encodings that
            # run, as a local sweep: every other import would be copied at every fork)
            warm_up(encodings=[(task.puzzle, task.encoding)])
            result = run_isolated(task, boards.get(task))
        except Exception as err:  # this worker could not start the run (a missing file, a
            # full temporary disk): the cluster's fault, not the encoding's
            reply = {"lost": f"on {host}: {type(err).__name__}: {err}", "host": host}
            sys.stdout.write(REPLY + json.dumps(reply) + "\n")
            sys.stdout.flush()
            continue
        made, result.made_instance = result.made_instance, None  # a board the run made: not JSON
        reply = {**asdict(result), "host": host, "started_at": started_at}
        reply.update(provenance(line, made))
        sys.stdout.write(REPLY + json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
