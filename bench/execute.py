"""Execute planned runs locally or on a Dask cluster; store each record as it finishes.

Local: one single-threaded, solver-free parent forks every run (``bench.measure``) and keeps
up to ``jobs`` of them going at once. Dask: runs go to the workers in batches (one task
runs several, about 0.5 s of them: no scheduler round trip per short run), where a fresh
helper process (``bench.remote``) forks each run from itself, because forking from a
worker's thread pool is not safe; the Measurements come back and the parent stores them.

Either way runs go in plan order through ``bench.schedule.SizeGate``: a configuration that
hit its limit on a board is not run on larger ones (those runs are stored as skipped, not
as timeouts). Local runs are pinned one per core (``bench.schedule.CoreSlots``).

Either way an ``infeasible`` claim is cross-checked as records arrive: when another
encoding holds a verified solution of the same instance in the same sweep, the claim
becomes ``wrong`` (stored at once, updated in place if the solution arrives later).

Either way a run the harness or the cluster lost (``bench.lost``: a dead worker, helper or
scheduler, a full temporary disk) is not stored but counted in ``Sweep.lost``; a loss every
later run would share stops the sweep (``SweepStopped``), unfinished and resumable.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any

from bench import lost, skips, store
from bench.measure import RunningRun, start_run, wait_any
from bench.plan import PlannedRun
from bench.record import RunRecord
from bench.schedule import CoreSlots, SizeGate
from bench.task import Measurement
from models import registry
from models.base import ERROR, INFEASIBLE, SOLVED, WRONG
from models.errors import SweepStopped, UsageError

#: stored solutions larger than this (JSON characters) are dropped from the record, but for
#: a ``wrong`` run's: the answer the checker refused is always kept
MAX_SOLUTION_CHARS = int(os.environ.get("PUZZLE_BENCH_MAX_SOLUTION_CHARS", "200000"))


def new_run_id() -> str:
    """Sortable and unique enough: UTC time plus 4 random hex digits."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Sweep:
    """The parent side of a sweep: builds records, cross-checks, stores, reports progress."""

    def __init__(
        self,
        conn,
        run_id: str,
        suite: str,
        environment: dict[str, Any],
        on_record: Callable[[RunRecord], None] | None = None,
        on_skip: Callable[[PlannedRun, str], None] | None = None,
        on_lost: Callable[[PlannedRun, str], None] | None = None,
    ):
        self.conn, self.run_id, self.suite = conn, run_id, suite
        self.environment = environment
        self.on_record = on_record or (lambda record: None)
        self.on_skip = on_skip or (lambda planned, reason: None)
        self.on_lost = on_lost or (lambda planned, reason: None)
        #: runs the harness or the cluster lost (not stored), with why
        self.lost: list[tuple[PlannedRun, str]] = []
        #: set when a loss means every later run would be lost too: the sweep stops
        self.stop_reason = ""
        #: the runs earlier sessions of this sweep stored (a resume), until ``gate`` read them;
        #: the runs stored since are not kept here: the parent forks every run, and a copy
        #: of every record would make each fork of a long sweep dearer (``records`` reads
        #: them all back from the store once the runs are done)
        self._earlier: list[RunRecord] = store.stored_records(conn, run_id)
        self.stored_before = len(self._earlier)
        #: runs this sweep session stored
        self.ran = 0
        self.skipped: list[tuple[PlannedRun, str]] = skips.stored(conn, run_id)
        self.solved_by: dict[tuple[str, str], str] = {}
        self.claims: dict[tuple[str, str], list[RunRecord]] = {}
        self.refuted = 0
        for record in self._earlier:
            self._note(record)

    def record(
        self,
        planned: PlannedRun,
        result: Measurement,
        started_at: str,
        loaded: registry.LoadedInstance | None,
        host: str,
        provenance: dict[str, str] | None = None,
    ) -> RunRecord | None:
        """Turn one measurement into a stored record; returns it (possibly marked wrong), or
        None for a run lost to its temporary disk (not stored; the sweep is to stop).

        ``provenance``: solver version and encoding hash as found where the run ran (a Dask
        worker), and the size and hash of a board the run generated itself (``loaded`` is
        None then); missing values come from the sweep's own environment.
        """
        fault = lost.temp_disk_fault(result.error, host) if result.status == ERROR else None
        if fault:
            self.lose(planned, fault)
            self.stop_reason = fault
            return None
        provenance = provenance or {}
        cls = registry.get_encoding(planned.puzzle, planned.encoding)
        key = f"{planned.puzzle}/{planned.encoding}"
        solution = result.solution
        if (  # a wrong answer is evidence: kept whatever its size
            solution is not None
            and result.status != WRONG
            and len(json.dumps(solution)) > MAX_SOLUTION_CHARS
        ):
            solution = None
        record = RunRecord.assemble(
            planned,
            result,
            run_id=self.run_id,
            started_at=started_at,
            suite=self.suite,
            instance_hash=loaded.content_hash
            if loaded is not None
            else provenance.get("instance_hash", ""),
            size=loaded.size if loaded is not None else provenance.get("size") or _size(planned),
            solver=cls.solver,
            solver_version=provenance.get("solver_version")
            or self.environment.get("solvers", {}).get(key, ""),
            encoding_hash=provenance.get("encoding_hash")
            or self.environment.get("encoding_hashes", {}).get(key, ""),
            overhead_s=result.overhead_s,
            host=host,
            solution=solution,
        )
        refuted = self._note(record)
        store.insert_run(self.conn, record)
        for other in refuted:
            if other is not record:
                store.mark_wrong(self.conn, other)
        self.ran += 1
        self.on_record(record)
        record.solution = None  # stored: a long sweep's parent (forked per run) stays small
        return record

    def lose(self, planned: PlannedRun, reason: str) -> None:
        """A run the harness or the cluster lost: counted, never stored (``bench.lost``)."""
        self.lost.append((planned, reason))
        self.on_lost(planned, reason)

    def stopped(self, why: str, in_flight: int, not_started: int) -> SweepStopped:
        """The error that stops this sweep: ``why``, and how many runs it leaves undone."""
        message = lost.stopped_message(self.run_id, why, len(self.lost) + in_flight, not_started)
        return SweepStopped(message)

    def skip(self, planned: PlannedRun, reason: str, size: str) -> None:
        """Store a run that will not be run (``bench.skips``), never as a measured status."""
        skips.insert(self.conn, self.run_id, planned, size, reason)
        self.skipped.append((planned, reason))
        self.on_skip(planned, reason)

    def gate(
        self, todo: list[PlannedRun], instances: dict[tuple[str, str], registry.LoadedInstance]
    ) -> SizeGate:
        """The size gate for ``todo``, knowing the limits this sweep's stored runs hit."""
        gate = SizeGate(todo, {(r.puzzle, r.instance): _size_in(instances, r) for r in todo})
        for record in self._earlier:
            gate.finished(PlannedRun.of(record), record.status, False, record.wall_s)
        self._earlier = []
        return gate

    def records(self) -> list[RunRecord]:
        """Every stored run of the sweep (earlier sessions' too), as the store holds them
        now (refuted claims marked wrong): for the summary, once the runs are done."""
        return store.stored_records(self.conn, self.run_id)

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


