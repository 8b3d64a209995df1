"""No write through a planted link, no hang on a planted pipe (issue 47), at the files the
dashboard's UMAP projection keeps in a run store (``bad_inputs.PLANTED``): the worker's lock and
log, a one-shot job's log and a request to the worker. The engine's files are in
tests/engine/runs/test_planted_files.py, whose helpers this reuses."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from app.projection import cache as projection
from app.projection import worker as projection_worker
from fedquad_core.safe_io import UnsafeFile
from fedquad_core.runs import locks as process_locks
from bad_inputs import PLANTED
from planted import SECRET, contents, no_hang, plant, refusal, victim_folder

APP_PATHS = [p for p in PLANTED if "projection_worker" in p or "umap" in p]


@pytest.fixture
def store(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("w")
    root, outside = base / "s", victim_folder(base)
    run = root / "r1"
    (run / "embeddings").mkdir(parents=True)
    (run / "config.json").write_text('{"method": "fedavg", "dataset": "digits"}')
    (run / "status.json").write_text('{"state": "finished"}')
    np.savez(run / "embeddings" / "round_0001.npz", embeddings=np.zeros((8, 2), np.float32), labels=np.arange(8))
    started = []
    # both start through the engine's one starter (launcher.spawn_detached): no Popen may run
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a) or pytest.fail("a job started"))
    return root, outside


def _worker(root: Path):
    return projection_worker.ensure_worker(root, parent=os.getpid())


def _request(root: Path):
    lock = process_locks.take(root / projection.WORKER_LOCK)  # a worker serves the store
    try:
        return projection.request_umap(root / "r1", 1)
    finally:
        os.close(lock)


# what opens each path and what must come of it ("refused": one UnsafeFile line; False: nothing asked)
ACTIONS = {
    ".projection_worker.lock": ("refused", _worker),
    ".projection_worker.log": ("refused", _worker),
    "RUN/embeddings/.umap_round_0001.log": (False, lambda root: projection.request_umap(root / "r1", 1)),
    "RUN/embeddings/.umap_round_0001.request": (False, _request),
}


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.parametrize("rel", APP_PATHS)
def test_a_planted_link_or_pipe_at_a_projection_file(store, rel, kind):
    root, outside = store
    outcome, action = ACTIONS[rel]
    where = rel.replace("RUN/", "r1/")
    plant(root / where, kind, outside)
    with no_hang():
        if outcome == "refused":
            with pytest.raises(UnsafeFile) as refused:
                action(root)
            assert str(refused.value) == refusal(where, kind)
        else:
            assert action(root) is outcome
    assert contents(outside) == {"victim.txt": SECRET}
    assert not (root / "r1" / "embeddings" / ".umap_round_0001.pending").exists()  # no job left claimed


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_worker_lock_that_is_a_link_or_pipe_is_held_by_no_one(store, kind):
    root, outside = store
    plant(root / projection.WORKER_LOCK, kind, outside)
    marker = root / "r1" / "embeddings" / ".umap_round_0001.pending"
    plant(marker, kind, outside)
    with no_hang():
        assert projection.worker_alive(root) is False and projection.umap_pending(root / "r1", 1) is False
