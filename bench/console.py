"""The ``bench`` console script: ``python -m bench`` under a shorter name.

Why a module of its own: a console script runs with its own folder (the venv's ``bin``)
first on ``sys.path``, and python-sat installs scripts there, ``models.py`` among them,
which would shadow this project's ``models`` package. So that folder leaves the path
before the command line (and through it ``models``) is imported.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Run the command line; its return value is the exit code."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    sys.modules.pop("models", None)  # in case anything imported the wrong one already

    from bench.cli import main as cli_main

    sys.exit(cli_main())
