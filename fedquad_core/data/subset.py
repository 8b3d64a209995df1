"""Class-stratified random subsets of a labelled training set (seeded, reproducible)."""
from __future__ import annotations

import numpy as np

from ..numerics.geometry import stratified_subset as _stratified


def stratified_subset(labels: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Indices (sorted) of ``size`` samples drawn without replacement so that every class keeps
    its share of the data (largest-remainder rounding), from ``np.random.default_rng(seed)``;
    ``geometry.stratified_subset`` draws them, after the range check a training subset needs."""
    n = len(np.asarray(labels))
    if not 1 <= size <= n:
        raise ValueError(f"train_subset must be between 1 and {n}, got {size}")
    return _stratified(labels, size, seed=seed)
