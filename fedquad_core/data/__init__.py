"""Dataset layer of the FedQuad Lab engine: a registry of data sets, one loader module each.

>>> ds = load_dataset("digits")                     # bundled with scikit-learn, no download
>>> x = ds.prepare(ds.x_train[:64], augment=False)  # float32, normalised

``check_data`` is the cheap pre-flight check (file existence only) that raises ``DataError``
with a one-line remedy before any training starts; ``data_summary`` gives static information
for the UI without loading anything.
"""
from __future__ import annotations

import numpy as np
import torch

from . import cifar, digits, fashion_mnist, tiny_imagenet
from .base import DataError, Dataset, Source
from .subset import stratified_subset

__all__ = ["DATASETS", "DataError", "Dataset", "load_dataset", "check_data", "data_summary",
           "get_source", "data_source"]

_SOURCES: dict[str, Source] = {s.name: s for s in (
    digits.SOURCE, fashion_mnist.SOURCE, cifar.CIFAR10, cifar.CIFAR100, tiny_imagenet.SOURCE)}
DATASETS: tuple[str, ...] = tuple(_SOURCES)


def get_source(name: str) -> Source:
    """The registered ``Source`` for ``name``; unknown names raise ``DataError``."""
    try:
        return _SOURCES[name]
    except KeyError:
        raise DataError(f"unknown dataset {name!r}: choose one of {', '.join(DATASETS)}") from None


def check_data(name: str, *, data_dir: str | None = None, download: bool = False) -> None:
    """Raise ``DataError`` (one line: what is missing, how to get it) unless ``name`` can be
    loaded. Only looks at file existence; with ``download=True`` a missing set passes (the
    download happens in ``load_dataset``)."""
    get_source(name).check(data_dir, download)


def load_dataset(name: str, *, data_dir: str | None = None, download: bool = False,
                 train_subset: int | None = None, seed: int = 0) -> Dataset:
    """Load ``name`` as CPU tensors. ``train_subset`` keeps a class-stratified random subset of
    that many training samples, drawn with ``np.random.default_rng(seed)``; the test set is
    always complete."""
    source = get_source(name)
    raw = source.load(data_dir, download)
    x_train, y_train = raw.x_train, raw.y_train
    if train_subset is not None:
        keep = stratified_subset(y_train, train_subset, seed)
        x_train, y_train = x_train[keep], y_train[keep]

    def tensor(a: np.ndarray) -> torch.Tensor:  # read-only arrays are loader caches: copy
        return torch.from_numpy(np.ascontiguousarray(a) if a.flags.writeable else a.copy())

    return Dataset(
        name=name, x_train=tensor(x_train), y_train=tensor(y_train).long(),
        x_test=tensor(raw.x_test), y_test=tensor(raw.y_test).long(),
        num_classes=len(raw.class_names), class_names=tuple(raw.class_names),
        input_shape=source.input_shape, mean=source.mean, std=source.std,
        augment_default=source.augment_default,
    )


def data_source(name: str, *, data_dir: str | None = None) -> str | None:
    """Where the files ``load_dataset(name, data_dir=...)`` reads are (one line), or None."""
    return get_source(name).found(data_dir)


def data_summary(name: str, *, data_dir: str | None = None) -> dict:
    """Static facts about ``name`` for the UI, without loading: class count, sample shape,
    typical sizes, where the data is looked for, how to get it and whether it is there now."""
    source = get_source(name)
    try:
        source.check(data_dir, False)
        available = True
    except DataError:
        available = False
    return {
        "name": name, "num_classes": source.num_classes, "input_shape": source.input_shape,
        "train_size": source.train_size, "test_size": source.test_size,
        "mean": source.mean, "std": source.std, "augment_default": source.augment_default,
        "locations": source.locations(data_dir), "how_to_get": source.how_to_get,
        "available": available,
    }