def _size_in(instances: dict[tuple[str, str], registry.LoadedInstance], planned: PlannedRun) -> str:
    """A planned run's board size: from the loaded board, else from its gen: spec."""
    loaded = instances.get((planned.puzzle, planned.instance))
    return loaded.size if loaded is not None else _size(planned)


def _size(planned: PlannedRun) -> str:
    """The size label of a gen: board from its spec (when its run never made it)."""
    try:
        _, rows, cols, _, _ = registry.parse_generated_spec(planned.instance)
    except ValueError:
        return ""
    return f"{rows}x{cols}"


def _next_run(
    gate: SizeGate,
    queue: deque[PlannedRun],
    sweep: Sweep,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    busy: bool,
) -> PlannedRun | None:
    """The next run to start, or None to wait for one in flight (``busy``); the runs the
    gate skips on the way are stored as skipped."""
    item, skipped = gate.take(queue)
    for run, reason in skipped:
        sweep.skip(run, reason, _size_in(instances, run))
    if item is None and not busy and gate.parked:
        gate.unpark_all()  # cannot happen (a wait needs a run pending)
    if item is None and not busy and queue:
        item = queue.popleft()
    return item


def run_local(
    planned: Iterable[PlannedRun],
    sweep: Sweep,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    jobs: int = 1,
    on_start: Callable[[PlannedRun], None] | None = None,
    on_tick: Callable[[], None] | None = None,
    pin: bool = True,
) -> None:
    """Fork every run from this (single-threaded) process, at most ``jobs`` at a time, each
    pinned to a core of its own (``pin``, when there are at least ``jobs`` cores)."""
    queue = deque(planned)
    gate = sweep.gate(list(queue), instances)
    cores = CoreSlots(jobs, pin)
    active: dict[int, tuple[PlannedRun, RunningRun, str, int | None]] = {}
    host = socket.gethostname()
    try:
        while queue or active or gate.parked:
            while (queue or gate.parked) and len(active) < max(1, jobs):
                item = _next_run(gate, queue, sweep, instances, busy=bool(active))
                if item is None:
                    break
                loaded = instances.get((item.puzzle, item.instance))
                core = cores.acquire(item)
                try:  # a gen: board not made yet is made by the run, inside its limits
                    run = start_run(item.task(), loaded.instance if loaded else None, core)
                except OSError as err:
                    if not lost.is_machine_error(err):
                        raise
                    why = f"cannot make a run's temporary files: {err.strerror} ({err.filename})"
                    raise sweep.stopped(why, len(active), len(queue) + gate.parked + 1) from None
                active[run.pid] = (item, run, now_iso(), core)
                if on_start:
                    on_start(item)
            for run in wait_any([entry[1] for entry in active.values()]):
                item, _, started_at, core = active.pop(run.pid)
                cores.release(core)
                result = run.finish()
                key = (item.puzzle, item.instance)
                if key not in instances and result.made_instance is not None:  # made by this run
                    rules = registry.get_puzzle(item.puzzle)
                    size = rules.size_of(result.made_instance)
                    instances[key] = registry.LoadedInstance(*key, result.made_instance, size)
                record = sweep.record(item, result, started_at, instances.get(key), host)
                _finished(gate, item, record)
            if sweep.stop_reason:  # the runs still in flight are stopped below, not stored
                raise sweep.stopped(sweep.stop_reason, len(active), len(queue) + gate.parked)
            if on_tick:
                on_tick()
    finally:
        for _, run, _, _ in active.values():  # interrupted: no run (or its files) outlives it
            run.abort()


