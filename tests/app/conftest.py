"""Fixtures for the dashboard tests: an isolated run store per test, and one shared store that
holds two tiny finished runs (FedAvg and FedQuad on digits, one comparison group).

The recorded, read-only root (``$FEDQUAD_RECORDED_DIR``) points at an empty folder in every test
unless a test asks for ``recorded_root`` (a small synthetic recorded study), so "no runs" still
means no runs whatever ``assets/recorded`` holds."""
from __future__ import annotations

import os

import pytest

from app_helpers import wait_finished


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    monkeypatch.setenv("FEDQUAD_PROJECTION_WORKER", "0")  # pages under test start no UMAP worker
    monkeypatch.setenv("FEDQUAD_WARM_SERVER", "0")  # ... and no warm server for runs (tests/engine/prefork/test_prefork.py)


@pytest.fixture(autouse=True)
def _no_recorded(monkeypatch, tmp_path):
    empty = tmp_path / "recorded-empty"
    empty.mkdir()
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(empty))


@pytest.fixture(scope="session")
def _recorded_study(tmp_path_factory):
    """A recorded root with study "toy-alpha": alpha {0.1, 1, IID} x {fedavg, fedquad} x seeds {0, 1},
    12 synthetic runs (6 rounds, 60 x 8 embeddings), the point alpha=1/fedquad/seed 1 not recorded."""
    from study_helpers import write_study

    root = tmp_path_factory.mktemp("recorded") / "recorded"
    study = write_study(root, "toy-alpha", {"alpha": [0.1, 1.0, None], "method": ["fedavg", "fedquad"], "seed": [0, 1]},
                        missing=[{"alpha": 1.0, "method": "fedquad", "seed": 1}], points=60, dim=8, rounds=6,
                        title="Toy alpha study")
    write_study(root, "toy-margins", {"m1": [0.0, 0.5, 1.0], "m2": [0.0, 0.5], "method": ["fedavg", "fedquad"],
                                      "seed": [0, 1]}, base={"alpha": 0.1}, points=60, dim=8, rounds=6, umap=False,
                title="Toy margins study")
    return root, study


@pytest.fixture
def recorded_root(monkeypatch, tmp_path, _recorded_study):
    """The synthetic recorded root (read-only in the app) beside an empty user store."""
    root, study = _recorded_study
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return root, study


@pytest.fixture
def empty_store(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.fixture(scope="session")
def _finished_runs(tmp_path_factory):
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.launcher import launch
    from fedquad_core.runs.store import RunStore

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
