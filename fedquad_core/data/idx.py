"""Reader for the IDX format of MNIST / Fashion-MNIST (gzipped or plain).

Format (http://yann.lecun.com/exdb/mnist/, "FILE FORMATS FOR THE MNIST DATABASE"): a 4-byte
big-endian magic number ``0x0000 | type | ndim`` (type 0x08 = unsigned byte), then ``ndim``
big-endian int32 dimension sizes, then the data in row-major order. Labels use magic 0x00000801
(2049), images 0x00000803 (2051).
"""
from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import numpy as np

from .base import DataError

LABELS_MAGIC = 0x00000801
IMAGES_MAGIC = 0x00000803


def _read_bytes(path: Path, fix: str) -> bytes:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except (OSError, EOFError, zlib.error) as err:
        raise DataError(f"corrupt IDX file {path} ({type(err).__name__}: {err}): {fix}") from None


def read_idx(path: str | Path, expected_magic: int, fix: str) -> np.ndarray:
    """Parse one IDX file of unsigned bytes into a uint8 array of its stored shape.

    ``fix`` is the remedy quoted in the ``DataError`` raised for a wrong magic number or a file
    shorter than its header says (a truncated download)."""
    path = Path(path)
    raw = _read_bytes(path, fix)
    if len(raw) < 4:
        raise DataError(f"corrupt IDX file {path} (only {len(raw)} bytes): {fix}")
    magic = int.from_bytes(raw[:4], "big")
    if magic != expected_magic:
        raise DataError(f"corrupt IDX file {path} (magic number 0x{magic:08x}, expected "
                        f"0x{expected_magic:08x}): {fix}")
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataError(f"corrupt IDX file {path} (truncated header): {fix}")
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    expected = int(np.prod(dims))
    if len(raw) - header != expected:
        raise DataError(f"corrupt IDX file {path} ({len(raw) - header} data bytes, header "
                        f"promises {expected} for shape {dims}): {fix}")
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(dims).copy()
