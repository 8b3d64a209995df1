"""Where a run trains: ``auto`` (CUDA when available), ``cpu`` or ``cuda``. Checked before a run
starts, so asking for a GPU on a machine without one is a user error, not a failed run."""
from __future__ import annotations

from .config import ConfigError


def resolve_device(name: str):
    import torch

    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--device cuda was asked for but no CUDA GPU is available: use --device auto or cpu")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)
