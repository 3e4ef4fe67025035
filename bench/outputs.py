"""Writing what a command was asked to write (exports, reports, charts, baselines, backups)
without ever clobbering what the path names.

A regular file is written through a temporary file beside it and renamed over it, so a
full disk or a kill leaves the old file or the new one, never half of one. A symlink is
followed: its target is written (atomically, if a regular file), the link stays. A
non-regular target (a FIFO, a character device such as ``/dev/stdout`` or ``/dev/null``)
is opened and written in place, as a shell's ``>`` would; renaming over it would replace
the device with a plain file. A folder, a socket or a block device is refused (exit 2),
and so is an existing file where the command must not overwrite one.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from models.errors import HarnessError, UsageError

#: writes the whole output to the path it is given
Writer = Callable[[Path], Any]


def kind(path: Path) -> str:
    """What is at ``path`` (symlinks followed): missing, file, folder, fifo, char device, ..."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as err:
        raise UsageError(f"{path}: cannot use it as an output ({err.strerror})") from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def check_output(path: str | Path, *, overwrite: bool = True) -> tuple[Path, bool]:
    """(the path to write, whether to write it in place); a target that cannot be written
    as a file is exit 2 with one line. Commands call it before their work, too."""
    path = Path(path)
    found = kind(path)  # what the links lead to
    if found in ("folder", "socket", "block device", "special file"):
        raise UsageError(f"{path} is a {found}: give a file name to write")
    if found == "file" and not overwrite:
        raise UsageError(f"{path} exists: give a new file name (nothing was overwritten)")
    if found in ("fifo", "character device") or _through_proc(path):
        return path, True  # opened as given: /dev/stdout reaches the pipe or file of fd 1
    try:
        return (path.resolve() if path.is_symlink() else path), False
    except (OSError, RuntimeError) as err:  # a symlink loop
        raise UsageError(f"{path}: cannot follow this link ({err})") from None


def write_output(path: str | Path, write: Writer, *, overwrite: bool = True) -> Path:
    """Write a file through ``write(tmp_path)``; return where it went (a symlink's target).

    Bad targets are exit 2 with one line; a failure of the file system is exit 3.
    """
    target, in_place = check_output(path, overwrite=overwrite)
    if in_place:
        _write_in_place(target, write)
    else:
        _write_atomically(target, write)
    return target


def _through_proc(path: Path) -> bool:
    """Whether ``path`` is, or links to, a /proc file (``/dev/stdout`` -> ``/proc/self/fd/1``):
    an open file of a process, which only opening the path itself reaches (its resolved
    name is a pipe's ``pipe:[N]`` or a file the shell opened, never one to rename over)."""
    current = Path(os.path.abspath(path))
    for _ in range(40):  # the kernel's own limit on links followed
        if current.parts[1:2] == ("proc",):
            return True
        if not current.is_symlink():
            return False
        link = Path(os.readlink(current))
        current = Path(os.path.abspath(current.parent / link))
    return False


def output_folder(path: str | Path) -> Path:
    """A folder to write files into (made if missing); anything else there is exit 2."""
    path = Path(path)
    found = kind(path)
    if found == "missing":
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise UsageError(f"{path}: a file is in the way of this folder") from None
        except NotADirectoryError:
            raise UsageError(f"{path}: a part of this path is not a folder") from None
        except OSError as err:
            raise HarnessError(f"cannot make the folder {path}: {err.strerror or err}") from None
    elif found != "folder":
        raise UsageError(f"{path} is a {found}, not a folder: give a folder to write into")
    return path


def _write_atomically(target: Path, write: Writer) -> None:
    parent = target.parent
    if kind(parent) not in ("folder", "missing"):
        raise UsageError(f"{target}: {parent} is not a folder")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"{target}: a part of this path is not a folder") from None
    except OSError as err:
        raise HarnessError(f"cannot write {target}: {err.strerror or err}") from None
    # keep the suffix, so writers that go by it (matplotlib's savefig) pick the right format
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.partial{target.suffix}")
    try:
        write(tmp)
        tmp.replace(target)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise HarnessError(f"cannot write {target}: {err.strerror or err}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_in_place(target: Path, write: Writer) -> None:
    """A FIFO, a device or an open file of /proc: written, never replaced (made whole first,
    then copied in; appended, so ``--out /dev/stdout >> log`` keeps the log)."""
    with tempfile.TemporaryDirectory(prefix="puzzle-bench-out-") as folder:
        tmp = Path(folder) / f"out{target.suffix}"
        try:
            write(tmp)
            with tmp.open("rb") as source, target.open("ab") as sink:
                shutil.copyfileobj(source, sink)
        except OSError as err:
            raise HarnessError(f"cannot write {target}: {err.strerror or err}") from None
