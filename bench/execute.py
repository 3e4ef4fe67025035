"""Execute planned runs locally or on a Dask cluster; store each record as it finishes.

Local: one single-threaded, solver-free parent forks every run (``bench.measure``) and keeps
up to ``jobs`` of them going at once. Dask: each run goes to a worker, which starts a
fresh helper process (``bench.remote``) that forks the run from itself, because forking
from a worker's thread pool is not safe; the Measurement comes back and the parent stores it.

Either way an ``infeasible`` claim is cross-checked as records arrive: when another
encoding holds a verified solution of the same instance in the same sweep, the claim
becomes ``wrong`` (stored at once, updated in place if the solution arrives later).
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import socket
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any

from bench import store
from bench.measure import Measurement, RunningRun, start_run, wait_any
from bench.record import RunRecord
from bench.suites import PlannedRun
from models import registry
from models.base import INFEASIBLE, SOLVED, WRONG

#: stored solutions larger than this (JSON characters) are dropped from the record
MAX_SOLUTION_CHARS = 200_000
#: modules imported in the parent before the first fork, so no run pays for them
WARM_MODULES = ("ortools.sat.python.cp_model", "z3", "pulp", "highspy", "pysat.solvers")


def new_run_id() -> str:
    """Sortable and unique enough: UTC time plus 4 random hex digits."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def warm_up() -> None:
    """Import every encoding and the usual solver modules once, before any fork."""
    registry.encodings()
    for name in WARM_MODULES:
        try:
            __import__(name)
        except ImportError:
            continue
    gc.collect()
    gc.freeze()  # what the parent holds now is never scanned again, here or in a forked run


class Sweep:
    """The parent side of a sweep: builds records, cross-checks, stores, reports progress."""

    def __init__(
        self,
        conn,
        run_id: str,
        suite: str,
        environment: dict[str, Any],
        on_record: Callable[[RunRecord], None] | None = None,
    ):
        self.conn, self.run_id, self.suite = conn, run_id, suite
        self.environment = environment
        self.on_record = on_record or (lambda record: None)
        self.records: list[RunRecord] = store.stored_records(conn, run_id)
        self.solved_by: dict[tuple[str, str], str] = {}
        self.claims: dict[tuple[str, str], list[RunRecord]] = {}
        self.refuted = 0
        for record in self.records:
            self._note(record)

    def record(
        self,
        planned: PlannedRun,
        result: Measurement,
        started_at: str,
        loaded: registry.LoadedInstance | None,
        host: str,
        provenance: dict[str, str] | None = None,
    ) -> RunRecord:
        """Turn one measurement into a stored record; returns it (possibly marked wrong).

        ``provenance``: solver version and encoding hash as found where the run ran (a Dask
        worker), and the size and hash of a board the run generated itself (``loaded`` is
        None then); missing values come from the sweep's own environment.
        """
        provenance = provenance or {}
        cls = registry.get_encoding(planned.puzzle, planned.encoding)
        key = f"{planned.puzzle}/{planned.encoding}"
        solution = result.solution
        if solution is not None and len(json.dumps(solution)) > MAX_SOLUTION_CHARS:
            solution = None
        record = RunRecord(
            run_id=self.run_id,
            started_at=started_at,
            suite=self.suite,
            case=planned.case,
            puzzle=planned.puzzle,
            instance=planned.instance,
            instance_hash=loaded.content_hash
            if loaded is not None
            else provenance.get("instance_hash", ""),
            size=loaded.size if loaded is not None else provenance.get("size") or _size(planned),
            encoding=planned.encoding,
            options=dict(planned.options),
            solver=cls.solver,
            solver_version=provenance.get("solver_version")
            or self.environment.get("solvers", {}).get(key, ""),
            encoding_hash=provenance.get("encoding_hash")
            or self.environment.get("encoding_hashes", {}).get(key, ""),
            repeat=planned.repeat,
            seed=planned.seed,
            threads=planned.threads,
            time_limit_s=planned.time_limit_s,
            memory_limit_mb=planned.memory_limit_mb,
            status=result.status,
            verified=result.verified,
            build_s=result.build_s,
            solve_s=result.solve_s,
            wall_s=result.wall_s,
            cpu_s=result.cpu_s,
            peak_rss_mb=result.peak_rss_mb,
            overhead_s=result.overhead_s,
            n_vars=result.n_vars,
            n_constraints=result.n_constraints,
            counters=dict(result.counters),
            error=result.error,
            host=host,
            solution=solution,
        )
        refuted = self._note(record)
        store.insert_run(self.conn, record)
        for other in refuted:
            if other is not record:
                store.mark_wrong(self.conn, other)
        self.records.append(record)
        self.on_record(record)
        return record

    def _note(self, record: RunRecord) -> list[RunRecord]:
        """Cross-check: mark infeasible claims wrong once the instance has a verified solution."""
        where = (record.puzzle, record.instance)
        refuted: list[RunRecord] = []
        if record.status == SOLVED and record.verified:
            self.solved_by.setdefault(where, record.encoding)
            refuted = self.claims.pop(where, [])
        elif record.status == INFEASIBLE:
            if where in self.solved_by:
                refuted = [record]
            else:
                self.claims.setdefault(where, []).append(record)
        for claim in refuted:
            claim.status = WRONG
            claim.error = (
                f"claimed infeasible, but {self.solved_by[where]} found a verified solution"
            )
            self.refuted += 1
        return refuted


