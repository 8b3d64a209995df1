"""What the preflight hands to the process that trains: the partitions it drew, each keyed by the
digest of the config it was checked for. One format for a run (``<run>/preflight.npz``, written by
the launcher next to config.json before the run's process starts) and for a study started from the
dashboard (``<root>/.studies/<name>.preflight.npz``, read by the study's driver).

    indices_K, sizes_K   int64: partition K's sample indices, client after client, and each
                         client's count (each distinct partition stored once)
    meta                 a JSON text: the engine fingerprint, and per config digest the partition
                         K, its digest and the digest of the training labels it was drawn on

A reader trusts an entry only when every digest matches what it has itself: the config it read
(``config_digest`` of the stored dict), its engine, the partition the file holds, and (checked by
``train.checked``) the labels it loaded; otherwise it checks and draws as if there were no file.
Torch-free (the launcher runs in the dashboard)."""
from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import safe_io
from .store import atomic_write

FILE = "preflight.npz"  # in a run folder
MAX_FILE = 512 << 20  # read at most this much (a larger file is not trusted: the reader checks and draws itself)


def config_digest(config: dict[str, Any]) -> str:
    """Of a config as stored (config.json's dict): its canonical JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def labels_digest(labels) -> str:
    """Of a training set's labels, as int64."""
    return hashlib.sha256(np.ascontiguousarray(np.asarray(labels).ravel(), dtype=np.int64).tobytes()).hexdigest()


def _flat(parts) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]) if len(parts) else np.zeros(0, np.int64)
    return flat, sizes


def partition_digest(parts) -> str:
    """Of a partition: the clients' sizes, then their indices, as int64."""
    flat, sizes = _flat(parts)
    return hashlib.sha256(sizes.tobytes() + b"|" + flat.tobytes()).hexdigest()


def write(path: Path, entries, engine: str) -> None:
    """Write ``entries``, each (config as stored, its checked partition, the digest of the labels
    it was drawn on), for the engine of fingerprint ``engine``; a partition several configs share
    (the same object, as ``check_runs`` returns it) is stored once."""
    arrays: dict[str, np.ndarray] = {}
    index: dict[int, int] = {}
    meta: dict[str, Any] = {"engine": engine, "entries": {}}
    for config, parts, labels in entries:
        if id(parts) not in index:
            k = index[id(parts)] = len(index)
            arrays[f"indices_{k}"], arrays[f"sizes_{k}"] = _flat(parts)
        k = index[id(parts)]
        meta["entries"][config_digest(config)] = {"partition": k, "digest": partition_digest(parts), "labels": labels}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    atomic_write(Path(path), lambda f: np.savez(f, **arrays))


@dataclass(frozen=True)
class Handed:
    """A preflight file as read: ``get(config)`` gives (partition, labels digest) for a config the
    preflight checked, else None."""
    entries: dict[str, dict]
    arrays: dict[str, np.ndarray]

    def get(self, config: dict[str, Any]) -> tuple[list[np.ndarray], str] | None:
        entry = self.entries.get(config_digest(config))
        if not isinstance(entry, dict) or not isinstance(entry.get("labels"), str):
            return None
        flat, sizes = self.arrays.get(f"indices_{entry.get('partition')}"), self.arrays.get(f"sizes_{entry.get('partition')}")
        if (flat is None or sizes is None or flat.dtype != np.int64 or sizes.dtype != np.int64 or flat.ndim != 1
                or sizes.ndim != 1 or (sizes < 0).any() or int(sizes.sum()) != len(flat)):
            return None
        parts = np.split(flat, np.cumsum(sizes)[:-1]) if len(sizes) else []
        if partition_digest(parts) != entry.get("digest"):
            return None
        return parts, entry["labels"]


def read(path: Path, engine: str) -> Handed | None:
    """The file at ``path`` when it was written for ``engine``; None when there is none, it is
    damaged or it is another engine's (the reader then checks and draws itself)."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        return None
    try:  # through safe_io: a regular file, bounded on disk and unpacked (headers checked first)
        arrays = safe_io.read_npz(path, MAX_FILE, MAX_FILE, name=FILE)
        meta = safe_io.parse_json(str(arrays.pop("meta")), FILE)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # damaged (DamagedFile too): check and draw again
        return None
    if not isinstance(meta, dict) or meta.get("engine") != engine or not isinstance(meta.get("entries"), dict):
        return None
    return Handed(meta["entries"], arrays)


def read_run(folder: Path, config: dict[str, Any], engine: str) -> tuple[list[np.ndarray], str] | None:
    """(partition, labels digest) from a run folder's file for exactly this stored ``config``, or None."""
    handed = read(Path(folder) / FILE, engine)
    return handed.get(config) if handed else None
