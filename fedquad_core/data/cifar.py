"""CIFAR-10 and CIFAR-100 (Krizhevsky 2009, https://www.cs.toronto.edu/~kriz/cifar.html) in the
"python version" layout that torchvision downloads and extracts:

- ``cifar-10-batches-py/``: ``data_batch_1`` .. ``data_batch_5``, ``test_batch`` (pickled dicts
  with ``b'data'`` uint8 (N, 3072) channel-major rows and ``b'labels'``), ``batches.meta``
  (``b'label_names'``);
- ``cifar-100-python/``: ``train``, ``test`` (``b'data'``, ``b'fine_labels'``), ``meta``
  (``b'fine_label_names'``).

The pickles are parsed directly (no torchvision Dataset object) with a restricted unpickler
(``safe_unpickle``): it builds dicts, lists, str, bytes, numbers and numpy arrays, and refuses
every other global a pickle names (``os.system``, ``builtins.open`` ...) before calling it, so a
crafted batch file cannot run code.
"""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from .base import DataError, RawSplits, Source, data_roots, download_root

_SPEC = {  # name -> folder, train files, test files, meta file, label key, names key, classes
    "cifar10": ("cifar-10-batches-py", [f"data_batch_{i}" for i in range(1, 6)], ["test_batch"],
                "batches.meta", b"labels", b"label_names", 10),
    "cifar100": ("cifar-100-python", ["train"], ["test"], "meta", b"fine_labels",
                 b"fine_label_names", 100),
}
HOW_TO_GET = "pass --data-dir PATH containing {folder}/ (torchvision's layout), or add --download"


def _dirs(name: str, data_dir: str | None) -> list[Path]:
    folder = _SPEC[name][0]
    return [d for root in data_roots(data_dir) for d in (root / folder, root)]


def _find_dir(name: str, data_dir: str | None) -> Path | None:
    folder, train, test, meta, *_ = _SPEC[name]
    for d in _dirs(name, data_dir):
        if all((d / f).is_file() for f in train + test + [meta]):
            return d
    return None


# The only globals the official batches (Python 2 pickles of dicts of numpy arrays, lists and
# byte strings) and pickles of the same dicts written by Python 3 / numpy 1.x-2.x name.
_SAFE_GLOBALS = frozenset({
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),  # protocol 5
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("_codecs", "encode"),  # bytes in protocol-2 pickles written by Python 3
})


class UnsafePickle(pickle.UnpicklingError):
    """The pickle names a global outside ``_SAFE_GLOBALS``."""


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in _SAFE_GLOBALS:
            raise UnsafePickle(f"{module}.{name}")
        return super().find_class(module, name)


def safe_unpickle(f) -> object:
    """``pickle.load(f, encoding="bytes")`` that can only build plain data and numpy arrays."""
    return _SafeUnpickler(f, encoding="bytes").load()


def _unpickle(path: Path, name: str) -> dict:
    try:
        with open(path, "rb") as f:
            obj = safe_unpickle(f)
    except UnsafePickle as err:
        raise DataError(f"refused {name} file {path}: it asks to call {err}, which a CIFAR batch never "
                        f"does (pickles can run code); delete {path.parent} and fetch it again with --download") from None
    except Exception as err:  # truncated / not a pickle: many exception types
        raise DataError(f"corrupt {name} file {path} ({type(err).__name__}): delete "
                        f"{path.parent} and fetch it again with --download") from None
    if not isinstance(obj, dict):
        raise DataError(f"corrupt {name} file {path} (not a dict): delete {path.parent} "
                        "and fetch it again with --download")
    return obj


def _read_split(name: str, d: Path, files: list[str]) -> tuple[np.ndarray, np.ndarray]:
    label_key, xs, ys = _SPEC[name][4], [], []
    for fname in files:
        batch = _unpickle(d / fname, name)
        data = np.asarray(batch.get(b"data", []), dtype=np.uint8)
        labels = np.asarray(batch.get(label_key, []), dtype=np.int64)
        if data.ndim != 2 or data.shape[1] != 3072 or len(data) != len(labels) or not len(data):
            raise DataError(f"corrupt {name} file {d / fname} (data {data.shape}, labels "
                            f"{labels.shape}): delete {d} and fetch it again with --download")
        xs.append(data.reshape(-1, 3, 32, 32))
        ys.append(labels)
    return np.concatenate(xs), np.concatenate(ys)


def _download(name: str, data_dir: str | None) -> None:
    """torchvision's downloader; writes ``<root>/<folder>/``."""
    from torchvision.datasets import CIFAR10, CIFAR100

    root = download_root(data_dir)
    try:
        (CIFAR10 if name == "cifar10" else CIFAR100)(str(root), train=True, download=True)
    except Exception as err:  # network errors come in many types
        raise DataError(f"{name} download into {root} failed ({err}): copy "
                        f"{_SPEC[name][0]}/ to --data-dir PATH") from None


def make_source(name: str, mean: tuple[float, ...], std: tuple[float, ...]) -> Source:
    folder, _, _, meta, label_key, names_key, num_classes = _SPEC[name]
    how = HOW_TO_GET.format(folder=folder)

    def locations(data_dir: str | None = None) -> list[str]:
        return [str(d) for d in _dirs(name, data_dir)]

    def check(data_dir: str | None = None, download: bool = False) -> None:
        if not download and _find_dir(name, data_dir) is None:
            raise DataError(f"{name} not found (looked in {', '.join(locations(data_dir))}): {how}")

    def load(data_dir: str | None = None, download: bool = False) -> RawSplits:
        if download and _find_dir(name, data_dir) is None:
            _download(name, data_dir)
        check(data_dir)
        d = _find_dir(name, data_dir)
        x_tr, y_tr = _read_split(name, d, _SPEC[name][1])
        x_te, y_te = _read_split(name, d, _SPEC[name][2])
        names = tuple(n.decode() if isinstance(n, bytes) else str(n)
                      for n in _unpickle(d / meta, name).get(names_key, []))
        bad = [y for y in (y_tr, y_te) if y.min() < 0 or y.max() >= num_classes]
        if len(names) != num_classes or bad:
            raise DataError(f"corrupt {name} data in {d} ({len(names)} class names, labels "
                            f"outside 0..{num_classes - 1}: {bool(bad)}): delete {d} and fetch "
                            "it again with --download")
        return RawSplits(x_tr, y_tr, x_te, y_te, names)

    return Source(name=name, num_classes=num_classes, input_shape=(3, 32, 32), mean=mean,
                  std=std, augment_default=True, train_size=50000, test_size=10000,
                  how_to_get=how, load=load, check=check, locations=locations,
                  found=lambda data_dir=None: None if _find_dir(name, data_dir) is None else str(_find_dir(name, data_dir)))


CIFAR10 = make_source("cifar10", (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
CIFAR100 = make_source("cifar100", (0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
