"""Small real file systems for fault tests: a size-limited tmpfs (a full disk) and a
read-only mount (root ignores file permissions, so only a read-only mount denies root).

Mounting needs root with CAP_SYS_ADMIN; elsewhere the tests that need it are skipped
with that reason.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def tmpfs(folder: Path, size_kb: int = 1024) -> Iterator[Path]:
    """A fresh tmpfs of ``size_kb`` mounted on ``folder`` (unmounted afterwards)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CAP_SYS_ADMIN)")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs CAP_SYS_ADMIN): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def remount_readonly(folder: Path) -> None:
    """Make a tmpfs from ``tmpfs`` read-only: writes fail with EROFS, for root too."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
    probe = folder / ".probe"
    try:
        probe.write_text("x")
    except OSError:
        return
    probe.unlink()
    pytest.skip("a read-only remount still accepts writes here")
