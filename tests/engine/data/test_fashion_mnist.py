"""Fashion-MNIST: IDX parsing round trip, corrupt files, search order, missing data."""
from pathlib import Path

import numpy as np
import pytest
import torch

from fedquad_core.data import DataError, check_data, fashion_mnist, load_dataset
from fedquad_core.data.idx import IMAGES_MAGIC, read_idx


def assert_round_trip(ds, files):
    assert ds.x_train.shape == (20, 1, 28, 28) and ds.x_test.shape == (10, 1, 28, 28)
    assert ds.x_train.dtype == torch.uint8 and ds.y_train.dtype == torch.int64
    assert np.array_equal(ds.x_train[:, 0].numpy(), files.x_train)
    assert np.array_equal(ds.x_test[:, 0].numpy(), files.x_test)
    assert ds.y_train.tolist() == files.y_train.tolist()
    assert ds.y_test.tolist() == list(range(9, -1, -1))
    assert ds.input_shape == (1, 28, 28) and ds.num_classes == 10
    assert ds.class_names[0] == "T-shirt/top" and ds.class_names[9] == "Ankle boot"
    assert ds.mean == (0.2860,) and ds.std == (0.3530,)


def test_gzipped_idx_round_trip(fashion_dir):
    check_data("fashion-mnist", data_dir=str(fashion_dir.dir))
    assert_round_trip(load_dataset("fashion-mnist", data_dir=str(fashion_dir.dir)), fashion_dir)


def test_plain_idx_round_trip(tmp_path, fashion_factory):
    files = fashion_factory(tmp_path / "plain", gz=False)
    assert_round_trip(load_dataset("fashion-mnist", data_dir=str(files.dir)), files)


def test_torchvision_raw_layout(tmp_path, fashion_factory):
    files = fashion_factory(tmp_path / "root" / "FashionMNIST" / "raw")
    ds = load_dataset("fashion-mnist", data_dir=str(tmp_path / "root"))
    assert_round_trip(ds, files)


def test_debian_directory_is_searched(monkeypatch, tmp_path, fashion_factory):
    files = fashion_factory(tmp_path / "usr-share")
    monkeypatch.setattr(fashion_mnist, "DEBIAN_DIRS", (str(files.dir),))
    assert_round_trip(load_dataset("fashion-mnist"), files)


def test_missing_data_names_every_remedy(tmp_path):
    for call in (check_data, load_dataset):
        with pytest.raises(DataError) as err:
            call("fashion-mnist", data_dir=str(tmp_path / "empty"))
        msg = str(err.value)
        assert "\n" not in msg
        assert "apt-get install dataset-fashion-mnist" in msg
        assert "--data-dir PATH" in msg and "--download" in msg
        assert str(tmp_path / "empty") in msg


def test_bad_magic_is_reported_as_corrupt(fashion_dir, idx_writer):
    idx_writer(fashion_dir.dir / "train-labels-idx1-ubyte.gz", fashion_dir.y_train, magic=0x0803)
    with pytest.raises(DataError, match=r"corrupt IDX file .*train-labels.*magic.*--download"):
        load_dataset("fashion-mnist", data_dir=str(fashion_dir.dir))


def test_truncated_gzip_is_reported_as_corrupt(fashion_dir):
    path = fashion_dir.dir / "t10k-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(DataError, match=r"corrupt IDX file .*t10k-images.*reinstall"):
        load_dataset("fashion-mnist", data_dir=str(fashion_dir.dir))


def test_truncated_payload_is_reported_as_corrupt(tmp_path, idx_writer):
    path = idx_writer(tmp_path / "x-idx3-ubyte", np.zeros((3, 28, 28), np.uint8))
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(DataError, match="header promises 2352"):
        read_idx(path, IMAGES_MAGIC, "fix it")
    assert read_idx(idx_writer(tmp_path / "ok.gz", np.ones((2, 3, 4), np.uint8)),
                    IMAGES_MAGIC, "").shape == (2, 3, 4)


def test_label_count_mismatch_is_corrupt(fashion_dir, idx_writer):
    idx_writer(fashion_dir.dir / "t10k-labels-idx1-ubyte.gz", np.zeros(9, np.uint8))
    with pytest.raises(DataError, match="corrupt Fashion-MNIST test"):
        load_dataset("fashion-mnist", data_dir=str(fashion_dir.dir))


REAL = Path(fashion_mnist.DEBIAN_DIRS[0]) if fashion_mnist.DEBIAN_DIRS else None


@pytest.mark.skipif(REAL is None or not (REAL / "train-images-idx3-ubyte.gz").is_file(),
                    reason="Debian's Fashion-MNIST files are not installed "
                           "(sudo apt-get install dataset-fashion-mnist)")
def test_real_debian_files():
    ds = load_dataset("fashion-mnist", data_dir=str(REAL))
    assert ds.x_train.shape == (60000, 1, 28, 28) and ds.x_test.shape == (10000, 1, 28, 28)
    assert np.bincount(ds.y_train.numpy()).tolist() == [6000] * 10
    assert np.bincount(ds.y_test.numpy()).tolist() == [1000] * 10
    assert abs(ds.x_train.float().mean().item() / 255 - ds.mean[0]) < 1e-3
    assert abs((ds.x_train.float() / 255).std().item() - ds.std[0]) < 1e-3
    sub = load_dataset("fashion-mnist", data_dir=str(REAL), train_subset=12000, seed=0)
    assert np.bincount(sub.y_train.numpy()).tolist() == [1200] * 10
