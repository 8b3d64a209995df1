"""Tiny-ImageNet (Stanford CS231n, http://cs231n.stanford.edu/tiny-imagenet-200.zip): 200 classes
of 64x64 colour images, 100,000 train / 10,000 val (used here as the test set).

Layout of the official ``tiny-imagenet-200/`` folder: ``wnids.txt`` (class ids, one a line),
``words.txt`` (optional, ``wnid<TAB>names``), ``train/<wnid>/images/*.JPEG`` and
``val/images/*.JPEG`` with ``val/val_annotations.txt`` (``file<TAB>wnid<TAB>bbox...``).
Images are decoded once with PIL and cached as ``tiny-imagenet-200/.fedquad_cache.npz``
(written atomically), so later loads skip the JPEG decoding. Normalised with ImageNet stats.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from . import tiny_imagenet_files as files
from .base import DataError, RawSplits, Source, data_roots

FOLDER = "tiny-imagenet-200"
CACHE_NAME = ".fedquad_cache.npz"
HOW_TO_GET = (f"pass --data-dir PATH containing {FOLDER}/ (unzipped "
              "http://cs231n.stanford.edu/tiny-imagenet-200.zip), or add --download")


def _dirs(data_dir: str | None) -> list[Path]:
    return [d for root in data_roots(data_dir) for d in (root / FOLDER, root)]


def _find_dir(data_dir: str | None) -> Path | None:
    for d in _dirs(data_dir):
        if (d / CACHE_NAME).is_file() or ((d / "wnids.txt").is_file() and (d / "train").is_dir()
                                         and (d / "val" / "val_annotations.txt").is_file()):
            return d
    return None


def locations(data_dir: str | None = None) -> list[str]:
    return [str(d) for d in _dirs(data_dir)]


def check(data_dir: str | None = None, download: bool = False) -> None:
    if not download and _find_dir(data_dir) is None:
        raise DataError(f"tiny-imagenet not found (looked in {', '.join(locations(data_dir))}): "
                        f"{HOW_TO_GET}")


def _decode(paths: list[Path]) -> np.ndarray:
    """JPEGs -> uint8 (N,3,64,64); grey images are converted to RGB, odd sizes resized."""
    from PIL import Image

    def one(path: Path) -> np.ndarray:
        try:
            with Image.open(path) as img:
                img = img.convert("RGB")
                if img.size != (64, 64):
                    img = img.resize((64, 64), Image.BILINEAR)
                return np.asarray(img, dtype=np.uint8)
        except OSError as err:
            raise DataError(f"unreadable image {path} ({err}): replace it or delete "
                            f"{path.parents[2]} and unzip {FOLDER}.zip again") from None

    out = np.empty((len(paths), 64, 64, 3), dtype=np.uint8)
    with ThreadPoolExecutor(max_workers=4) as pool:
        for i, arr in enumerate(pool.map(one, paths)):
            out[i] = arr
    return out.transpose(0, 3, 1, 2).copy()


def _build(d: Path) -> dict[str, np.ndarray]:
    wnids = files.read_wnids(d)
    (tr_paths, y_tr), (te_paths, y_te) = files.train_items(d, wnids), files.val_items(d, wnids)
    return {"x_train": _decode(tr_paths), "y_train": y_tr, "x_test": _decode(te_paths),
            "y_test": y_te, "wnids": np.asarray(wnids)}


def load(data_dir: str | None = None, download: bool = False) -> RawSplits:
    if download and _find_dir(data_dir) is None:
        files.download(data_roots(data_dir)[0], FOLDER)
    check(data_dir)
    d = _find_dir(data_dir)
    cache = d / CACHE_NAME
    arrays = files.read_cache(cache)
    if arrays is None or ((d / "wnids.txt").is_file()
                          and list(arrays["wnids"]) != files.read_wnids(d)):
        arrays = _build(d)
        files.write_cache_atomic(cache, arrays)
    wnids = [str(w) for w in arrays["wnids"]]
    names = files.class_names(d, wnids)
    return RawSplits(arrays["x_train"], arrays["y_train"].astype(np.int64), arrays["x_test"],
                     arrays["y_test"].astype(np.int64), names)


SOURCE = Source(
    name="tiny-imagenet", num_classes=200, input_shape=(3, 64, 64),
    mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), augment_default=True,
    train_size=100000, test_size=10000, how_to_get=HOW_TO_GET,
    load=load, check=check, locations=locations,
    found=lambda data_dir: None if _find_dir(data_dir) is None else str(_find_dir(data_dir)),
)
