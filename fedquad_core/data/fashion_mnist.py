"""Fashion-MNIST (Xiao, Rasul, Vollgraf 2017, arXiv 1708.07747): 28x28 grey, 10 classes,
60,000 train / 10,000 test, stored as the original IDX files.

Looked for, in order: ``data_dir`` (flat, ``data_dir/fashion-mnist/`` or torchvision's
``data_dir/FashionMNIST/raw/`` layout), then Debian's package ``dataset-fashion-mnist`` which
installs the gzipped files in ``/usr/share/datasets/fashion-mnist`` (``dpkg -L``). With
``download=True`` torchvision's downloader fetches them into ``data_dir/FashionMNIST/raw/``.
Normalisation constants: mean 0.2860, std 0.3530 (the usual values for the training set).
"""
from __future__ import annotations

from pathlib import Path

from .base import DataError, RawSplits, Source, data_roots, download_root
from .idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx

DEBIAN_DIRS: tuple[str, ...] = ("/usr/share/datasets/fashion-mnist",)
FILES = {
    "x_train": ("train-images-idx3-ubyte", IMAGES_MAGIC),
    "y_train": ("train-labels-idx1-ubyte", LABELS_MAGIC),
    "x_test": ("t10k-images-idx3-ubyte", IMAGES_MAGIC),
    "y_test": ("t10k-labels-idx1-ubyte", LABELS_MAGIC),
}
CLASS_NAMES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")
HOW_TO_GET = ("run `sudo apt-get install dataset-fashion-mnist`, or pass --data-dir PATH "
              "holding train-images-idx3-ubyte.gz etc., or add --download")
FIX_CORRUPT = ("delete it and reinstall (`sudo apt-get install --reinstall dataset-fashion-mnist`)"
               " or fetch it again with --download")


def candidate_dirs(data_dir: str | None) -> list[Path]:
    dirs = []
    for root in data_roots(data_dir):
        dirs += [root, root / "fashion-mnist", root / "FashionMNIST" / "raw"]
    return dirs + [Path(d) for d in DEBIAN_DIRS]


def _file_in(directory: Path, stem: str) -> Path | None:
    for name in (stem + ".gz", stem):
        if (directory / name).is_file():
            return directory / name
    return None


def find_files(data_dir: str | None) -> dict[str, Path] | None:
    """The four IDX files from the first directory holding all of them, else None."""
    for directory in candidate_dirs(data_dir):
        found = {key: _file_in(directory, stem) for key, (stem, _) in FILES.items()}
        if all(found.values()):
            return found
    return None


def locations(data_dir: str | None = None) -> list[str]:
    return [str(d) for d in candidate_dirs(data_dir)]


def check(data_dir: str | None = None, download: bool = False) -> None:
    if download or find_files(data_dir) is not None:
        return
    raise DataError(f"Fashion-MNIST not found (looked in {', '.join(locations(data_dir))}): "
                    f"{HOW_TO_GET}")


def _download(data_dir: str | None) -> None:
    """torchvision's downloader; writes ``<root>/FashionMNIST/raw/*``."""
    from torchvision.datasets import FashionMNIST

    root = download_root(data_dir)
    try:
        for train in (True, False):
            FashionMNIST(str(root), train=train, download=True)
    except Exception as err:  # network errors come in many types
        raise DataError(f"Fashion-MNIST download into {root} failed ({err}): "
                        "run `sudo apt-get install dataset-fashion-mnist` or copy the IDX "
                        "files to --data-dir PATH") from None


def load(data_dir: str | None = None, download: bool = False) -> RawSplits:
    files = find_files(data_dir)
    if files is None and download:
        _download(data_dir)
        files = find_files(data_dir)
    if files is None:
        check(data_dir, download=False)
    arrays = {key: read_idx(files[key], FILES[key][1], FIX_CORRUPT) for key in FILES}
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.shape[1:] != (28, 28) or y.ndim != 1 or len(x) != len(y) or (len(y) and y.max() > 9):
            raise DataError(f"corrupt Fashion-MNIST {split} files {files[f'x_{split}']} "
                            f"(images {x.shape}, labels {y.shape}): {FIX_CORRUPT}")
    return RawSplits(arrays["x_train"][:, None], arrays["y_train"].astype("int64"),
                     arrays["x_test"][:, None], arrays["y_test"].astype("int64"), CLASS_NAMES)


SOURCE = Source(
    name="fashion-mnist", num_classes=10, input_shape=(1, 28, 28), mean=(0.2860,),
    std=(0.3530,), augment_default=False, train_size=60000, test_size=10000,
    how_to_get=HOW_TO_GET, load=load, check=check, locations=locations,
    found=lambda data_dir: None if find_files(data_dir) is None else str(find_files(data_dir)["x_train"].parent),
)
