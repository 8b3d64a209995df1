"""Small files that cost gigabytes (issue 47): a snapshot ``.npz`` is checked member by member from
its ``.npy`` headers before any array is built, so a 1 MB file that unpacks to a gigabyte, or a
few hundred bytes whose header claims a 364 TiB array, are named as damaged at once, and a good
snapshot still reads."""
from __future__ import annotations

import io
import time
import zipfile

import numpy as np
import pytest

from fedquad_core import safe_io
from fedquad_core.runs import files as run_files
from fedquad_core.runs.store import DamagedRun, RunStore

from engine_helpers import tiny_config
from planted import bomb, liar, npy_bytes as _npy


def test_a_zip_bomb_is_named_before_it_is_unpacked():
    data = bomb()
    assert len(data) < 1 << 20  # about half a megabyte on disk
    t0 = time.perf_counter()
    with pytest.raises(safe_io.DamagedFile, match=r"^x.npz cannot be read: it unpacks to more than 256 MiB"):
        safe_io.parse_npz(data, "x.npz", run_files.MAX_ARRAY_BYTES)
    assert time.perf_counter() - t0 < 1.0  # from the zip's sizes alone: nothing was unpacked


def test_a_header_that_claims_a_huge_array_is_named():
    data = liar()
    assert len(data) < 600
    with pytest.raises(safe_io.DamagedFile, match=r"'embeddings' claims \(10000000, 10000000\) float32 \(364 TiB\)"):
        safe_io.parse_npz(data, "x.npz", run_files.MAX_ARRAY_BYTES)
    with pytest.raises(safe_io.DamagedFile, match="364 TiB"):  # a stored UMAP layout (.npy) likewise
        safe_io.parse_npy(_liar_npy(), "umap.npy", run_files.MAX_ARRAY_BYTES)


def _liar_npy() -> bytes:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10**7, 10**7)})
    return header.getvalue() + bytes(16)


@pytest.mark.parametrize("shape", [(5, 8), (3, 8)])  # more and fewer values than the member holds
def test_a_header_that_disagrees_with_the_zip_size_is_named(shape):
    good = _npy(np.zeros((4, 8), np.float32))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": shape})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("embeddings.npy", header.getvalue() + good[len(header.getvalue()):])
    with pytest.raises(safe_io.DamagedFile, match="in its header but the file holds 128 bytes"):
        safe_io.parse_npz(buf.getvalue(), "x.npz", 1 << 20)


def test_object_arrays_are_never_unpickled_and_good_files_read():
    buf = io.BytesIO()
    np.savez(buf, embeddings=np.array([{"a": 1}], dtype=object))
    with pytest.raises(safe_io.DamagedFile, match="holds Python objects"):
        safe_io.parse_npz(buf.getvalue(), "x.npz", 1 << 20)
    buf = io.BytesIO()
    z, y = np.random.default_rng(0).normal(size=(50, 4)).astype(np.float32), np.arange(50)
    np.savez_compressed(buf, embeddings=z, labels=y, title=np.array("run"))
    arrays = safe_io.parse_npz(buf.getvalue(), "x.npz", 1 << 20)
    assert np.array_equal(arrays["embeddings"], z) and np.array_equal(arrays["labels"], y) and str(arrays["title"]) == "run"


@pytest.mark.parametrize("kind", ["bomb", "liar"])
def test_the_store_names_the_snapshot_and_keeps_the_run(tmp_path, kind):
    store = RunStore(tmp_path)
    writer = store.create(tiny_config(method="fedavg").resolved().to_dict(), "r1")
    writer.save_snapshot(1, {"embeddings": np.zeros((6, 2), np.float32), "labels": np.arange(6), "indices": np.arange(6)})
    (writer.path / "embeddings" / "round_0002.npz").write_bytes(bomb() if kind == "bomb" else liar())
    writer.set_status("finished", round=2, total_rounds=2)
    t0 = time.perf_counter()
    notes = store.snapshot_damage("r1")
    assert time.perf_counter() - t0 < 2.0
    assert len(notes) == 1 and "round_0002.npz cannot be read" in notes[0] and "\n" not in notes[0], notes
    assert store.snapshot_rounds("r1", readable=True) == [1]
    with pytest.raises(DamagedRun, match="round_0002.npz"):
        store.read_snapshot("r1", 2)
    assert store.read_snapshot("r1", 1)["embeddings"].shape == (6, 2)
