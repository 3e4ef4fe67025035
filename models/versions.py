"""Solver versions that their Python packages do not report themselves."""

from __future__ import annotations

import re
import subprocess
from functools import cache


@cache
def cbc_version() -> str:
    """``cbc 2.10.3 (pulp 3.3.2)``: asks PuLP's bundled CBC binary once per process."""
    import pulp

    try:
        banner = subprocess.run(
            [pulp.PULP_CBC_CMD().path, "-quit"], capture_output=True, text=True, timeout=10
        ).stdout
        found = re.search(r"Version:\s*(\S+)", banner)
        cbc = found.group(1) if found else "unknown"
    except (OSError, subprocess.SubprocessError):
        cbc = "unavailable"
    return f"cbc {cbc} (pulp {pulp.__version__})"
