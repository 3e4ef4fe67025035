"""The ``bench`` console script: ``python -m bench`` under a shorter name.

A console script runs with the venv's ``bin`` folder first on ``sys.path``, where python-sat's
``models.py`` script would shadow this project's ``models`` package; importing ``bench`` (this
module's package) binds the name to the package first (``bench.home``).
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the command line; its return value is the exit code."""
    from bench.cli import main as cli_main

    sys.exit(cli_main())
