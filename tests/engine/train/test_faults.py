"""Honest states under faults: Ctrl-C, a killed client worker, weights that blow up.

The signal tests start a real ``python -m fedquad_core run`` in its own process group (so a
signal to the group cannot reach pytest) on tiny digits with many rounds, and signal it after
its first metrics row."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from fedquad_core.train.runner import SequentialRunner, execute
from fedquad_core.runs.store import RunStore

from engine_helpers import finish, tiny_config

ROOT = Path(__file__).resolve().parents[3]
TINY = ["--dataset", "digits", "--clients", "4", "--eval-points", "200", "--rounds", "400", "--snapshot-points", "50",
        "--snapshot-every", "1000", "--no-progress", "--seed", "1"]


def _start(store: RunStore, run_id: str, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ["PYTHONPATH"]]),
           "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    return subprocess.Popen([sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(store.root),
                             "--run-id", run_id, *TINY, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True, cwd=ROOT)


def _wait_for_rows(store: RunStore, run_id: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        if (store.root / run_id / "metrics.jsonl").exists() and store.read_metrics(run_id):
            return
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail("no metrics row in time")


def _finish(proc: subprocess.Popen, timeout: float = 60.0) -> tuple[int, str, str]:
    return finish(proc, timeout, "the run did not stop")


def _worker_pids(pid: int) -> list[int]:
    """The spawned client workers among the children of ``pid``."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for child in map(int, children):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                out.append(child)
        except OSError:
            pass
    return out


def _assert_cancelled_by_ctrl_c(store: RunStore, run_id: str, rc: int, out: str) -> None:
    status, rows = store.read_status(run_id), store.read_metrics(run_id)
    assert rc == 130, (rc, out)
    assert status["state"] == "cancelled" and status.get("stopped_by") == "SIGINT", status
    assert out.strip().count("\n") == 0 and out.startswith(f"run {run_id}: cancelled after round"), out
    assert 1 <= len(rows) < 400 and status["round"] == len(rows)
    assert [r["round"] for r in rows] == list(range(1, len(rows) + 1))
    weights = torch.load(store.weights_path(run_id), weights_only=True)
    assert weights and all(torch.isfinite(v).all() for v in weights.values() if v.is_floating_point())


def test_ctrl_c_ends_cancelled_with_rounds_and_weights_kept_and_exit_130(store):
    proc = _start(store, "ctrl-c")
    _wait_for_rows(store, "ctrl-c", proc)
    proc.send_signal(signal.SIGINT)
    rc, out, err = _finish(proc)
    _assert_cancelled_by_ctrl_c(store, "ctrl-c", rc, out)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_sigterm_ends_cancelled_with_rounds_kept_and_exit_143(store):
    """As a shell reports a process that SIGTERM ended (128 + 15), not 0: a script that runs
    `fedquad run` and is stopped sees it did not finish."""
    proc = _start(store, "sigterm")
    _wait_for_rows(store, "sigterm", proc)
    proc.send_signal(signal.SIGTERM)
    rc, out, err = _finish(proc)
    status, rows = store.read_status("sigterm"), store.read_metrics("sigterm")
    assert rc == 143, (rc, out, err)
    assert status["state"] == "cancelled" and status.get("stopped_by") == "SIGTERM", status
    assert 1 <= len(rows) < 400 and status["round"] == len(rows)
    assert "Traceback" not in err, err


