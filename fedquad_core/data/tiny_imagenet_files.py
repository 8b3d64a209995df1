"""File-level helpers for Tiny-ImageNet: the index files of the official ``tiny-imagenet-200/``
folder, the ``.npz`` decode cache (atomic write: temp file + ``os.replace``), and the download.
"""
from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

import numpy as np

from .base import DataError

URL = "http://cs231n.stanford.edu/tiny-imagenet-200.zip"
CACHE_KEYS = ("x_train", "y_train", "x_test", "y_test", "wnids")


def _fix(d: Path) -> str:
    return f"delete {d} and unzip tiny-imagenet-200.zip again (or use --download)"


def read_wnids(d: Path) -> list[str]:
    wnids = [line.strip() for line in (d / "wnids.txt").read_text().splitlines() if line.strip()]
    if not wnids or len(set(wnids)) != len(wnids):
        raise DataError(f"corrupt {d / 'wnids.txt'} (empty or duplicate ids): {_fix(d)}")
    return wnids


def train_items(d: Path, wnids: list[str]) -> tuple[list[Path], np.ndarray]:
    """Image paths of ``train/<wnid>/images/*.JPEG`` (sorted) and their class indices."""
    paths, labels = [], []
    for label, wnid in enumerate(wnids):
        found = sorted((d / "train" / wnid / "images").glob("*.JPEG"))
        if not found:
            raise DataError(f"no training images in {d / 'train' / wnid / 'images'}: {_fix(d)}")
        paths += found
        labels += [label] * len(found)
    return paths, np.asarray(labels, dtype=np.int64)


def val_items(d: Path, wnids: list[str]) -> tuple[list[Path], np.ndarray]:
    """Paths and labels of the validation images listed in ``val/val_annotations.txt``."""
    index = {w: i for i, w in enumerate(wnids)}
    paths, labels = [], []
    annotations = d / "val" / "val_annotations.txt"
    for line in annotations.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or parts[1] not in index:
            raise DataError(f"corrupt {annotations} (bad line {line!r}): {_fix(d)}")
        paths.append(d / "val" / "images" / parts[0])
        labels.append(index[parts[1]])
    return paths, np.asarray(labels, dtype=np.int64)


def class_names(d: Path, wnids: list[str]) -> tuple[str, ...]:
    """First name of each wnid from ``words.txt`` when present, else the wnid itself."""
    words = {}
    if (d / "words.txt").is_file():
        for line in (d / "words.txt").read_text().splitlines():
            wnid, _, names = line.partition("\t")
            words[wnid.strip()] = names.split(",")[0].strip()
    return tuple(words.get(w) or w for w in wnids)


def read_cache(path: Path) -> dict[str, np.ndarray] | None:
    """The cached arrays, or None when the cache is absent or unreadable (it is then rebuilt)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {key: npz[key] for key in CACHE_KEYS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None


def write_cache_atomic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` via a temp file in the same folder and ``os.replace``, so a
    crash never leaves a half-written cache. A read-only folder only costs a warning."""
    from ..runs.store import atomic_write

    try:
        atomic_write(path, lambda f: np.savez(f, **arrays))
    except OSError as err:
        warnings.warn(f"could not write Tiny-ImageNet cache {path}: {err}", stacklevel=2)


def download(root: Path, folder: str) -> None:
    """Fetch and unzip the official archive into ``root`` (yields ``root/<folder>/``).
    Not exercised by the tests: it needs the internet."""
    from torchvision.datasets.utils import download_and_extract_archive

    root.mkdir(parents=True, exist_ok=True)
    try:
        download_and_extract_archive(URL, download_root=str(root))
    except Exception as err:  # network errors come in many types
        raise DataError(f"Tiny-ImageNet download from {URL} failed ({err}): unzip it by hand "
                        f"into --data-dir PATH so that PATH/{folder}/ exists") from None
