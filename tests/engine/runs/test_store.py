import json
import os

import numpy as np
import pytest

from fedquad_core.runs.store import RunNotFound, RunStore, StoreError, atomic_write_json, process_identity


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", "", ".hidden", "x" * 200, "/abs"])
def test_run_ids_cannot_name_a_path_outside_the_root(tmp_path, bad):
    with pytest.raises(StoreError):
        RunStore(tmp_path).path(bad)


def test_metrics_reader_skips_a_line_still_being_written(tmp_path):
    store = RunStore(tmp_path)
    w = store.create({"method": "fedavg"}, "r1")
    w.append_metrics({"round": 1, "test_accuracy": 0.5})
    with open(w.path / "metrics.jsonl", "a") as f:
        f.write('{"round": 2, "test_acc')
    assert store.read_metrics("r1") == [{"round": 1, "test_accuracy": 0.5}]


def test_atomic_write_leaves_old_file_when_serialisation_fails(tmp_path):
    path = tmp_path / "s.json"
    atomic_write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        atomic_write_json(path, {"a": object()})
    assert json.loads(path.read_text()) == {"a": 1}
    assert os.listdir(tmp_path) == ["s.json"]


def test_create_list_snapshot_and_delete(tmp_path):
    store = RunStore(tmp_path)
    w = store.create({"method": "fedquad"}, "r2")
    assert store.read_status("r2")["state"] == "queued"
    with pytest.raises(FileExistsError):
        store.create({"method": "fedquad"}, "r2")
    w.save_snapshot(5, {"embeddings": np.ones((3, 2), np.float32), "labels": np.arange(3), "indices": np.arange(3)})
    assert store.snapshot_rounds("r2") == [5]
    assert store.read_snapshot("r2", 5)["labels"].tolist() == [0, 1, 2]
    assert [r.run_id for r in store.list_runs()] == ["r2"]
    w.set_status("running", **process_identity(os.getpid()))
    with pytest.raises(StoreError):
        store.delete("r2")
    w.set_status("finished")
    store.delete("r2")
    with pytest.raises(RunNotFound):
        store.read_status("r2")
