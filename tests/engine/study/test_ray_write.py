"""``study.ray._write_run``: what a Ray task sends back (run id, relative paths, bytes) is checked
before anything is written: store run-id rules, no '..', no absolute paths, no symlinks. No Ray needed."""
import os

import pytest

from fedquad_core.study.ray import _write_run
from fedquad_core.runs.store import RunStore, StoreError


def _tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("run_id", ["../escape", "/tmp/abs", "..", ".", "", "a/b", "a\\b", ".hidden", "x" * 200, 5, None])
def test_bad_run_id_from_a_task_writes_nothing(tmp_path, run_id):
    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    with pytest.raises(StoreError):
        _write_run(store, run_id, {"config.json": b"{}"})
    assert _tree(tmp_path) == ["runs"]


@pytest.mark.parametrize("rel", ["../../escape.txt", "../sibling/config.json", "/tmp/abs.txt", "embeddings/../../x",
                                 "", ".", "a\\..\\..\\x", "nul\0byte", 7])
def test_bad_file_path_from_a_task_writes_nothing(tmp_path, rel):
    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    with pytest.raises(StoreError, match="only plain paths"):
        _write_run(store, "run-1", {"config.json": b"{}", rel: b"pwned"})
    assert _tree(tmp_path) == ["runs"]


def test_existing_run_and_symlinked_run_folder_are_not_overwritten(tmp_path):
    store = RunStore(tmp_path / "runs")
    (store.root / "run-1").mkdir(parents=True)
    (store.root / "run-1" / "config.json").write_text("mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, store.root / "run-2")
    for run_id in ("run-1", "run-2"):
        with pytest.raises(StoreError):
            _write_run(store, run_id, {"config.json": b"theirs"})
    assert (store.root / "run-1" / "config.json").read_text() == "mine" and not any(outside.iterdir())


def test_symlink_inside_the_run_folder_is_not_followed(tmp_path, monkeypatch):
    """A link appearing under the new run folder (e.g. planted between mkdir and write) is refused."""
    import fedquad_core.study.ray as rs

    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    real_mkdir = rs.Path.mkdir

    def mkdir_and_plant(self, *a, **k):
        real_mkdir(self, *a, **k)
        if self.name == "run-1" and not (self / "embeddings").exists():
            os.symlink(outside, self / "embeddings")

    monkeypatch.setattr(rs.Path, "mkdir", mkdir_and_plant)
    with pytest.raises(StoreError, match="symbolic link"):
        _write_run(store, "run-1", {"embeddings/round_0001.npz": b"x"})
    assert not any(outside.iterdir())


def test_good_files_are_written(tmp_path):
    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    _write_run(store, "run-1", {"config.json": b"{}", "embeddings/round_0001.npz": b"z"})
    assert _tree(store.root) == ["run-1", "run-1/config.json", "run-1/embeddings", "run-1/embeddings/round_0001.npz"]
