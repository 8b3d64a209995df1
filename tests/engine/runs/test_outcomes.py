"""Divergence, cancellation and crashes end in the right state with everything so far kept."""
import sys
import time

from engine_helpers import tiny_config
from fedquad_core.runs.launcher import launch
from fedquad_core.train.runner import execute


def test_nan_loss_stops_run_as_diverged_with_round(store):
    run_id = execute(tiny_config(lr=1e30, rounds=5), store, progress=False)
    status = store.read_status(run_id)
    assert status["state"] == "diverged"
    assert 1 <= status["diverged_round"] <= 5
    assert "lower --lr" in status["error"]
    assert len(store.read_metrics(run_id)) == status["diverged_round"] - 1


def _wait(predicate, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_background_run_can_be_cancelled_and_keeps_its_rounds(store):
    run_id = launch(tiny_config(rounds=500, num_clients=4), store.root, slots=2)
    assert store.read_status(run_id)["state"] in ("queued", "running")
    assert _wait(lambda: len(store.read_metrics(run_id)) >= 2), (store.path(run_id) / "log.txt").read_text()
    store.request_cancel(run_id)
    assert _wait(lambda: store.read_status(run_id)["state"] == "cancelled")
    rows = store.read_metrics(run_id)
    assert 2 <= len(rows) < 500
    assert store.weights_path(run_id).exists()


def test_background_run_finishes_and_survives_launcher(store):
    run_id = launch(tiny_config(rounds=2), store.root)
    assert _wait(lambda: store.read_status(run_id)["state"] == "finished"), (store.path(run_id) / "log.txt").read_text()
    assert len(store.read_metrics(run_id)) == 2


def test_queued_run_cancelled_before_it_starts(store):
    writer = store.create(tiny_config().resolved().to_dict())
    store.request_cancel(writer.run_id)
    assert store.read_status(writer.run_id)["state"] == "cancelled"


def test_dead_process_reported_as_failed(store):
    writer = store.create(tiny_config().resolved().to_dict())
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    writer.set_status("running", pid=proc.pid)
    status = store.read_status(writer.run_id)
    assert status["state"] == "failed" and "ended unexpectedly" in status["error"]