def test_ctrl_c_twice_stops_at_once_keeping_the_last_completed_round(store):
    proc = _start(store, "ctrl-c-2")
    _wait_for_rows(store, "ctrl-c-2", proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    rc, out, err = _finish(proc)
    _assert_cancelled_by_ctrl_c(store, "ctrl-c-2", rc, out)
    assert "Traceback" not in err, err


def test_ctrl_c_to_the_process_group_leaves_parallel_workers_to_the_parent(store):
    """A terminal's Ctrl-C reaches every process of the group: the workers ignore it."""
    proc = _start(store, "ctrl-c-par", "--workers", "2", "--client-exec", "parallel", "--device", "cpu")
    _wait_for_rows(store, "ctrl-c-par", proc)
    workers = _worker_pids(proc.pid)
    assert len(workers) == 2
    os.killpg(proc.pid, signal.SIGINT)
    rc, out, err = _finish(proc)
    _assert_cancelled_by_ctrl_c(store, "ctrl-c-par", rc, out)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_a_killed_client_worker_fails_the_run_with_one_line_naming_it(store):
    proc = _start(store, "kill-worker", "--workers", "2", "--client-exec", "parallel", "--device", "cpu")
    _wait_for_rows(store, "kill-worker", proc)
    workers = _worker_pids(proc.pid)
    assert len(workers) == 2
    os.kill(workers[1], signal.SIGKILL)
    rc, out, err = _finish(proc)
    status = store.read_status("kill-worker")
    assert rc == 1 and status["state"] == "failed", (rc, status)
    assert "\n" not in status["error"], status["error"]
    assert status["error"].startswith("client worker ") and "died (signal 9, SIGKILL)" in status["error"]
    assert "EOFError" not in err and "Traceback" not in err, err
    assert len(store.read_metrics("kill-worker")) >= 1  # the rounds before stay


def test_weights_that_blow_up_make_the_run_diverged_not_failed(store, monkeypatch):
    """A client whose last step sends its weights to inf with a finite loss: caught after
    aggregation, before the snapshot's geometry sees them."""
    original = SequentialRunner.run

    def blow_up(self, jobs, global_state):
        results = original(self, jobs, global_state)
        if jobs[0].round == 2:
            bad = results[-1]
            bad.weights = {k: torch.full_like(v, float("inf")) if v.is_floating_point() else v
                           for k, v in bad.weights.items()}
        return results

    monkeypatch.setattr(SequentialRunner, "run", blow_up)
    run_id = execute(tiny_config(method="fedavg", rounds=3, num_clients=4), store, progress=False)
    status = store.read_status(run_id)
    assert status["state"] == "diverged", status
    assert status["diverged_round"] == 2 and "round 2" in status["error"]
    assert "aggregated weights" in status["error"] and "\n" not in status["error"]
    assert [r["round"] for r in store.read_metrics(run_id)] == [1]


def test_a_late_second_ctrl_c_does_not_interrupt_the_saving_of_a_stopped_run():
    """A second Ctrl-C drops the round in progress, but once the loop has seen the stop and returned
    (the run is being saved: status, weights), a late one must not cut that short (it used to
    end the run 'cancelled' at round 0 with its rows and weights disowned)."""
    from fedquad_core.train.callbacks import SignalStop
    from fedquad_core.runs.stop_signals import install_stop_signals

    flag: dict = {"stop": False}
    restore = install_stop_signals(flag)
    try:
        os.kill(os.getpid(), signal.SIGINT)  # first Ctrl-C: stop after the current round
        assert flag["stop"] and flag["signal"] == "SIGINT"
        with pytest.raises(KeyboardInterrupt):  # a second one during the round: stop at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        flag.pop("ending")
        assert SignalStop(flag).stop_requested()  # the loop saw the stop and returns: saving starts
        os.kill(os.getpid(), signal.SIGINT)  # a late Ctrl-C now: ignored
        time.sleep(0.1)
    finally:
        restore()


def test_a_second_ctrl_c_while_a_round_is_being_recorded_keeps_that_round_whole():
    """The metrics row and the status's round are written together: a second Ctrl-C then becomes a
    plain stop (the loop stops at its next check) instead of dropping a round whose row exists."""
    from fedquad_core.runs.stop_signals import install_stop_signals, interrupt_deferred

    flag: dict = {"stop": False}
    restore = install_stop_signals(flag)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        with interrupt_deferred():
            os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt here
            time.sleep(0.1)
        assert flag["stop"] and not flag.get("ending")
    finally:
        restore()
