"""The one damage-tolerant reader of runs (``runs.view.RunView``, ``api.run_view``): a missing run
reads as a default and is not named; a damaged file reads as a default and is named once, in
``damaged``; the reads that must raise stay on ``store``."""
from __future__ import annotations

import numpy as np
import pytest

from fedquad_core import api
from fedquad_core.runs.store import DamagedRun, RunStore
from fedquad_core.runs.view import RunView


def _store(tmp_path):
    store = RunStore(tmp_path)
    w = store.create({"method": "fedavg", "alpha": 0.1}, "good")
    w.append_metrics({"round": 1, "test_accuracy": 0.5})
    w.save_snapshot(1, {"embeddings": np.ones((3, 2), np.float32), "labels": np.arange(3), "indices": np.arange(3)})
    w.save_snapshot(2, {"embeddings": np.ones((3, 2), np.float32), "labels": np.arange(3), "indices": np.arange(3)})
    bad = store.create({"method": "fedquad"}, "bad")
    (bad.path / "config.json").write_text("{not json")
    (bad.path / "status.json").write_text("[1, 2")
    return store


def test_a_good_run_reads_as_the_store_reads_it(tmp_path):
    store = _store(tmp_path)
    view = api.run_view(tmp_path)
    assert isinstance(view, RunView) and view.root == store.root
    assert view.config("good") == store.read_config("good")
    assert view.status("good") == store.read_status("good")
    assert view.metrics("good") == [{"round": 1, "test_accuracy": 0.5}]
    assert view.snapshot_rounds("good") == [1, 2] and view.snapshot_damage("good") == []
    assert view.whole("good") == (store.read_status("good"), store.read_config("good"), store.read_metrics("good"))
    assert view.exists("good") and view.damaged == {}


def test_a_missing_run_reads_as_defaults_and_is_not_named(tmp_path):
    _store(tmp_path)
    view = RunView(tmp_path)
    assert (view.status("nope"), view.config("nope"), view.metrics("nope"), view.partition("nope")) == ({}, {}, [], None)
    assert view.snapshot_rounds("nope") == [] and view.last_snapshot("nope") is None and view.whole("nope") is None
    assert view.layout("nope", 1) == (None, None) and not view.exists("nope")
    assert view.damaged == {}


def test_a_damaged_run_reads_as_defaults_and_is_named_once(tmp_path):
    _store(tmp_path)
    view = RunView(tmp_path)
    status = view.status("bad")
    assert status["state"] == "damaged" and "status.json" in status["error"]
    assert view.config("bad") == {} and view.whole("bad") is None
    assert list(view.damaged) == ["bad"] and "run bad is damaged" in view.damaged["bad"]
    first = view.damaged["bad"]
    view.config("bad")
    assert view.damaged == {"bad": first}  # named once, however often it is read
    with pytest.raises(DamagedRun):  # the loud reads stay on the store
        view.store.read_config("bad")
    assert {i.run_id: i.state for i in view.runs()} == {"good": "queued", "bad": "damaged"}


def test_a_damaged_snapshot_is_left_out_and_the_last_readable_one_read(tmp_path):
    store = _store(tmp_path)
    (store.path("good") / "embeddings" / "round_0002.npz").write_bytes(b"PK\x03\x04 not a zip")
    view = RunView(tmp_path)
    assert view.snapshot_rounds("good", readable=True) == [1]
    assert len(view.snapshot_damage("good")) == 1 and "round_0002.npz" in view.snapshot_damage("good")[0]
    last, snap = view.last_snapshot("good")
    assert last == 1 and snap["embeddings"].shape == (3, 2)
    (store.path("good") / "embeddings" / "umap_round_0001.npy").write_bytes(b"\x93NUMPY broken")
    xy, damage = view.layout("good", 1)
    assert xy is None and "umap_round_0001.npy" in damage


def test_metrics_are_read_once_when_cached(tmp_path):
    store = _store(tmp_path)
    cached, fresh = RunView(tmp_path, cache_metrics=True), RunView(tmp_path)
    assert cached.metrics("good") == fresh.metrics("good") == [{"round": 1, "test_accuracy": 0.5}]
    store.writer("good").append_metrics({"round": 2, "test_accuracy": 0.6})
    assert len(cached.metrics("good")) == 1  # the Lesson's reads: once per run
    assert len(fresh.metrics("good")) == 2   # the pages' reads: a run may be training
