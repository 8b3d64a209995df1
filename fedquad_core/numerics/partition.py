"""Label-skew partitions of a labelled data set over federated clients.

The Dirichlet split follows NIID-Bench (Li, Diao, Chen, He, "Federated Learning on Non-IID Data
Silos: An Experimental Study", ICDE 2022), the procedure also used by MOON (Li, He, Song, CVPR
2021) and FedQuad (Goksu & Pugeault, arXiv 2509.04107): for each class, shuffle its indices, draw
``p ~ Dir(alpha * 1_n)``, zero the share of every client already holding ``>= N/n`` samples,
renormalise and cut the class at ``cumsum(p) * len``; repeat the whole draw until every client
holds at least ``min_size`` samples.

Two failures of public implementations are fixed here:

* the retry loop is bounded (``max_retries``) and ends in a one-line :class:`PartitionError`
  naming the setting to change, and impossible settings are refused before any draw;
* when every client that may still receive samples got an exactly-zero share (tiny alpha
  underflows), the class is spread uniformly over those clients instead of dividing by zero.

Randomness comes only from ``np.random.default_rng(seed)``; every returned index array is sorted.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["PartitionError", "dirichlet_partition", "iid_partition", "partition", "class_counts"]


class PartitionError(ValueError):
    """A partition that cannot be built with the requested settings."""


def _check_common(n: int, num_clients: int, min_size: int) -> None:
    if n == 0:
        raise PartitionError("cannot partition an empty label array: load a non-empty data set")
    if not isinstance(num_clients, (int, np.integer)) or num_clients < 1:
        raise PartitionError(f"--clients must be an integer >= 1, got {num_clients!r}")
    if min_size < 0:
        raise PartitionError(f"--min-size must be >= 0, got {min_size}")
    if num_clients * min_size > n:
        raise PartitionError(
            f"{num_clients} clients x {min_size} samples (--min-size) = {num_clients * min_size}"
            f" > {n} samples: lower --clients or lower --min-size"
        )


def _masked_shares(p: np.ndarray, held: np.ndarray, cap: float) -> np.ndarray:
    """Zero the share of clients holding ``>= cap`` samples and renormalise (zero-sum guarded).

    If the remaining mass is zero or not finite, the class is spread uniformly over the clients
    that are not full, or over all clients if every client is full.
    """
    open_ = held < cap
    q = np.where(open_, p, 0.0)
    total = q.sum()
    if total > 0 and math.isfinite(total):
        return q / total
    fallback = open_ if open_.any() else np.ones_like(open_)
    return fallback / fallback.sum()


def _cut_sizes(shares: np.ndarray, length: int) -> np.ndarray:
    """How many of ``length`` samples each client gets when cutting at ``cumsum(shares) * length``."""
    cuts = np.clip((np.cumsum(shares) * length).astype(np.int64)[:-1], 0, length)
    return np.diff(np.concatenate(([0], cuts, [length])))


def _groups(assignment: np.ndarray, num_clients: int) -> list[np.ndarray]:
    order = np.argsort(assignment, kind="stable")  # stable: indices stay sorted within a client
    sizes = np.bincount(assignment, minlength=num_clients)
    return np.split(order, np.cumsum(sizes)[:-1])


def dirichlet_partition(
    labels,
    num_clients: int,
    alpha: float,
    *,
    seed: int,
    min_size: int = 10,
    max_retries: int = 1000,
) -> list[np.ndarray]:
    """Split sample indices over ``num_clients`` with Dirichlet(alpha) label skew (NIID-Bench).

    Returns one sorted ``int64`` index array per client; together they hold every index exactly
    once and each holds at least ``min_size`` indices. Raises :class:`PartitionError` early on
    impossible settings and after ``max_retries`` unsuccessful draws.
    """
    labels = np.asarray(labels).ravel()
    n = labels.size
    _check_common(n, num_clients, min_size)
    if not (isinstance(alpha, (int, float, np.number)) and math.isfinite(alpha) and alpha > 0):
        raise PartitionError(f"--alpha must be a finite number > 0, got {alpha!r} (use iid for inf)")
    if max_retries < 1:
        raise PartitionError(f"max_retries must be >= 1, got {max_retries}")

    rng = np.random.default_rng(seed)
    _, inverse = np.unique(labels, return_inverse=True)
    by_class = np.argsort(inverse, kind="stable")
    class_idx = np.split(by_class, np.cumsum(np.bincount(inverse))[:-1])
    cap = n / num_clients
    client_ids = np.arange(num_clients)
    concentration = np.full(num_clients, float(alpha))
    fewest_short = num_clients
    for _ in range(max_retries):
        assignment = np.empty(n, dtype=np.int64)
        held = np.zeros(num_clients, dtype=np.int64)
        for idx in class_idx:
            idx = rng.permutation(idx)
            shares = _masked_shares(rng.dirichlet(concentration), held, cap)
            sizes = _cut_sizes(shares, idx.size)
            assignment[idx] = np.repeat(client_ids, sizes)
            held += sizes
        short = int((held < min_size).sum())
        if short == 0:
            return _groups(assignment, num_clients)
        fewest_short = min(fewest_short, short)
    raise PartitionError(
        f"could not give all {num_clients} clients >= {min_size} samples in {max_retries} draws"
        f" (alpha={alpha}, {n} samples; best draw left {fewest_short} clients short):"
        " raise alpha, lower --clients or lower --min-size"
    )


def iid_partition(labels_or_n, num_clients: int, *, seed: int, min_size: int = 1) -> list[np.ndarray]:
    """Shuffle all indices and split them into ``num_clients`` near-equal sorted parts.

    ``labels_or_n`` is either the label array or the number of samples.
    """
    n = int(labels_or_n) if np.ndim(labels_or_n) == 0 else np.asarray(labels_or_n).size
    _check_common(n, num_clients, max(min_size, 1))
    perm = np.random.default_rng(seed).permutation(n)
    return [np.sort(part) for part in np.array_split(perm, num_clients)]


def partition(labels, num_clients: int, alpha: float | None, *, seed: int, min_size: int = 10):
    """Dirichlet split for a finite ``alpha``; IID split when ``alpha`` is ``None`` or ``inf``."""
    if alpha is None or (isinstance(alpha, (int, float, np.number)) and math.isinf(alpha) and alpha > 0):
        return iid_partition(labels, num_clients, seed=seed, min_size=max(min_size, 1))
    return dirichlet_partition(labels, num_clients, alpha, seed=seed, min_size=min_size)


def class_counts(parts, labels, num_classes: int) -> np.ndarray:
    """Matrix ``(clients x classes)`` of int64 sample counts; labels must lie in ``[0, num_classes)``."""
    labels = np.asarray(labels).ravel()
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"labels must lie in [0, {num_classes}), got [{labels.min()}, {labels.max()}]")
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    if sizes.sum() == 0:
        return np.zeros((len(parts), num_classes), dtype=np.int64)
    owner = np.repeat(np.arange(len(parts)), sizes)
    flat = labels[np.concatenate([np.asarray(p, dtype=np.int64) for p in parts])].astype(np.int64)
    counts = np.bincount(owner * num_classes + flat, minlength=len(parts) * num_classes)
    return counts.reshape(len(parts), num_classes).astype(np.int64)
