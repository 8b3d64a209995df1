"""scikit-learn's bundled handwritten digits (UCI ML hand-written digits, 8x8, 1,797 images).

Source: ``sklearn.datasets.load_digits`` - ships inside scikit-learn, no download. Pixel values
0..16 are divided by 16 and each image is flattened to 64 features. The train/test split is
stratified and uses a FIXED seed, so it is the same on every machine and in every run.
"""
from __future__ import annotations

import functools

import numpy as np

from .base import RawSplits, Source

SPLIT_SEED = 20250904   # fixed forever: changing it changes every digits result
TRAIN_SIZE, TEST_SIZE = 1400, 397
# Mean / std of the 1,400 training rows (all 64 features pooled), see test_digits.py.
MEAN, STD = (0.3063,), (0.3763,)


@functools.lru_cache(maxsize=1)
def _split() -> RawSplits:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    bunch = load_digits()
    x = (bunch.data / 16.0).astype(np.float32)
    y = bunch.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, train_size=TRAIN_SIZE, test_size=TEST_SIZE, stratify=y, random_state=SPLIT_SEED)
    for arr in (x_tr, x_te, y_tr, y_te):
        arr.setflags(write=False)
    names = tuple(str(int(t)) for t in bunch.target_names)
    return RawSplits(x_tr, y_tr, x_te, y_te, names)


def load(data_dir: str | None = None, download: bool = False) -> RawSplits:
    """The cached split; arrays are read-only (callers get copies as tensors)."""
    return _split()


def check(data_dir: str | None = None, download: bool = False) -> None:
    """Always available: the data ships with scikit-learn."""


def locations(data_dir: str | None = None) -> list[str]:
    return ["bundled with scikit-learn (sklearn.datasets.load_digits)"]


SOURCE = Source(
    name="digits", num_classes=10, input_shape=(64,), mean=MEAN, std=STD,
    augment_default=False, train_size=TRAIN_SIZE, test_size=TEST_SIZE,
    how_to_get="bundled with scikit-learn, nothing to install",
    load=load, check=check, locations=locations, found=lambda data_dir: locations()[0],
)
