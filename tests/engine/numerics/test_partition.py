"""Tests of the NIID-Bench Dirichlet partition (invariants over many seeds) and its guards."""
import math
import time

import numpy as np
import pytest

from fedquad_core.numerics import partition as part_mod
from fedquad_core.numerics.partition import (
    PartitionError,
    class_counts,
    dirichlet_partition,
    iid_partition,
    partition,
)

SEEDS = range(30)


def _labels(n=2000, num_classes=10, seed=123):
    return np.random.default_rng(seed).integers(0, num_classes, size=n)


def _assert_exact_cover(parts, n):
    flat = np.concatenate(parts)
    assert flat.size == n
    np.testing.assert_array_equal(np.sort(flat), np.arange(n))


def _mean_label_entropy(parts, labels, num_classes):
    counts = class_counts(parts, labels, num_classes).astype(float)
    p = counts / counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
    return h.mean()


@pytest.mark.parametrize("seed", SEEDS)
def test_every_sample_in_exactly_one_client_and_min_size(seed):
    labels = _labels()
    parts = dirichlet_partition(labels, 20, 0.3, seed=seed, min_size=10)
    assert len(parts) == 20
    _assert_exact_cover(parts, labels.size)
    for p in parts:
        assert p.size >= 10
        assert p.dtype == np.int64
        assert np.all(np.diff(p) > 0)  # sorted, no duplicates


def test_same_seed_same_result_different_seed_different_result():
    labels = _labels()
    for seed in SEEDS:
        a = dirichlet_partition(labels, 10, 0.5, seed=seed)
        b = dirichlet_partition(labels, 10, 0.5, seed=seed)
        c = dirichlet_partition(labels, 10, 0.5, seed=seed + 1000)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_smaller_alpha_gives_more_skew():
    labels = _labels()
    entropy = {
        alpha: np.mean([_mean_label_entropy(dirichlet_partition(labels, 10, alpha, seed=s), labels, 10) for s in SEEDS])
        for alpha in (0.1, 0.5, 100.0)
    }
    assert entropy[0.1] < entropy[0.5] < entropy[100.0]
    assert entropy[100.0] > 0.95 * math.log(10)  # large alpha approaches IID


def test_row_order_permutation_keeps_class_counts():
    """Shuffling the rows changes which rows a client gets, never the label histogram per client."""
    labels = _labels(n=1000)
    for seed in SEEDS:
        perm = np.random.default_rng(seed + 7).permutation(labels.size)
        a = dirichlet_partition(labels, 8, 0.3, seed=seed)
        b = dirichlet_partition(labels[perm], 8, 0.3, seed=seed)
        np.testing.assert_array_equal(class_counts(a, labels, 10), class_counts(b, labels[perm], 10))


def test_row_order_permutation_maps_indices_consistently():
    """A permutation that keeps the order within each class maps every client's rows exactly."""
    labels = _labels(n=1000)
    for seed in SEEDS:
        rng = np.random.default_rng(seed + 11)
        # new position of each old row: shuffle the slot labels, then fill each class's slots in order
        new_labels = rng.permutation(labels)
        new_pos = np.empty(labels.size, dtype=np.int64)
        for k in np.unique(labels):
            new_pos[np.flatnonzero(labels == k)] = np.flatnonzero(new_labels == k)
        a = dirichlet_partition(labels, 8, 0.3, seed=seed)
        b = dirichlet_partition(new_labels, 8, 0.3, seed=seed)
        for old, new in zip(a, b):
            np.testing.assert_array_equal(np.sort(new_pos[old]), new)


def test_string_labels_are_accepted():
    labels = np.array(["cat", "dog", "eel"] * 40)
    parts = dirichlet_partition(labels, 4, 0.5, seed=0, min_size=5)
    _assert_exact_cover(parts, labels.size)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(num_clients=0, alpha=0.5), "--clients"),
        (dict(num_clients=5, alpha=0.0), "--alpha"),
        (dict(num_clients=5, alpha=-1.0), "--alpha"),
        (dict(num_clients=5, alpha=float("nan")), "--alpha"),
        (dict(num_clients=5, alpha=float("inf")), "--alpha"),
        (dict(num_clients=11, alpha=0.5, min_size=10), "--min-size"),
    ],
)
def test_impossible_settings_raise_before_drawing(kwargs, fragment):
    with pytest.raises(PartitionError, match=fragment) as info:
        dirichlet_partition(np.arange(100) % 3, seed=0, **kwargs)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_empty_labels_raise():
    with pytest.raises(PartitionError, match="empty"):
        dirichlet_partition(np.array([], dtype=int), 2, 0.5, seed=0)


