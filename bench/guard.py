"""A watchman that outlives a killed parent: it kills the parent's runs and deletes their files.

A parent that dies by ``kill -9`` cannot clean up. Its runs die with it (they asked for
``PR_SET_PDEATHSIG``), but that request is not inherited: a solver's own process (CBC,
started by PuLP) is orphaned and would run on until its own limit, and the run's
temporary files (``*-pulp.mps`` of up to a hundred megabytes) would stay. So a parent
that starts runs first starts this small process (``python -m bench.guard``, in a session
of its own so a terminal's Ctrl-C does not reach it) and tells it, over a pipe, each run's
process group and temporary directory as runs start and end (``+ PGID FOLDER``, ``- PGID``),
and the empty folders it keeps for later runs (``s 0 FOLDER``, ``bench.measure``). When the
pipe closes (the parent exited, however it exited) the guard kills what is left and deletes
the folders.

A guard can itself be killed. The parent keeps its own list of what it announced, and
``guard()`` (called as runs start and end, and on every wake-up of a waiting parent:
``bench.measure.wait_any``) starts a new guard when the old one is gone and announces every
run still going to it, so a ``kill -9`` of the parent after its guard died leaves no run.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

#: how long the guard waits for killed processes to go before deleting their files
SETTLE_S = 2.0


class Guard:
    """The parent's end: start the watchman once, then announce runs as they start and end."""

    def __init__(
        self, watched: dict[int, str] | None = None, spares: set[str] | None = None
    ) -> None:
        #: what this parent announced and has not yet taken back: pgid -> folder
        self.watched: dict[int, str] = dict(watched or {})
        #: empty run folders kept for the next runs (``bench.measure``): deleted at the end
        self.spares: set[str] = set(spares or ())
        self._process = subprocess.Popen(
            [sys.executable, "-m", "bench.guard"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
        self.pid = self._process.pid
        self.fd = self._process.stdin.fileno()
        for pgid, folder in self.watched.items():  # a guard that replaces a dead one
            self._send(f"+ {pgid} {folder}")
        for folder in self.spares:
            self._send(f"s 0 {folder}")

    def alive(self) -> bool:
        return self._process.poll() is None

    def watch(self, pgid: int, folder: str) -> None:
        self.watched[pgid] = folder
        self._send(f"+ {pgid} {folder}")

    def spare(self, folder: str) -> None:
        """A folder kept (empty) for later runs: deleted when the parent is gone."""
        if folder not in self.spares:
            self.spares.add(folder)
            self._send(f"s 0 {folder}")

    def forget(self, pgid: int) -> None:
        self.watched.pop(pgid, None)
        self._send(f"- {pgid}")

    def close(self) -> None:
        """A clean exit: the guard sees EOF, finds nothing left to kill, and is reaped here."""
        with contextlib.suppress(OSError, ValueError):
            self._process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(SETTLE_S + 1)

    def _send(self, line: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # a guard gone: nothing to tell
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()


_guard: Guard | None = None
#: guards started to replace one that died (for the sweep's own report and the tests)
replaced = 0


def guard() -> Guard:
    """This process's guard: started on first use, replaced (told every run still going)
    when it died."""
    global _guard, replaced
    if _guard is not None and _guard.alive():
        return _guard
    watched, spares = {}, set()
    if _guard is not None:
        watched, spares = _guard.watched, _guard.spares
        _guard.close()  # reaps the dead one, drops our end of its pipe
        replaced += 1
    _guard = Guard(watched, spares)
    atexit.register(_guard.close)
    return _guard


def check() -> None:
    """Replace this process's guard if it died; nothing when no guard was ever started."""
    if _guard is not None and not _guard.alive():
        guard()


def close_in_child() -> None:
    """In a forked run: drop the inherited pipe end, so only the parent's exit closes it."""
    if _guard is not None:
        with contextlib.suppress(OSError):
            os.close(_guard.fd)


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean(watched: dict[int, str], spares: set[str] = frozenset()) -> None:
    """Kill every watched process group, wait for it to go, delete its folder (and the
    spare folders)."""
    for pgid in watched:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + SETTLE_S
    while any(_alive(p) for p in watched) and time.monotonic() < deadline:
        time.sleep(0.02)
    for folder in [*watched.values(), *spares]:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C; we wait for EOF
    watched: dict[int, str] = {}
    spares: set[str] = set()
    for line in sys.stdin:
        sign, _, rest = line.strip().partition(" ")
        pgid_text, _, folder = rest.partition(" ")
        if not pgid_text.isdigit():
            continue
        if sign == "s":
            spares.add(folder)
        elif sign == "+":
            watched[int(pgid_text)] = folder
        elif sign == "-":
            watched.pop(int(pgid_text), None)
    clean(watched, spares)
    return 0


if __name__ == "__main__":
    sys.exit(main())
