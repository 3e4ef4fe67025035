"""The child side of an isolated run: get ready, wait for the go, build and solve, report.

Runs in the process forked by ``bench.measure.start_run`` and never returns: it ends with
``os._exit`` after writing its pickled report (length and end time first, ``LENGTH``) to
the parent's pipe. It makes itself a process group (so a kill reaches a solver's own
processes), asks to die with its parent, sends its output to a file, and points every
temporary file (PuLP's ``.mps``/``.sol``, CBC's log) at the run's own folder, which the
parent deletes when the run ends.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import os
import pickle
import signal
import struct
import tempfile
import time
import traceback
from typing import TYPE_CHECKING, Any

from bench import procs
from models import registry, solvers
from models.base import ERROR, MEMOUT, SOLVED, Limits

if TYPE_CHECKING:
    from bench.task import RunTask

#: first byte a child sends: it is set up and waits for the go (followed by ``CPU``)
READY = b"R"
#: after READY: the CPU seconds the child spent setting itself up (not part of the run)
CPU = struct.Struct("<d")
#: the report is preceded by its length, so the parent knows when it is complete
#: (and by the monotonic time at which the child wrote it: the end of the run's wall time)
LENGTH = struct.Struct("<Qd")


def child(
    task: RunTask,
    instance: Any,
    write_fd: int,
    go_fd: int,
    output_fd: int,
    parent: int,
    folder: str,
) -> None:
    """Get ready, wait for the go, run the encoding, send a pickled report; exit without cleanup."""
    code = 0
    at_go: procs.Usage | None = None
    keep_alive: list = []  # the encoding object, never freed (os._exit ends the process)
    gc.freeze()  # the parent's objects: never scanned (and so never copied) by the run's GC
    try:
        procs.die_with_parent(parent)
        if faulthandler.is_enabled():
            faulthandler.disable()  # a crash is recorded as data; no dump over the progress bar
        os.dup2(output_fd, 1)  # solver logs go to a file; their tail joins an error message
        os.dup2(output_fd, 2)
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for name in ("TMPDIR", "TMP", "TEMP"):  # solver files (PuLP's .mps, CBC's log) go here
            os.environ[name] = folder
        tempfile.tempdir = folder
        os.write(write_fd, READY + CPU.pack(procs.cpu_s()))
        if os.read(go_fd, 1) != b"G":
            os._exit(4)  # the parent gave up on this run
        os.close(go_fd)
        at_go = procs.Usage.now()
        report = run_encoding(task, instance, keep_alive)
    except MemoryError:
        report = {"status": MEMOUT, "error": "MemoryError in the run"}
    except BaseException as err:  # the run's fault is data, not a crash of the sweep
        report = {"status": ERROR, "error": short_traceback(err)}
    if at_go is not None:  # the run's own CPU and memory, over the same window as its wall
        with contextlib.suppress(BaseException):
            report.update(at_go.since())
    try:
        data = pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(LENGTH.pack(len(data), time.perf_counter()) + data)
    except BaseException:
        code = 3
    os._exit(code)


def run_encoding(task: RunTask, instance: Any, keep_alive: list) -> dict[str, Any]:
    """Build (constructing the encoding object counts as building) and solve, each timed.

    The encoding goes into ``keep_alive`` so that it is never torn down before the report
    is sent (freeing a solver's objects can take tens of milliseconds; ``os._exit`` skips it).
    """
    cls = registry.get_encoding(task.puzzle, task.encoding)
    seed = solvers.solver_seed(cls.solver, task.seed)  # the solver's range (limits.py)
    report: dict[str, Any] = {}
    begun = time.perf_counter()
    generate_s = 0.0
    if instance is None:  # a gen: board: made here, inside the run's limits
        instance = registry.load_instance(task.instance, task.puzzle).instance
        generate_s = time.perf_counter() - begun
        report["instance"] = instance
    t0, c0 = time.perf_counter(), time.process_time()
    encoding = cls(task.options)
    keep_alive.append(encoding)
    size = encoding.build(instance, Limits(task.time_limit_s, seed, task.threads, task.options))
    t1, c1 = time.perf_counter(), time.process_time()
    report.update(
        build_s=t1 - t0, build_cpu_s=c1 - c0, n_vars=size.n_vars, n_constraints=size.n_constraints
    )
    spent = t1 - begun  # generating a board counts against the limit too
    remaining = None if task.time_limit_s is None else max(0.001, task.time_limit_s - spent)
    outcome = encoding.solve(Limits(remaining, seed, task.threads, task.options))
    report["solve_s"] = time.perf_counter() - t1
    report.update(
        status=outcome.status,
        solution=outcome.solution,
        counters=outcome.counters,
        error=outcome.message,
    )
    if task.check_unique and outcome.status == SOLVED:
        t2 = time.perf_counter()
        left = None if remaining is None else max(0.001, remaining - (t2 - t1))
        report["unique"] = encoding.check_unique(Limits(left, seed, task.threads, task.options))
        report["unique_s"] = time.perf_counter() - t2
    report["generate_s"] = generate_s
    return report


def short_traceback(err: BaseException) -> str:
    lines = traceback.format_exception(type(err), err, err.__traceback__)
    text = "".join(lines[-6:]).strip()
    return f"{type(err).__name__}: {err}\n{text}"[:4000]
