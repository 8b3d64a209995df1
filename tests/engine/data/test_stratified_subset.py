"""stratified_subset and load_dataset(train_subset=...)."""
import numpy as np
import pytest

from fedquad_core.data import load_dataset
from fedquad_core.data.subset import stratified_subset


def test_subset_keeps_class_shares_and_is_seeded():
    labels = np.repeat([0, 1, 2], [500, 300, 200])
    idx = stratified_subset(labels, 100, seed=5)
    assert len(idx) == 100 and len(np.unique(idx)) == 100
    assert np.all(np.diff(idx) > 0)
    assert np.bincount(labels[idx]).tolist() == [50, 30, 20]
    assert np.array_equal(idx, stratified_subset(labels, 100, seed=5))
    assert not np.array_equal(idx, stratified_subset(labels, 100, seed=6))


def test_subset_rounding_hits_the_exact_size():
    labels = np.repeat([0, 1, 2], [1, 1, 1])
    for size in (1, 2, 3):
        assert len(stratified_subset(labels, size, seed=0)) == size
    labels = np.repeat(np.arange(7), [13, 1, 29, 5, 8, 2, 42])
    for seed in range(20):
        idx = stratified_subset(labels, 37, seed)
        expected = np.bincount(labels) * 37 / len(labels)
        assert len(idx) == 37
        assert np.all(np.abs(np.bincount(labels[idx], minlength=7) - expected) < 1)


@pytest.mark.parametrize("size", [0, 11, -1])
def test_subset_size_out_of_range(size):
    with pytest.raises(ValueError, match="train_subset"):
        stratified_subset(np.zeros(10, dtype=int), size, seed=0)


def test_load_dataset_train_subset_on_digits():
    full = load_dataset("digits")
    sub = load_dataset("digits", train_subset=700, seed=3)
    assert sub.x_train.shape == (700, 64)
    counts = np.bincount(sub.y_train.numpy(), minlength=10)
    expected = np.bincount(full.y_train.numpy()) / 2
    assert np.all(np.abs(counts - expected) < 1)
    assert len(sub.x_test) == len(full.x_test)
    again = load_dataset("digits", train_subset=700, seed=3)
    assert (sub.x_train == again.x_train).all()