def _size(planned: PlannedRun) -> str:
    """The size label of a gen: board from its spec (when its run never made it)."""
    try:
        _, rows, cols, _, _ = registry.parse_generated_spec(planned.instance)
    except ValueError:
        return ""
    return f"{rows}x{cols}"


def run_local(
    planned: Iterable[PlannedRun],
    sweep: Sweep,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    jobs: int = 1,
    on_start: Callable[[PlannedRun], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> None:
    """Fork every run from this (single-threaded) process, at most ``jobs`` at a time."""
    queue = deque(planned)
    active: dict[int, tuple[PlannedRun, RunningRun, str]] = {}
    host = socket.gethostname()
    try:
        while queue or active:
            while queue and len(active) < max(1, jobs):
                item = queue.popleft()
                loaded = instances.get((item.puzzle, item.instance))
                # a gen: board not made yet is made by the run, inside its limits
                run = start_run(item.task(), loaded.instance if loaded else None)
                active[run.pid] = (item, run, now_iso())
                if on_start:
                    on_start(item)
            for run in wait_any([entry[1] for entry in active.values()]):
                item, _, started_at = active.pop(run.pid)
                result = run.finish()
                key = (item.puzzle, item.instance)
                if key not in instances and result.instance is not None:  # made by this run
                    rules = registry.get_puzzle(item.puzzle)
                    size = rules.size_of(result.instance)
                    instances[key] = registry.LoadedInstance(*key, result.instance, size)
                sweep.record(item, result, started_at, instances.get(key), host)
            if on_tick:
                on_tick()
    finally:
        for _, run, _ in active.values():  # interrupted: no run (or its files) outlives the sweep
            run.abort()


def run_dask(
    planned: Iterable[PlannedRun],
    sweep: Sweep,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    scheduler: str,
    on_start: Callable[[PlannedRun], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> None:
    """Send each run to a Dask worker (a fresh helper process there forks it); store results."""
    from distributed import Client, as_completed

    from bench import remote

    plugins = os.environ.get(registry.PLUGINS_ENV, "")
    with Client(scheduler, timeout="30s") as client:
        if not sweep.environment.get("workers"):  # each worker measures its own machine
            try:
                workers = client.run(remote.worker_environment)
            except Exception as err:  # an environment is worth having, not worth failing for
                workers = {"error": f"{type(err).__name__}: {err}"}
            sweep.environment["workers"] = workers
            store.merge_environment(sweep.conn, sweep.run_id, {"workers": workers})
        futures = {}
        for item in planned:
            future = client.submit(
                remote.run_on_worker, asdict(item.task()), plugins, pure=False,
                key=f"bench-run-{secrets.token_hex(6)}",
            )  # fmt: skip
            futures[future] = item
            if on_start:
                on_start(item)
        for future in as_completed(futures):
            item = futures[future]
            try:
                reply = future.result()
            except Exception as err:  # the worker itself failed: keep the sweep going
                reply = remote.failure(f"dask task failed: {type(err).__name__}: {err}")
            result = remote.measurement_from(reply)
            loaded = instances.get((item.puzzle, item.instance))
            started_at = reply.get("started_at") or now_iso()
            keys = ("solver_version", "encoding_hash", "size", "instance_hash")
            worker = {k: reply[k] for k in keys if reply.get(k)}
            sweep.record(item, result, started_at, loaded, reply["host"], worker)
            if on_tick:
                on_tick()