def _finished(gate: SizeGate, item: PlannedRun, record: RunRecord | None) -> None:
    """Tell the size gate a run ended (a lost run ends with no status and stops nothing)."""
    if record is None:
        gate.finished(item, "")
    else:
        gate.finished(item, record.status, wall_s=record.wall_s)


def _quiet_dask() -> None:
    """Silence Dask's loggers in this process: the sweep says what went wrong in one line."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def reach_scheduler(address: str) -> None:
    """Open and close one connection to the scheduler at ``address`` (TLS from Dask's
    configuration, as the client's), within ``distributed.comm.timeouts.connect``; a
    scheduler that cannot be reached is the harness's fault (exit 3), found before the
    sweep is stored."""
    import asyncio

    from distributed.comm import connect
    from distributed.security import Security

    async def probe() -> None:
        comm = await connect(address, **Security().get_connection_args("client"))
        await comm.close()

    try:
        asyncio.run(probe())
    except ValueError as err:  # not an address of a known protocol
        raise UsageError(f"--scheduler {address}: {err}") from None
    except (OSError, TimeoutError) as err:
        raise SweepStopped(f"cannot reach the scheduler at {address}") from err


@contextlib.contextmanager
def dask_scheduler(address: str | None, workers: int) -> Iterator[str]:
    """``address`` as given, or a LocalCluster on 127.0.0.1 for the sweep's length: one
    single-threaded worker process per core (Dask's convention when no scheduler is given)."""
    if address:
        yield address
        return
    from distributed import LocalCluster

    cluster = LocalCluster(
        host="127.0.0.1", n_workers=workers, threads_per_worker=1, processes=True,
        dashboard_address=None,
    )  # fmt: skip
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


#: a Dask task holds as many runs as take about this long (measured as the sweep goes)
BATCH_TARGET_S = 0.5
#: and at most this many: a lost worker loses at most one batch of runs
MAX_BATCH = 200
#: batches queued or running per worker: one runs while the next waits, no idle worker
BATCHES_PER_WORKER = 2
#: with no worker connected, say so (and how many runs remain) at most this often
NO_WORKER_NOTICE_S = 30.0


class _BatchSizer:
    """How many runs go into the next Dask task: ``BATCH_TARGET_S`` over the seconds a run
    took in the batches so far (one run a task until a batch came back), at most
    ``MAX_BATCH``, and never more than an even share of what remains among the workers'
    batches (so the sweep's end does not wait for one long batch)."""

    def __init__(self) -> None:
        self.runs, self.seconds = 0, 0.0

    def measured(self, runs: int, seconds: float) -> None:
        self.runs, self.seconds = self.runs + runs, self.seconds + max(0.0, seconds)

    def size(self, remaining: int, slots: int) -> int:
        if not self.runs:
            return 1
        per_run = self.seconds / self.runs
        wanted = MAX_BATCH if per_run <= 0 else int(BATCH_TARGET_S / per_run)
        share = -(-remaining // max(1, slots))  # ceil
        return max(1, min(wanted, MAX_BATCH, share))


class _WorkerCount:
    """Workers connected to the scheduler, asked at most every ``every`` seconds (each ask
    is a round trip to the scheduler)."""

    def __init__(self, client, every: float = 2.0) -> None:
        self.client, self.every = client, every
        self._count, self._at = 0, None

    def __call__(self, fresh: bool = False) -> int:
        now = time.monotonic()
        if fresh or self._at is None or now - self._at >= self.every:
            try:
                self._count = len(self.client.scheduler_info().get("workers", {}))
            except Exception:
                self._count = 0
            self._at = now
        return self._count


def _completed(batches: dict, client) -> list:
    """The batches done within a second (those cancelled with a lost scheduler too)."""
    from distributed import wait

    try:
        done, _ = wait(list(batches), timeout=1.0, return_when="FIRST_COMPLETED")
    except TimeoutError:
        done = []
    except Exception:  # cancelled futures: the scheduler is gone (their result() says so)
        done = [f for f in batches if f.status != "pending"]
    if not done and client.status not in ("running", "connecting"):
        done = list(batches)
    return list(done)


def run_dask(
    planned: Iterable[PlannedRun],
    sweep: Sweep,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    scheduler: str,
    on_start: Callable[[PlannedRun], None] | None = None,
    on_tick: Callable[[], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> None:
    """Send the runs to Dask workers in batches (one task runs several, each forked by a
    helper process on the worker: ``remote.run_batch_on_worker``); store results.

    Batches keep a sweep of short runs from paying a scheduler round trip per run; a few of
    them are in flight per worker at a time. A batch lost with its worker loses its runs
    (not stored: ``--resume`` runs them). With no worker connected, ``notice`` gets one
    line at most every ``NO_WORKER_NOTICE_S`` saying so, with the runs that remain.
    """
    from distributed import Client

    from bench import remote

    plugins = os.environ.get(registry.PLUGINS_ENV, "")
    queue = deque(planned)
    gate = sweep.gate(list(queue), instances)
    sizer = _BatchSizer()
    say = notice or (lambda line: print(line, file=sys.stderr, flush=True))
    with Client(scheduler) as client:  # timeout: Dask's distributed.comm.timeouts.connect
        if not sweep.environment.get("workers"):  # each worker measures its own machine
            try:
                puzzles = sorted({r.puzzle for r in queue})
                workers = client.run(remote.worker_environment, puzzles)
            except Exception as err:  # an environment is worth having, not worth failing for
                workers = {"error": f"{type(err).__name__}: {err}"}
            sweep.environment["workers"] = workers
            store.merge_environment(sweep.conn, sweep.run_id, {"workers": workers})
        batches: dict[Any, list[PlannedRun]] = {}
        in_flight = 0  # runs in the batches sent
        workers_now = _WorkerCount(client)

        def submit_ready() -> None:
            nonlocal in_flight
            slots = BATCHES_PER_WORKER * max(1, workers_now())
            while (queue or gate.parked) and len(batches) < slots:
                size = sizer.size(len(queue) + gate.parked + in_flight, slots)
                batch: list[PlannedRun] = []
                while (queue or gate.parked) and len(batch) < size:
                    busy = bool(batches) or bool(batch)
                    item = _next_run(gate, queue, sweep, instances, busy=busy)
                    if item is None:
                        break
                    batch.append(item)
                if not batch:
                    return
                future = client.submit(
                    remote.run_batch_on_worker, [asdict(r.task()) for r in batch], plugins,
                    pure=False, key=f"bench-runs-{secrets.token_hex(6)}",
                )  # fmt: skip
                batches[future] = batch
                in_flight += len(batch)
                if on_start:
                    for item in batch:
                        on_start(item)

        submit_ready()
        last_notice = None
        while batches:
            done = _completed(batches, client)
            if not done:
                submit_ready()  # workers that joined meanwhile get batches too
                if on_tick:
                    on_tick()
                now = time.monotonic()
                if workers_now() == 0 and (
                    last_notice is None or now - last_notice >= NO_WORKER_NOTICE_S
                ):
                    last_notice = now
                    left = in_flight + len(queue) + gate.parked
                    say(f"waiting for Dask workers: none is connected to {scheduler};"
                        f" {left} run{'s' if left != 1 else ''} remain")  # fmt: skip
                continue
            last_notice = None
            for future in done:
                batch = batches.pop(future)
                in_flight -= len(batch)
                try:
                    result = future.result()
                    replies, seconds = result["replies"], result["seconds"]
                except Exception as err:  # never a run's own failure (that comes as a reply)
                    if client.status != "running":  # the scheduler is gone, and every run
                        _quiet_dask()  # its client would log the reconnection it gives up on
                        for item in batch:
                            sweep.lose(item, f"{type(err).__name__}: {err}")
                        why = f"lost the connection to the scheduler at {scheduler}"
                        raise sweep.stopped(why, in_flight, len(queue) + gate.parked) from None
                    replies = [remote.lost_reply(f"{type(err).__name__}: {err}")] * len(batch)
                    seconds = 0.0  # e.g. KilledWorker: each run of the batch is lost
                measured = [r for r in replies if not r.get("lost")]
                if measured:
                    sizer.measured(len(measured), seconds * len(measured) / len(replies))
                for item, reply in zip(batch, replies, strict=True):
                    _stored_reply(sweep, gate, instances, item, reply)
                if sweep.stop_reason:
                    raise sweep.stopped(sweep.stop_reason, in_flight, len(queue) + gate.parked)
            submit_ready()
            if on_tick:
                on_tick()


def _stored_reply(
    sweep: Sweep,
    gate: SizeGate,
    instances: dict[tuple[str, str], registry.LoadedInstance],
    item: PlannedRun,
    reply: dict[str, Any],
) -> None:
    """One run's reply from a worker: stored as a record, or counted lost."""
    from bench import remote

    record = None
    if reply.get("lost"):  # the worker's helper died, hung or could not start the run
        sweep.lose(item, reply["lost"])
        sweep.stop_reason = sweep.stop_reason or (
            lost.temp_disk_fault(reply["lost"], reply.get("host", "")) or ""
        )
    else:
        result = remote.measurement_from(reply)
        loaded = instances.get((item.puzzle, item.instance))
        started_at = reply.get("started_at") or now_iso()
        keys = ("solver_version", "encoding_hash", "size", "instance_hash")
        worker = {k: reply[k] for k in keys if reply.get(k)}
        record = sweep.record(item, result, started_at, loaded, reply["host"], worker)
    _finished(gate, item, record)
