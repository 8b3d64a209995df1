"""``data_source`` says which files a load reads (shown by the run and stored in its status)."""
from fedquad_core.data import DATASETS, data_source


def test_each_data_set_names_its_files(fashion_dir, cifar10_files, tiny_tree):
    assert data_source("digits").startswith("bundled with scikit-learn")
    assert data_source("fashion-mnist", data_dir=str(fashion_dir.dir)) == str(fashion_dir.dir)
    assert data_source("cifar10", data_dir=str(cifar10_files.root)) == str(cifar10_files.dir)
    assert data_source("tiny-imagenet", data_dir=str(tiny_tree.root)) == str(tiny_tree.dir)


def test_missing_data_has_no_source(tmp_path):
    for name in DATASETS:
        if name != "digits":
            assert data_source(name, data_dir=str(tmp_path)) is None
