"""Core types of the dataset layer: ``DataError``, ``Dataset`` and the ``Source`` record.

A ``Dataset`` holds the raw stored tensors (uint8 images, or float32 rows for digits) on the
CPU; ``Dataset.prepare`` turns a batch of them into normalised float32 model input on whatever
device the batch lives on, optionally with the usual CIFAR augmentation (random crop with
zero padding + horizontal flip, as in ``torchvision.transforms.RandomCrop(32, padding=4)`` and
``RandomHorizontalFlip()`` used by MOON / NIID-Bench).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
import torch

from ..errors import DataError
from .augment import random_crop_flip

#: Where data is looked for when no ``data_dir`` is given (relative to the working directory).
DEFAULT_DATA_DIR = "data"


def data_roots(data_dir: str | os.PathLike | None) -> list[Path]:
    """Directories searched for downloaded data sets: ``data_dir`` if given, else
    ``$FEDQUAD_DATA_DIR`` or ``./data``."""
    if data_dir is not None:
        return [Path(data_dir).expanduser()]
    return [Path(os.environ.get("FEDQUAD_DATA_DIR", DEFAULT_DATA_DIR)).expanduser()]


def download_root(data_dir: str | os.PathLike | None) -> Path:
    """Directory a download writes into (the first search root), created if needed."""
    root = data_roots(data_dir)[0]
    root.mkdir(parents=True, exist_ok=True)
    return root


class RawSplits(NamedTuple):
    """What a source loader returns: numpy arrays plus class names."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    class_names: tuple[str, ...]


@dataclass(frozen=True)
class Source:
    """Static description of one data set plus its loader and cheap existence check."""

    name: str
    num_classes: int
    input_shape: tuple[int, ...]
    mean: tuple[float, ...]
    std: tuple[float, ...]
    augment_default: bool
    train_size: int
    test_size: int
    how_to_get: str
    load: Callable[[str | None, bool], RawSplits]
    check: Callable[[str | None, bool], None]
    locations: Callable[[str | None], list[str]]
    #: where the files that ``load`` reads are (one line), or None when they are not there
    found: Callable[[str | None], str | None] = lambda data_dir: None


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded data set: raw CPU tensors plus what is needed to turn them into model input."""

    name: str
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    num_classes: int
    class_names: tuple[str, ...]
    input_shape: tuple[int, ...]
    mean: tuple[float, ...]
    std: tuple[float, ...]
    augment_default: bool

    @property
    def is_image(self) -> bool:
        return len(self.input_shape) == 3

    @property
    def crop_padding(self) -> int:
        """Zero padding of the random crop: 4 pixels, 8 for 64x64 images (Tiny-ImageNet)."""
        return 8 if self.is_image and self.input_shape[-1] >= 64 else 4

    def prepare(self, x: torch.Tensor, *, augment: bool = False,
                generator: torch.Generator | None = None) -> torch.Tensor:
        """Raw stored batch (any device) -> float32 normalised model input on the same device.

        uint8 input is scaled by 1/255 first (float input is taken as already in [0, 1]).
        ``augment=True`` applies a random crop (zero padding ``crop_padding``) and a horizontal
        flip drawn from ``generator``, before normalisation, vectorised over the batch.
        """
        if tuple(x.shape[1:]) != self.input_shape:
            raise ValueError(f"{self.name}: expected a batch of shape (N, {self.input_shape}), "
                             f"got {tuple(x.shape)}")
        x = x.float() / 255.0 if x.dtype == torch.uint8 else x.float()
        if augment:
            if not self.is_image:
                raise ValueError(f"{self.name}: augmentation needs (C,H,W) images, "
                                 f"input_shape is {self.input_shape}")
            x = random_crop_flip(x, pad=self.crop_padding, generator=generator)
        shape = (-1, 1, 1) if self.is_image else (-1,)
        mean = torch.tensor(self.mean, dtype=torch.float32, device=x.device).view(shape)
        std = torch.tensor(self.std, dtype=torch.float32, device=x.device).view(shape)
        return (x - mean) / std
