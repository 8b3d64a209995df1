"""Registry: names, unknown names, data_summary, and the engine's import hygiene."""
import subprocess
import sys

import pytest

from fedquad_core.data import DATASETS, DataError, check_data, data_summary, load_dataset


def test_dataset_names():
    assert DATASETS == ("digits", "fashion-mnist", "cifar10", "cifar100", "tiny-imagenet")


@pytest.mark.parametrize("call", [load_dataset, check_data, data_summary])
def test_unknown_name_lists_valid_names(call):
    with pytest.raises(DataError) as err:
        call("mnist")
    assert all(name in str(err.value) for name in DATASETS)


@pytest.mark.parametrize("name", DATASETS)
def test_summary_is_static_and_complete(name, tmp_path):
    info = data_summary(name, data_dir=str(tmp_path))
    assert info["name"] == name and info["num_classes"] in (10, 100, 200)
    assert len(info["mean"]) == len(info["std"]) == (1 if len(info["input_shape"]) < 3
                                                     else info["input_shape"][0])
    assert info["train_size"] > info["test_size"] > 0
    assert info["locations"] and info["how_to_get"]
    assert info["available"] == (name == "digits")


def test_digits_check_always_passes():
    check_data("digits", data_dir="/nonexistent")


def test_engine_does_not_import_ui_libraries():
    code = ("import sys, fedquad_core.data as d; d.load_dataset('digits'); "
            "print([m for m in ('streamlit', 'plotly', 'umap') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"OMP_NUM_THREADS": "1"})
    assert out.stdout.strip() == "[]"
