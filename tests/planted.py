"""Helpers of the planted-file tests (issue 47): plant a symbolic link to a victim file outside
the store, or a named pipe, at a path; fail instead of hanging; read a folder back byte for byte;
build snapshot files that lie about their size (a zip bomb, a header claiming 364 TiB)."""
from __future__ import annotations

import contextlib
import functools
import io
import os
import zipfile
import signal
from pathlib import Path

import numpy as np

SECRET = b"the victim's file: must never change\n"
HANG_S = 20


@contextlib.contextmanager
def no_hang(seconds: int = HANG_S):
    """Fail (SIGALRM) when the block takes ``seconds``: a planted pipe must never be waited on."""
    def hung(signum, frame):
        raise AssertionError(f"hung for {seconds} s on a planted pipe")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def victim_folder(base: Path) -> Path:
    """A folder outside the store holding one file with ``SECRET`` in it."""
    outside = base / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_bytes(SECRET)
    return outside


def plant(path: Path, kind: str, outside: Path) -> None:
    """A link to ``outside/victim.txt`` ("link") or a named pipe ("fifo") at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if kind == "link":
        path.symlink_to(outside / "victim.txt")
    else:
        os.mkfifo(path)


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def refusal(where: str, kind: str) -> str:
    """The one line a refused planted ``kind`` at store path ``where`` gives."""
    what = "is a symbolic link, not a file" if kind == "link" else "is a named pipe, not a regular file"
    return f"run store: {where} {what}: remove it"


# ---- snapshot files that lie about their size --------------------------------------------


@functools.lru_cache(maxsize=1)
def bomb(unpacked: int = 512 << 20) -> bytes:
    """An honest .npz of zeros (its header and its zip sizes agree) that unpacks to ``unpacked`` bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("embeddings.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False,
                                                     "shape": (unpacked // 4 // 8, 8)})
            chunk = bytes(1 << 24)
            for _ in range(unpacked // len(chunk)):
                f.write(chunk)
        z.writestr("labels.npy", npy_bytes(np.zeros(unpacked // 4 // 8, dtype=np.int8)))
    return buf.getvalue()


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def liar(shape=(10**7, 10**7)) -> bytes:
    """A few hundred bytes whose header claims an array of ``shape`` float32."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": shape})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("embeddings.npy", header.getvalue() + bytes(64))
        z.writestr("labels.npy", npy_bytes(np.arange(4)))
    return buf.getvalue()
