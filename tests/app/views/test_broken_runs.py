"""A run that diverged or crashed shows as such, with its error; the pages go on working."""
from __future__ import annotations

import subprocess
import sys

import pytest

from app_helpers import open_page, page_text


@pytest.fixture
def broken_store(monkeypatch, tmp_path):
    from fedquad_core.config import RunConfig
    from fedquad_core.train.runner import execute
    from fedquad_core.runs.store import RunStore

    root = tmp_path / "runs"
    store = RunStore(root)
    common = dict(dataset="digits", num_clients=4, rounds=3, local_epochs=1, snapshot_points=100)
    diverged = execute(RunConfig(**common, method="fedavg", lr=1e30), store, progress=False, run_id="run-a")
    writer = store.create(RunConfig(**common, method="fedquad").resolved().to_dict(), "run-b")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    writer.set_status("running", pid=dead.pid, group="g-broken")  # its process died without a word
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    assert store.read_status(diverged)["state"] == "diverged"
    return root


def test_runs_page_shows_diverged_and_failed_runs_with_their_errors(broken_store):
    at = open_page("views/runs.py")
    assert not at.exception, at.exception
    text = page_text(at)
    assert "diverged" in text and "failed" in text
    assert "lower --lr" in text
    assert "lower --lr" in text  # the divergence message
    assert "ended unexpectedly" in text  # the dead process


def test_live_page_lists_the_broken_runs_without_crashing(broken_store):
    at = open_page("views/live.py")
    assert not at.exception, at.exception
    at.multiselect[0].set_value(["run-a", "run-b"]).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "diverged" in text and "failed" in text
    assert "lower --lr" in text and "ended unexpectedly" in text


def test_launch_check_rejects_cuda_on_a_machine_without_gpu(empty_store):
    import torch

    from app import service

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU, so device cuda is valid here")
    cfgs = service.make_configs(["fedavg"], {"dataset": "digits", "device": "cuda"}, {})
    assert "no CUDA GPU" in service.check_configs(cfgs)
    cfgs = service.make_configs(["fedavg"], {"dataset": "digits", "device": "cpu"}, {})
    assert service.check_configs(cfgs) is None
