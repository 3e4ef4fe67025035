"""Where this project lives (``REPO_ROOT``), and ``import models`` meaning its package there,
however the Python process was started.

python-sat installs a script named ``models.py`` into the environment's ``bin/`` folder, and a
console script (``bench``, ``dask worker``, ``dask scheduler``) runs with that folder first on
``sys.path``: there a plain ``import models`` finds the script, not the package beside ``bench``.
Every way into the project goes through ``bench`` first (the command line, and every task a Dask
worker runs: a function of ``bench.remote``, unpickled by importing it), so importing ``bench``
binds the top-level name ``models`` to the package installed beside it: a finder first on
``sys.meta_path`` that answers for that one name only (its submodules follow the package's
``__path__``), and a foreign ``models`` imported earlier is dropped. Why not rename the package
or ship a ``bench worker`` launcher instead: the README's "Why `import models` is safe".
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path

#: the folder holding ``bench/`` and ``models/`` (a checkout, or site-packages when installed)
REPO_ROOT = Path(__file__).resolve().parent.parent
NAME = "models"
#: the package installed beside ``bench`` (the source tree for ``pip install -e .``)
PACKAGE_DIR = str(REPO_ROOT / NAME)
INIT = os.path.join(PACKAGE_DIR, "__init__.py")


class OwnModelsFinder:
    """A meta path finder for the single name ``models``: always this project's package."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> ModuleSpec | None:
        if fullname != NAME:
            return None
        return spec_from_file_location(NAME, INIT, submodule_search_locations=[PACKAGE_DIR])


def is_ours(module: object) -> bool:
    """True if ``module`` is this project's ``models`` package."""
    found = getattr(module, "__file__", None)
    return bool(found) and os.path.realpath(found) == os.path.realpath(INIT)


def install() -> None:
    """Put the finder first (once) and forget a foreign ``models`` already imported."""
    if not os.path.isfile(INIT):  # not installed as plain files: leave imports alone
        return
    loaded = sys.modules.get(NAME)
    if loaded is not None and not is_ours(loaded):
        for name in [n for n in sys.modules if n == NAME or n.startswith(NAME + ".")]:
            del sys.modules[name]
    if not any(isinstance(f, OwnModelsFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, OwnModelsFinder())
