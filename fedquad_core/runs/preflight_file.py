"""What the preflight hands to a run's process: ``<run>/preflight.npz``, written by the launcher
next to config.json before the process starts, read by the process instead of checking its config
and drawing its partition again.

    indices   int64, every client's sample indices, client after client
    sizes     int64, the number of indices of each client
    meta      a JSON text: the engine fingerprint, the digests of config.json, of the training
              labels the partition was drawn on and of the partition itself

The process trusts the file only when every digest matches what it has itself: the config it read,
its engine, the labels it loaded, and the partition the file holds (``read``); otherwise it checks
and draws as if there were no file. Torch-free (the launcher runs in the dashboard)."""
from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .store import atomic_write

FILE = "preflight.npz"


def config_digest(config: dict[str, Any]) -> str:
    """Of a config as stored (config.json's dict): its canonical JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def labels_digest(labels) -> str:
    """Of a training set's labels, as int64."""
    return hashlib.sha256(np.ascontiguousarray(np.asarray(labels).ravel(), dtype=np.int64).tobytes()).hexdigest()


def partition_digest(parts) -> str:
    """Of a partition: the clients' sizes, then their indices, as int64."""
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]) if len(parts) else np.zeros(0, np.int64)
    return hashlib.sha256(sizes.tobytes() + b"|" + flat.tobytes()).hexdigest()


def write(folder: Path, config: dict[str, Any], parts, labels: str, engine: str) -> None:
    """Write the file for a run whose ``config`` (as stored) passed the preflight with ``parts``,
    drawn on the labels of digest ``labels``, under the engine of fingerprint ``engine``."""
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]) if len(parts) else np.zeros(0, np.int64)
    meta = json.dumps({"engine": engine, "config": config_digest(config), "labels": labels,
                       "partition": partition_digest(parts)}, sort_keys=True)
    atomic_write(Path(folder) / FILE, lambda f: np.savez(f, indices=flat, sizes=sizes, meta=np.array(meta)))


def read(folder: Path, config: dict[str, Any], engine: str) -> tuple[list[np.ndarray], str] | None:
    """(the partition, the digest of the labels it was drawn on) when ``folder`` holds a file for
    exactly this ``config`` and ``engine`` whose partition matches its digest; None otherwise (no
    file, another config or engine, a damaged file): the run then checks and draws itself."""
    path = Path(folder) / FILE
    if not path.is_file() or path.is_symlink():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            flat, sizes, meta = data["indices"], data["sizes"], json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # damaged: check and draw again
        return None
    if (not isinstance(meta, dict) or meta.get("engine") != engine or meta.get("config") != config_digest(config)
            or flat.dtype != np.int64 or sizes.dtype != np.int64 or flat.ndim != 1 or sizes.ndim != 1
            or (sizes < 0).any() or int(sizes.sum()) != len(flat)):
        return None
    parts = np.split(flat, np.cumsum(sizes)[:-1]) if len(sizes) else []
    if partition_digest(parts) != meta.get("partition") or not isinstance(meta.get("labels"), str):
        return None
    return parts, meta["labels"]
