"""Batched, device-agnostic image augmentation: random crop with zero padding + horizontal flip.

Equivalent per sample to torchvision's ``RandomCrop(size, padding=pad)`` followed by
``RandomHorizontalFlip(p=0.5)`` (the CIFAR recipe of He et al. 2016, used by MOON and
NIID-Bench), but done for a whole batch at once with advanced indexing and ``torch.where`` so it
runs on the GPU without Python loops. All randomness comes from ``generator``.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def _check_generator(x: torch.Tensor, generator: torch.Generator | None) -> None:
    if generator is not None and generator.device.type != x.device.type:
        raise ValueError(f"generator is on {generator.device}, batch is on {x.device}: "
                         "create the generator on the batch's device")


def random_crop_flip(x: torch.Tensor, *, pad: int,
                     generator: torch.Generator | None = None) -> torch.Tensor:
    """Randomly crop each (C,H,W) image of ``x`` from its zero-padded version and flip half of
    them left-right. Returns a new tensor of the same shape, dtype and device."""
    if x.dim() != 4:
        raise ValueError(f"expected a (N,C,H,W) batch, got shape {tuple(x.shape)}")
    _check_generator(x, generator)
    n, c, h, w = x.shape
    dev = x.device
    oy = torch.randint(0, 2 * pad + 1, (n,), generator=generator, device=dev)
    ox = torch.randint(0, 2 * pad + 1, (n,), generator=generator, device=dev)
    flip = torch.rand(n, generator=generator, device=dev) < 0.5
    padded = F.pad(x, (pad, pad, pad, pad))
    rows = (oy[:, None] + torch.arange(h, device=dev))[:, None, :, None]   # (N,1,H,1)
    cols = (ox[:, None] + torch.arange(w, device=dev))[:, None, None, :]   # (N,1,1,W)
    batch = torch.arange(n, device=dev)[:, None, None, None]
    chan = torch.arange(c, device=dev)[None, :, None, None]
    cropped = padded[batch, chan, rows, cols]                              # (N,C,H,W)
    return torch.where(flip[:, None, None, None], cropped.flip(-1), cropped)
