"""FedQuad's offline, class-aware, stochastic quadruplet sampling on one client's labels.

FedQuad (Goksu & Pugeault, arXiv 2509.04107) has every client draw, before local training, its
own list of quadruplets ``(a, p, n1, n2)`` from its own imbalanced data: ``p`` shares the
anchor's class, ``n1`` is of another class and ``n2`` of a third class. Sampling is class-aware
so that rare classes still appear as anchors and as negatives:

* the anchor CLASS is drawn uniformly over the classes with at least 2 samples, then anchor and
  positive are two distinct samples of it (a class with 1 sample can be a negative, never an
  anchor);
* the two negative classes are drawn uniformly (and distinct) among the other classes present,
  then one sample of each.

Fallback for clients that cannot form a quadruplet (the authors' stated limitation; this is the
documented, visible choice, reported through :func:`client_quadruplet_mode`):

* ``"quadruplet"``: >= 3 classes present and one of them has >= 2 samples -> full quadruplets.
* ``"triplet"``: exactly 2 classes present, one with >= 2 samples -> ``n2`` is ``None`` and the
  second hinge term of the FedQuad loss drops out (``fedquad_loss(..., z_n2=None, ...)``).
* ``"none"``: 1 class present, or no class with >= 2 samples (e.g. two classes of one sample
  each) -> empty arrays, CE only.

Each round counts the clients that trained in the last two modes (``clients_no_second_negative``,
``clients_ce_only``); ``partition.json`` holds the same two counts over all clients.

Everything is vectorised; the result depends only on the labels and the generator's state.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["QuadrupletBatch", "sample_quadruplets", "client_quadruplet_mode", "quadruplet_mode_from_counts"]

_EMPTY = np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class QuadrupletBatch:
    """Index arrays into the client's local label array; ``n2`` is ``None`` unless mode is "quadruplet"."""

    a: np.ndarray
    p: np.ndarray
    n1: np.ndarray
    n2: np.ndarray | None
    mode: str

    def __len__(self) -> int:
        return int(self.a.size)


def _mode(counts: np.ndarray) -> str:
    if counts.size < 2 or not (counts >= 2).any():
        return "none"
    return "quadruplet" if counts.size >= 3 else "triplet"


def client_quadruplet_mode(labels) -> str:
    """"quadruplet", "triplet" or "none": what :func:`sample_quadruplets` can draw from ``labels``."""
    _, counts = np.unique(np.asarray(labels).ravel(), return_counts=True)
    return _mode(counts)


def quadruplet_mode_from_counts(class_counts) -> str:
    """The same as :func:`client_quadruplet_mode`, from one client's row of per-class counts
    (zeros allowed), as stored in ``partition.json``."""
    counts = np.asarray(class_counts).ravel()
    return _mode(counts[counts > 0])


def _skip(draw: np.ndarray, excluded: np.ndarray) -> np.ndarray:
    """Map draws from ``range(C - 1)`` onto ``range(C)`` without ``excluded`` (one per draw)."""
    return draw + (draw >= excluded)


def sample_quadruplets(labels, num: int, *, rng: np.random.Generator) -> QuadrupletBatch:
    """Draw ``num`` class-aware quadruplets (or triplets / nothing, see the module docstring)."""
    if num < 0:
        raise ValueError(f"num must be >= 0, got {num}")
    labels = np.asarray(labels).ravel()
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    mode = _mode(counts)
    if mode == "none":
        return QuadrupletBatch(_EMPTY, _EMPTY, _EMPTY, None, mode)
    by_class = np.argsort(inverse, kind="stable")  # indices grouped by class
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))

    def pick(classes: np.ndarray) -> np.ndarray:
        return by_class[starts[classes] + rng.integers(0, counts[classes])]

    num_classes = counts.size
    eligible = np.flatnonzero(counts >= 2)
    anchor_cls = eligible[rng.integers(0, eligible.size, size=num)]
    slot_a = rng.integers(0, counts[anchor_cls])
    slot_p = _skip(rng.integers(0, counts[anchor_cls] - 1), slot_a)  # distinct from the anchor
    a = by_class[starts[anchor_cls] + slot_a]
    p = by_class[starts[anchor_cls] + slot_p]
    n1_cls = _skip(rng.integers(0, num_classes - 1, size=num), anchor_cls)
    n1 = pick(n1_cls)
    if mode == "triplet":
        return QuadrupletBatch(a, p, n1, None, mode)
    low, high = np.minimum(anchor_cls, n1_cls), np.maximum(anchor_cls, n1_cls)
    n2_cls = _skip(_skip(rng.integers(0, num_classes - 2, size=num), low), high)
    return QuadrupletBatch(a, p, n1, pick(n2_cls), mode)
