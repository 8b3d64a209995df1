"""digits: fixed stratified split 1,400 / 397 of sklearn's bundled images."""
import numpy as np
import torch
from sklearn.datasets import load_digits

from fedquad_core.data import digits, load_dataset

# first training labels of the fixed split (seed 20250904); a change means every past
# digits result is no longer comparable
PINNED_FIRST_TRAIN_LABELS = [3, 8, 6, 8, 4, 0, 5, 2, 3, 7]


def test_digits_shapes_dtypes_and_values():
    ds = load_dataset("digits")
    assert ds.x_train.shape == (1400, 64) and ds.x_test.shape == (397, 64)
    assert ds.x_train.dtype == torch.float32 and ds.y_train.dtype == torch.int64
    assert ds.input_shape == (64,) and ds.num_classes == 10 and not ds.augment_default
    assert ds.x_train.min() == 0 and ds.x_train.max() == 1
    assert ds.class_names == tuple("0123456789")


def test_digits_split_is_a_partition_of_the_bundled_data():
    full = load_digits()
    ds = load_dataset("digits")
    both = np.concatenate([ds.x_train.numpy(), ds.x_test.numpy()]) * 16
    rows = lambda a: sorted(map(tuple, a.round().astype(int)))  # noqa: E731
    assert rows(both) == rows(full.data)
    y = np.concatenate([ds.y_train.numpy(), ds.y_test.numpy()])
    assert np.array_equal(np.bincount(y), np.bincount(full.target))


def test_digits_split_is_stratified():
    ds = load_dataset("digits")
    share_train = np.bincount(ds.y_train.numpy()) / 1400
    share_test = np.bincount(ds.y_test.numpy()) / 397
    assert np.all(np.abs(share_train - share_test) < 0.01)


def test_digits_split_is_fixed_across_cache_clears():
    first = load_dataset("digits")
    digits._split.cache_clear()
    second = load_dataset("digits")
    assert torch.equal(first.x_train, second.x_train)
    assert torch.equal(first.y_test, second.y_test)
    # pin the split itself, so a change of seed or of the splitting code is noticed
    assert second.y_train[:10].tolist() == PINNED_FIRST_TRAIN_LABELS


def test_digits_is_cached_and_callers_cannot_corrupt_the_cache():
    load_dataset("digits")
    hits = digits._split.cache_info().hits
    ds = load_dataset("digits")
    assert digits._split.cache_info().hits == hits + 1
    ds.x_train.fill_(7.0)
    assert load_dataset("digits").x_train.max() == 1


def test_digits_normalisation_constants_match_training_data():
    ds = load_dataset("digits")
    assert abs(ds.x_train.mean().item() - ds.mean[0]) < 1e-3
    assert abs(ds.x_train.std().item() - ds.std[0]) < 1e-3
    out = ds.prepare(ds.x_train)
    assert abs(out.mean().item()) < 1e-2 and abs(out.std().item() - 1) < 1e-2