def test_digits_like_setting_fails_quickly_with_a_helpful_message():
    labels = np.random.default_rng(0).integers(0, 10, size=1400)
    start = time.perf_counter()
    with pytest.raises(PartitionError) as info:
        dirichlet_partition(labels, 50, 0.1, seed=0, min_size=10)
    assert time.perf_counter() - start < 30  # bounded, not an endless loop
    message = str(info.value)
    assert "50 clients" in message and "1000 draws" in message and "alpha=0.1" in message
    assert "raise alpha" in message and "--clients" in message and "--min-size" in message


def test_max_retries_bounds_the_loop():
    labels = np.random.default_rng(0).integers(0, 10, size=1400)
    with pytest.raises(PartitionError, match="in 3 draws"):
        dirichlet_partition(labels, 50, 0.1, seed=0, min_size=10, max_retries=3)


def test_masked_shares_zero_sum_guard():
    held = np.array([5, 0, 0, 9])
    cap = 5.0  # client 0 is full, client 3 too
    # all the mass on full clients: renormalising would divide by zero
    np.testing.assert_array_equal(part_mod._masked_shares(np.array([0.4, 0.0, 0.0, 0.6]), held, cap), [0, 0.5, 0.5, 0])
    # every client full (cannot happen in a draw, still no NaN): uniform over all
    np.testing.assert_array_equal(part_mod._masked_shares(np.array([0.0, 1.0]), np.array([3, 3]), 3.0), [0.5, 0.5])
    # the normal path: zero the full clients' shares and renormalise
    np.testing.assert_allclose(part_mod._masked_shares(np.array([0.5, 0.25, 0.25, 0.0]), held, cap), [0, 0.5, 0.5, 0])


def test_zero_sum_guard_is_hit_end_to_end(monkeypatch):
    """With tiny alpha the Dirichlet draw underflows to exact zeros; the guard keeps the split valid."""
    fallbacks = []
    original = part_mod._masked_shares

    def spy(p, held, cap):
        fallbacks.append(not (np.where(held < cap, p, 0.0).sum() > 0))
        return original(p, held, cap)

    monkeypatch.setattr(part_mod, "_masked_shares", spy)
    labels = np.repeat(np.arange(50), 20)
    parts = dirichlet_partition(labels, 20, 1e-6, seed=0, min_size=0)
    assert any(fallbacks)
    _assert_exact_cover(parts, labels.size)


def test_iid_partition_and_dispatch():
    labels = _labels(n=103)
    parts = iid_partition(labels, 10, seed=0)
    _assert_exact_cover(parts, 103)
    assert sorted(len(p) for p in parts) == [10] * 7 + [11] * 3
    by_count = iid_partition(103, 10, seed=0)
    assert all(np.array_equal(x, y) for x, y in zip(parts, by_count))
    for alpha in (None, float("inf")):
        via = partition(labels, 10, alpha, seed=0, min_size=5)
        assert all(np.array_equal(x, y) for x, y in zip(parts, via))
    with pytest.raises(PartitionError, match="--clients"):
        iid_partition(5, 6, seed=0)
    dirichlet = partition(_labels(), 10, 0.5, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(dirichlet, dirichlet_partition(_labels(), 10, 0.5, seed=3)))


def test_class_counts_by_hand():
    labels = np.array([0, 1, 1, 2, 2, 2])
    parts = [np.array([0, 3]), np.array([1, 2, 4, 5]), np.array([], dtype=np.int64)]
    counts = class_counts(parts, labels, 4)
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, [[1, 0, 1, 0], [0, 2, 2, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError):
        class_counts(parts, labels, 2)
