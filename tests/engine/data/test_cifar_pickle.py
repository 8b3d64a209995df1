"""CIFAR batches are read with a restricted unpickler: plain data and numpy arrays load, a pickle
that asks for any other callable (here: ones that would create a file) is refused before it runs."""
import os
import pathlib
import pickle

import numpy as np
import pytest

from fedquad_core.data import DataError, load_dataset
from fedquad_core.data.cifar import safe_unpickle


class _Call:
    """Pickles as ``func(*args)``: what a crafted batch file does."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _payloads(target: pathlib.Path):
    return {
        "os.system": _Call(os.system, f"touch {target}"),
        "builtins.open": _Call(open, str(target), "w"),
        "pathlib.Path.touch": _Call(pathlib.Path.touch, pathlib.Path(target)),
        "eval": _Call(eval, f"open({str(target)!r}, 'w')"),
    }


@pytest.mark.parametrize("kind", ["os.system", "builtins.open", "pathlib.Path.touch", "eval"])
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_crafted_batch_is_refused_and_runs_nothing(cifar10_files, tmp_path, kind, protocol):
    target = tmp_path / "pwned"
    batch = cifar10_files.dir / "data_batch_2"
    payload = {b"data": np.zeros((4, 3072), np.uint8), b"labels": [0] * 4, b"x": _payloads(target)[kind]}
    batch.write_bytes(pickle.dumps(payload, protocol=protocol))
    with pytest.raises(DataError) as err:
        load_dataset("cifar10", data_dir=str(cifar10_files.root))
    msg = str(err.value)
    assert "\n" not in msg and "refused cifar10 file" in msg and str(batch) in msg
    assert not target.exists()


@pytest.mark.parametrize("protocol", [0, 1, 2, 3, 4, 5])
def test_plain_data_and_arrays_load_under_every_protocol(protocol):
    obj = {b"data": np.arange(12, dtype=np.uint8).reshape(3, 4), b"labels": [1, 2, 3], b"name": b"x",
           "s": "text", "f": 0.5, "t": (1, None, True), "o": np.array(["a", 1], dtype=object)}
    import io

    out = safe_unpickle(io.BytesIO(pickle.dumps(obj, protocol=protocol)))
    assert np.array_equal(out[b"data"], obj[b"data"]) and out[b"data"].dtype == np.uint8
    assert out[b"labels"] == [1, 2, 3] and out[b"name"] == b"x" and out["s"] == "text" and out["t"] == (1, None, True)
    assert out["o"].tolist() == ["a", 1]


def test_python2_style_pickle_with_numpy_core_path_loads():
    """The official batches were written by Python 2 numpy: they name numpy.core.multiarray."""
    import io

    blob = pickle.dumps({b"data": np.ones((2, 3), np.uint8)}, protocol=2)
    blob = blob.replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    out = safe_unpickle(io.BytesIO(blob))
    assert out[b"data"].tolist() == [[1, 1, 1], [1, 1, 1]]
