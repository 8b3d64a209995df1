"""CIFAR-10/100: torchvision's pickled layout parsed directly; corrupt and missing files."""
import numpy as np
import pytest
import torch

from fedquad_core.data import DataError, check_data, load_dataset


def test_cifar10_round_trip(cifar10_files):
    f = cifar10_files
    check_data("cifar10", data_dir=str(f.root))
    ds = load_dataset("cifar10", data_dir=str(f.root))
    assert ds.x_train.shape == (20, 3, 32, 32) and ds.x_test.shape == (5, 3, 32, 32)
    assert ds.x_train.dtype == torch.uint8 and ds.y_train.dtype == torch.int64
    # rows are channel-major: 1024 red, 1024 green, 1024 blue values, each row by row
    assert np.array_equal(ds.x_train[7, 1].numpy(), f.train_rows[7, 1024:2048].reshape(32, 32))
    assert np.array_equal(ds.x_train.reshape(20, -1).numpy(), f.train_rows)
    assert np.array_equal(ds.x_test.reshape(5, -1).numpy(), f.test_rows)
    assert ds.y_train.tolist() == f.train_labels and ds.y_test.tolist() == [9, 0, 1, 2, 3]
    assert ds.class_names == tuple(f.names) and ds.num_classes == 10
    assert ds.input_shape == (3, 32, 32) and ds.augment_default
    assert ds.mean == (0.4914, 0.4822, 0.4465) and ds.std == (0.2470, 0.2435, 0.2616)


def test_cifar10_folder_itself_as_data_dir(cifar10_files):
    ds = load_dataset("cifar10", data_dir=str(cifar10_files.dir))
    assert len(ds.x_train) == 20


def test_cifar100_uses_fine_labels(cifar100_files):
    f = cifar100_files
    ds = load_dataset("cifar100", data_dir=str(f.root))
    assert ds.x_train.shape == (8, 3, 32, 32) and ds.num_classes == 100
    assert ds.y_train.tolist() == f.train_labels and ds.y_test.tolist() == [99, 0, 1, 2, 3]
    assert np.array_equal(ds.x_test.reshape(5, -1).numpy(), f.test_rows)
    assert ds.class_names[99] == "class99"
    assert ds.mean == (0.5071, 0.4865, 0.4409)


def test_truncated_pickle_is_corrupt(cifar10_files):
    path = cifar10_files.dir / "data_batch_3"
    path.write_bytes(path.read_bytes()[:500])
    with pytest.raises(DataError, match=r"corrupt cifar10 file .*data_batch_3.*--download"):
        load_dataset("cifar10", data_dir=str(cifar10_files.root))


def test_wrong_row_length_is_corrupt(cifar100_files):
    import pickle
    with open(cifar100_files.dir / "test", "wb") as fh:
        pickle.dump({b"data": np.zeros((5, 3000), np.uint8), b"fine_labels": [0] * 5}, fh)
    with pytest.raises(DataError, match=r"corrupt cifar100 file .*test \(data \(5, 3000\)"):
        load_dataset("cifar100", data_dir=str(cifar100_files.root))


@pytest.mark.parametrize("name,folder", [("cifar10", "cifar-10-batches-py"),
                                         ("cifar100", "cifar-100-python")])
def test_missing_cifar_names_the_remedy(tmp_path, name, folder):
    for call in (check_data, load_dataset):
        with pytest.raises(DataError) as err:
            call(name, data_dir=str(tmp_path))
        msg = str(err.value)
        assert "\n" not in msg and folder in msg
        assert "--data-dir PATH" in msg and "--download" in msg


def test_missing_test_batch_is_missing_data(cifar10_files):
    (cifar10_files.dir / "test_batch").unlink()
    with pytest.raises(DataError, match="cifar10 not found"):
        check_data("cifar10", data_dir=str(cifar10_files.root))


def test_check_with_download_defers_to_the_download(tmp_path):
    check_data("cifar10", data_dir=str(tmp_path), download=True)  # does not raise, no network
