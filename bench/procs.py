"""Process chores of an isolated run: kill a process group, watch a group's memory, tie a
run's life to its parent's, and fetch the end of what a run printed.

Linux-first (``/proc``, ``prctl``); each helper degrades quietly elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PR_SET_CHILD_SUBREAPER = 36


def with_output_tail(error: str, output: Any, size: int = 1500) -> str:
    """Add the end of what the run printed (a C++ abort message, a solver's complaint)."""
    if output is None:
        return error
    try:
        output.seek(0, os.SEEK_END)
        length = output.tell()
        output.seek(max(0, length - size))
        tail = output.read().decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        return error
    return f"{error}\n--- output of the run (last lines) ---\n{tail}" if tail else error


_prctl: Any = None


def prctl() -> Any:
    """libc's ``prctl`` (None where there is none), looked up once: a forked run then calls
    it without loading ctypes' objects anew (every page a child touches is copied for it)."""
    global _prctl
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl or None


def die_with_parent(parent: int) -> None:
    """Linux: the run gets SIGKILL if the sweep's parent dies (kill -9 of a sweep leaves no run)."""
    call = prctl()
    if call is None:
        return
    call(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(5)


def become_subreaper() -> bool:
    """Linux: orphaned descendants (a CBC whose run died first) are reparented to this
    process instead of init, so the harness can kill and reap them. True if it took hold."""
    call = prctl()
    return call is not None and call(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def thread_names(pid: int | str = "self") -> list[str]:
    """Names of a process's threads (Linux); an empty list where /proc is missing."""
    names = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                names.append(Path(f"/proc/{pid}/task/{task}/comm").read_text().strip())
    return names


def children(pid: int | str = "self") -> list[int]:
    """Direct children of a process (its threads' children included), from /proc."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                found.extend(int(c) for c in text.split())
    except OSError:
        pass
    return found


def reap_group_orphans(pgid: int, keep: set[int] = frozenset()) -> None:
    """Kill and reap this process's children in process group ``pgid`` (orphans of a run
    handed to us as subreaper), except those in ``keep`` (runs still being measured)."""
    for child in children():
        if child in keep:
            continue
        try:
            if os.getpgid(child) != pgid:
                continue
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        except (ProcessLookupError, ChildProcessError, PermissionError):
            continue


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def group_rss_kb(pid: int, baseline_kb: int = 0) -> tuple[int, int]:
    """Memory of the run and its descendants (a solver's own processes count too), in MB.

    The forked run starts out sharing the warm parent's pages (100-200 MB of imported
    libraries); those are not the run's own use, so the parent's resident size at the fork
    (``baseline_kb``) is taken off the run's own VmRSS. Descendants count in full.
    A memory limit thus means roughly what the run itself allocates. (Exact private
    figures from smaps_rollup cost milliseconds per look; this costs microseconds.)
    Returns (the run's own kB over ``baseline_kb``, its descendants' kB).
    """
    own_kb, total_kb, stack, seen = 0, 0, [pid], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if current == pid:
            own_kb = max(0, rss_kb(current) - baseline_kb)
        else:
            total_kb += rss_kb(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
                stack.extend(int(c) for c in children)
        except (OSError, ValueError):
            continue
    return own_kb, total_kb


def anon_kb(pid: int | str) -> int:
    """Resident pages of a process that are no file's (heap, stacks, shared memory): what
    it grows by as it allocates; a solver library's code mapped in later does not count."""
    status = status_kb(pid)
    return status.get("RssAnon", 0) + status.get("RssShmem", 0)


def rss_kb(pid: int | str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def cpu_s() -> float:
    """User + system CPU of this process (all threads) and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def status_kb(pid: int | str = "self") -> dict[str, int]:
    """The ``kB`` lines of /proc/PID/status (VmRSS, VmHWM, RssAnon, RssFile...); {} elsewhere.

    Plain ``os`` calls and bytes: a forked run reads it twice, and each object type it
    touches costs it copied pages."""
    out: dict[str, int] = {}
    try:
        fd = os.open(f"/proc/{pid}/status", os.O_RDONLY)
        try:
            text = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
    except OSError:
        return out
    for line in text.split(b"\n"):
        if line.endswith(b" kB"):
            name, _, value = line.partition(b":")
            number = value[:-3].strip()
            if number.isdigit():
                out[name.decode()] = int(number)
    return out


@dataclass(frozen=True)
class Usage:
    """What a forked run has used at its go signal, so that its own use can be told apart.

    The run's own peak memory is its peak resident size (``VmHWM``, reset to the current
    size at the go by writing 5 to ``/proc/self/clear_refs``) less its resident size at
    the go (the warm parent's pages it shares), less the file pages it merely mapped in
    meanwhile (a solver library's code, shared with every process that loaded it). A
    solver's own processes (CBC) are all the run's: the parent samples them (as runsolver
    samples a process tree; ``ru_maxrss`` of a child started by vfork + exec reports the
    forking process's size, not the child's). BenchExec reads a cgroup of the run's own
    instead, which needs a cgroup hierarchy the harness may create.
    """

    cpu_s: float
    rss_kb: int
    file_kb: int

    @classmethod
    def now(cls) -> Usage:
        with contextlib.suppress(OSError):  # VmHWM := VmRSS from here on
            fd = os.open("/proc/self/clear_refs", os.O_WRONLY)
            try:
                os.write(fd, b"5")
            finally:
                os.close(fd)
        status = status_kb()
        return cls(cpu_s(), status.get("VmRSS", 0), status.get("RssFile", 0))

    def since(self) -> dict[str, float]:
        """The run's CPU seconds since the go and its own peak memory (MB), as report keys."""
        status = status_kb()
        peak = status.get("VmHWM", 0)
        mapped = max(0, status.get("RssFile", 0) - self.file_kb)
        own_kb = max(0, peak - self.rss_kb - mapped)
        return {"run_cpu_s": max(0.0, cpu_s() - self.cpu_s), "own_peak_mb": own_kb / 1024.0}
