"""Writers for tiny data sets in the real on-disk formats (IDX, CIFAR pickles, the
tiny-imagenet-200 tree), used by the loader tests instead of downloads."""
from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import numpy as np
import pytest

from fedquad_core.data import fashion_mnist


@pytest.fixture(autouse=True)
def _isolated_search(monkeypatch, tmp_path):
    """No test sees Debian's files, ``$FEDQUAD_DATA_DIR`` or a ``./data`` folder by accident."""
    monkeypatch.setattr(fashion_mnist, "DEBIAN_DIRS", ())
    monkeypatch.delenv("FEDQUAD_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)


def write_idx(path: Path, array: np.ndarray, magic: int | None = None) -> Path:
    """IDX file of unsigned bytes; gzipped when ``path`` ends in .gz."""
    magic = (0x0800 | array.ndim) if magic is None else magic
    header = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in array.shape)
    payload = header + array.astype(np.uint8).tobytes()
    path.write_bytes(gzip.compress(payload) if path.suffix == ".gz" else payload)
    return path


class FashionFiles:
    """A tiny Fashion-MNIST: 20 train / 10 test images with known pixels and labels."""

    def __init__(self, directory: Path, gz: bool = True):
        rng = np.random.default_rng(1)
        self.dir = directory
        self.x_train = rng.integers(0, 256, (20, 28, 28), dtype=np.uint8)
        self.y_train = np.arange(20, dtype=np.uint8) % 10
        self.x_test = rng.integers(0, 256, (10, 28, 28), dtype=np.uint8)
        self.y_test = np.arange(10, dtype=np.uint8)[::-1].copy()
        ext = ".gz" if gz else ""
        directory.mkdir(parents=True, exist_ok=True)
        for stem, arr in (("train-images-idx3-ubyte", self.x_train),
                          ("train-labels-idx1-ubyte", self.y_train),
                          ("t10k-images-idx3-ubyte", self.x_test),
                          ("t10k-labels-idx1-ubyte", self.y_test)):
            write_idx(directory / (stem + ext), arr)


@pytest.fixture
def fashion_dir(tmp_path) -> FashionFiles:
    return FashionFiles(tmp_path / "fm")


def _pickle(path: Path, obj: dict) -> None:
    with open(path, "wb") as f:
        pickle.dump(obj, f)


class CifarFiles:
    """CIFAR-10 (5 train batches of 4 + test batch of 5) or CIFAR-100 (train 8, test 5)."""

    def __init__(self, root: Path, hundred: bool):
        rng = np.random.default_rng(2)
        self.root = root
        self.classes = 100 if hundred else 10
        self.dir = root / ("cifar-100-python" if hundred else "cifar-10-batches-py")
        self.dir.mkdir(parents=True)
        label_key = b"fine_labels" if hundred else b"labels"
        train = ["train"] if hundred else [f"data_batch_{i}" for i in range(1, 6)]
        n_train = 8 if hundred else 4
        self.train_rows, self.train_labels = [], []
        for fname in train:
            rows = rng.integers(0, 256, (n_train, 3072), dtype=np.uint8)
            labels = [int(v) for v in rng.integers(0, self.classes, n_train)]
            self._batch(fname, rows, labels, label_key)
            self.train_rows.append(rows)
            self.train_labels += labels
        self.train_rows = np.concatenate(self.train_rows)
        self.test_rows = rng.integers(0, 256, (5, 3072), dtype=np.uint8)
        self.test_labels = [self.classes - 1, 0, 1, 2, 3]
        self._batch("test" if hundred else "test_batch", self.test_rows, self.test_labels,
                    label_key)
        self.names = [f"class{i}" for i in range(self.classes)]
        names_key = b"fine_label_names" if hundred else b"label_names"
        # the real meta files hold bytes names when unpickled with encoding="bytes"
        _pickle(self.dir / ("meta" if hundred else "batches.meta"),
                {names_key: [n.encode() for n in self.names], b"coarse_label_names": [b"c"] * 20})

    def _batch(self, fname, rows, labels, label_key):
        obj = {b"batch_label": b"x", b"data": rows, label_key: labels,
               b"filenames": [b"f.png"] * len(labels)}
        if label_key == b"fine_labels":
            obj[b"coarse_labels"] = [0] * len(labels)
        _pickle(self.dir / fname, obj)


@pytest.fixture
def cifar10_files(tmp_path) -> CifarFiles:
    return CifarFiles(tmp_path / "cifar", hundred=False)


@pytest.fixture
def cifar100_files(tmp_path) -> CifarFiles:
    return CifarFiles(tmp_path / "cifar", hundred=True)


class TinyImageNetTree:
    """tiny-imagenet-200/ with 3 wnids, 2 train JPEGs each (one grey, one 48x48), 4 val JPEGs.
    Each image is one flat colour so JPEG compression keeps it (almost) exact."""

    WNIDS = ["n01443537", "n01629819", "n01641577"]

    def __init__(self, root: Path):
        from PIL import Image

        self.root, self.dir = root, root / "tiny-imagenet-200"
        self.colours = {}
        d = self.dir
        (d / "val" / "images").mkdir(parents=True)
        (d / "wnids.txt").write_text("\n".join(self.WNIDS) + "\n")
        (d / "words.txt").write_text("n01443537\tgoldfish, Carassius auratus\n"
                                     "n01629819\tEuropean fire salamander\nn09999999\tother\n")
        for k, wnid in enumerate(self.WNIDS):
            (d / "train" / wnid / "images").mkdir(parents=True)
            for j in range(2):
                colour = (40 * k + 20, 100 + 50 * j, 200 - 60 * k)
                self._save(Image, d / "train" / wnid / "images" / f"{wnid}_{j}.JPEG", colour)
        self.val_labels = [2, 0, 1, 2]
        lines = []
        for i, label in enumerate(self.val_labels):
            self._save(Image, d / "val" / "images" / f"val_{i}.JPEG", (10 + 60 * i, 90, 30))
            lines.append(f"val_{i}.JPEG\t{self.WNIDS[label]}\t0\t0\t63\t63")
        (d / "val" / "val_annotations.txt").write_text("\n".join(lines) + "\n")
        grey = d / "train" / self.WNIDS[1] / "images" / f"{self.WNIDS[1]}_1.JPEG"
        Image.new("L", (64, 64), 128).save(grey)
        self.colours[grey.name] = (128, 128, 128)
        small = d / "train" / self.WNIDS[2] / "images" / f"{self.WNIDS[2]}_0.JPEG"
        Image.new("RGB", (48, 48), (70, 140, 210)).save(small)
        self.colours[small.name] = (70, 140, 210)

    def _save(self, image_mod, path: Path, colour) -> None:
        image_mod.new("RGB", (64, 64), colour).save(path, quality=95)
        self.colours[path.name] = colour

    def train_colours(self) -> np.ndarray:
        names = [f"{w}_{j}.JPEG" for w in self.WNIDS for j in range(2)]
        return np.array([self.colours[n] for n in names])


@pytest.fixture
def tiny_tree(tmp_path) -> TinyImageNetTree:
    return TinyImageNetTree(tmp_path / "tin")


# Helpers as fixtures, so tests need no `import conftest` (ambiguous without __init__.py).
@pytest.fixture
def idx_writer():
    return write_idx


@pytest.fixture
def fashion_factory():
    return FashionFiles
