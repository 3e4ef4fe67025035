"""puzzle-bench: the harness (python -m bench ...).

``bench.load(store_path, run_ids=None, ...)`` gives the stored runs as a pandas DataFrame
(see ``bench.store.load``); it is imported lazily so ``import bench`` stays light.

Importing ``bench`` first keeps numeric libraries single-threaded: the harness forks
every run from its own process, and forking a process that has threads running (an
OpenBLAS pool, pyarrow's jemalloc background thread) may deadlock the child. Runs
that want threads ask their solver for them (``--threads``); these settings only stop
libraries from starting pools on import.

Importing ``bench`` also makes ``import models`` mean this project's package, whatever else
named ``models`` is on the path (``bench.home``: python-sat's ``bin/models.py``).
"""

from __future__ import annotations

import os
from typing import Any

#: environment that keeps numpy/pandas/pyarrow from starting threads on import
SINGLE_THREADED_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
}
for _name, _value in SINGLE_THREADED_ENV.items():
    os.environ[_name] = _value

from bench import home  # noqa: E402  (after the environment above; imports nothing heavy)

home.install()


def load(*args: Any, **kwargs: Any):
    """Stored runs as a DataFrame, one column per RunRecord field (``bench.store.load``)."""
    from bench.store import load as _load

    return _load(*args, **kwargs)
