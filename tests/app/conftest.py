"""Fixtures for the dashboard tests: an isolated run store per test, and one shared store that
holds two tiny finished runs (FedAvg and FedQuad on digits, one comparison group)."""
from __future__ import annotations

import os

import pytest

from app_helpers import wait_finished


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    monkeypatch.setenv("FEDQUAD_PROJECTION_WORKER", "0")  # pages under test start no UMAP worker


@pytest.fixture
def empty_store(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.fixture(scope="session")
def _finished_runs(tmp_path_factory):
    from fedquad_core.config import RunConfig
    from fedquad_core.launcher import launch
    from fedquad_core.store import RunStore

    root = tmp_path_factory.mktemp("store") / "runs"
    common = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=3, local_epochs=1, snapshot_every=1,
                  snapshot_points=200, seed=0)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ids = [launch(RunConfig(**common, method=m), root, extra={"group": "g-test"}) for m in ("fedavg", "fedquad")]
    states = wait_finished(RunStore(root), ids)
    assert states == ["finished", "finished"], [RunStore(root).read_status(r) for r in ids]
    return root, ids


@pytest.fixture
def run_store(monkeypatch, _finished_runs):
    root, ids = _finished_runs
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    return root, ids
