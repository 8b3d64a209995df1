"""Class-stratified random subsets of a labelled training set (seeded, reproducible)."""
from __future__ import annotations

import numpy as np


def stratified_subset(labels: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Indices (sorted) of ``size`` samples drawn without replacement so that every class keeps
    its share of the data (largest-remainder rounding), from ``np.random.default_rng(seed)``."""
    labels = np.asarray(labels)
    n = len(labels)
    if not 1 <= size <= n:
        raise ValueError(f"train_subset must be between 1 and {n}, got {size}")
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(labels, return_counts=True)
    exact = counts * size / n
    take = np.floor(exact).astype(int)
    remainder_order = np.argsort(-(exact - take), kind="stable")
    take[remainder_order[: size - take.sum()]] += 1
    picked = [rng.choice(np.flatnonzero(labels == cls), k, replace=False)
              for cls, k in zip(classes, take)]
    return np.sort(np.concatenate(picked))
