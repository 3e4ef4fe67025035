"""puzzle-bench: the harness (python -m bench ...).

``bench.load(store_path, run_ids=None, ...)`` gives the stored runs as a pandas DataFrame
(see ``bench.store.load``); it is imported lazily so ``import bench`` stays light.
"""

from __future__ import annotations

from typing import Any


def load(*args: Any, **kwargs: Any):
    """Stored runs as a DataFrame, one column per RunRecord field (``bench.store.load``)."""
    from bench.store import load as _load

    return _load(*args, **kwargs)
