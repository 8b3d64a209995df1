"""Where a run trains: ``auto`` (CUDA when available), ``cpu`` or ``cuda``. Checked before a run
starts, so asking for a GPU on a machine without one is a user error, not a failed run. Also the
one count of usable CPU cores (launcher slots, parallel workers, study jobs)."""
from __future__ import annotations

import os

from .run import ConfigError


def usable_cores() -> int:
    """The CPU cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def resolve_device(name: str):
    import torch  # lazy: about 1.5 s of torch (benchmarks/lazy_imports.py); the dashboard's launcher imports this module

    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--device cuda was asked for but no CUDA GPU is available: use --device auto or cpu")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)
