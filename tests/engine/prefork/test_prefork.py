"""The warm server (fedquad_core.prefork): a launched run forked from a process that has imported
the engine computes exactly what a fresh process computes, is recognised as its own process,
can be cancelled, goes on when the server's parent is gone; bad requests are refused and the
launcher then starts the run the usual way."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fedquad_core.runs import launcher  # the warm server's socket, from the launcher's side
from fedquad_core.runs.launcher import ensure_warm_server, launch
from fedquad_core.runs.store import ACTIVE, RunStore, pid_alive

from engine_helpers import tiny_config

TINY = dict(num_clients=4, rounds=3, snapshot_points=50, eval_points=200)
TIMING = {"elapsed", "time", "round_time", "seconds", "wall"}  # fields that are wall-clock, not numbers of the run


def wait(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def server(root: Path, parent: int) -> None:
    assert ensure_warm_server(root, parent=parent)
    wait(lambda: (root / launcher.SOCKET_NAME).exists(), 120, "the warm server's socket")
    assert not ensure_warm_server(root, parent=parent)  # one per store


def finished(store: RunStore, run_id: str, timeout: float = 120) -> dict:
    wait(lambda: store.read_status(run_id).get("state") not in ACTIVE, timeout, f"run {run_id} to end")
    return store.read_status(run_id)


def numbers(store: RunStore, run_id: str) -> list[dict]:
    def strip(row):
        if isinstance(row, dict):
            return {k: strip(v) for k, v in row.items() if k not in TIMING}
        if isinstance(row, list):
            return [strip(v) for v in row]
        return row

    return [strip(json.loads(line)) for line in (store.path(run_id) / "metrics.jsonl").read_text().splitlines()]


@pytest.fixture
def warm(tmp_path):
    root = tmp_path / "warm"
    server(root, os.getpid())
    yield RunStore(root)
    (root / launcher.SOCKET_NAME).unlink(missing_ok=True)  # the server exits when its socket is gone
    wait(lambda: not launcher.server_alive(root), 30, "the warm server to exit")


def test_a_forked_run_computes_what_a_fresh_process_computes(warm, tmp_path):
    cfg = tiny_config(**TINY, method="fedquad", seed=3)
    forked = launch(cfg, warm.root)
    log = (warm.root / launcher.LOG_NAME).read_text()
    pid = warm.read_status(forked)["pid"]
    assert f"run {forked} started as pid {pid}" in log  # forked by the server, not spawned
    cold = RunStore(tmp_path / "cold")
    fresh = launch(cfg, cold.root)
    assert finished(warm, forked)["state"] == "finished", (warm.path(forked) / "log.txt").read_text()
    assert finished(cold, fresh)["state"] == "finished"
    assert "finished after round 3" in (warm.path(forked) / "log.txt").read_text()  # its output in its log
    a, b = numbers(warm, forked), numbers(cold, fresh)
    assert len(a) == 3 and a == b
    assert not pid_alive(pid)  # reaped by the server: no zombie


def test_a_forked_run_can_be_cancelled(warm):
    run_id = launch(tiny_config(**{**TINY, "rounds": 400}), warm.root)
    wait(lambda: warm.read_status(run_id).get("state") == "running", 60, "the run to start")
    warm.request_cancel(run_id)
    status = finished(warm, run_id, 60)
    assert status["state"] == "cancelled" and status["round"] < 400, status


def raw_request(root: Path, payload: bytes) -> dict:
    """``payload`` sent as a client would, the answer read. The socket's file exists from the
    server's bind, a moment before it listens: on a loaded machine a connect in between is refused
    (the launcher then starts the run itself; here the request is sent again)."""
    deadline = time.monotonic() + 10
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            try:
                s.connect(str(root / launcher.SOCKET_NAME))
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
                continue
            s.sendall(payload)
            return json.loads(s.makefile().readline())


def test_bad_requests_are_refused_and_the_launcher_starts_the_run_itself(warm):
    assert "refused" in raw_request(warm.root, b"not json\n")
    assert "refused" in raw_request(warm.root, json.dumps({"run_id": "no-such-run"}).encode() + b"\n")
    for bad in ("../warm", ".claims", "a/b"):  # only a run folder's own name
        assert "malformed" in raw_request(warm.root, json.dumps({"run_id": bad}).encode() + b"\n")["refused"]
    nan = json.dumps({"run_id": "x", "sent": float("nan")}).encode() + b"\n"
    assert "malformed" in raw_request(warm.root, nan)["refused"]
    run_id = launch(tiny_config(**TINY), warm.root)
    finished(warm, run_id)
    assert "refused" in raw_request(warm.root, json.dumps({"run_id": run_id}).encode() + b"\n")  # not queued
    assert launcher.request(warm.root, run_id, 1) is None
    # the server is still serving: the next launch is forked again
    again = launch(tiny_config(**TINY, seed=1), warm.root)
    assert f"run {again} started as pid" in (warm.root / launcher.LOG_NAME).read_text()
    assert finished(warm, again)["state"] == "finished"


def test_a_stale_request_is_refused(warm):
    run_id = launch(tiny_config(**TINY, seed=2), warm.root)
    finished(warm, run_id)
    store = RunStore(warm.root)
    queued = store.create(tiny_config(**TINY, seed=4).resolved().to_dict()).run_id  # queued, no process
    old = json.dumps({"run_id": queued, "slots": 1, "sent": time.time() - 60}).encode() + b"\n"
    answer = raw_request(warm.root, old)
    assert "old" in answer.get("refused", ""), answer  # its launcher has started it itself by now
    assert store.read_status(queued)["state"] == "queued" and "pid" not in store.read_status(queued)


def test_a_launch_waits_for_a_server_still_importing(tmp_path, monkeypatch):
    # The launch waits READY_WAIT_S (6 s) for an importing server, about 4 s on an idle machine; on
    # a loaded one (the suite on two workers) the import has taken longer and the launch then, as
    # it should, started the run itself. What is tested is the wait, so it is given 60 s here.
    monkeypatch.setattr(launcher, "READY_WAIT_S", 60.0)
    root = tmp_path / "starting"
    assert ensure_warm_server(root, parent=os.getpid())
    wait(lambda: launcher.server_alive(root), 30, "the server to take its lock")
    assert not (root / launcher.SOCKET_NAME).exists()  # still importing the engine
    store = RunStore(root)
    run_id = launch(tiny_config(**TINY), root)
    assert f"run {run_id} started as pid" in (root / launcher.LOG_NAME).read_text()
    assert finished(store, run_id)["state"] == "finished"
    (root / launcher.SOCKET_NAME).unlink()
    wait(lambda: not launcher.server_alive(root), 30, "the warm server to exit")


def test_no_server_or_a_path_too_long_for_a_socket_starts_runs_the_usual_way(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    assert launcher.socket_path(deep) is None and not ensure_warm_server(deep)
    store = RunStore(deep)
    run_id = launch(tiny_config(**TINY), deep)
    pid = store.read_status(run_id)["pid"]
    assert b"slot_wait" in Path(f"/proc/{pid}/cmdline").read_bytes()  # the usual queued process
    assert finished(store, run_id)["state"] == "finished"


def test_the_server_exits_with_its_parent_and_its_runs_go_on(tmp_path):
    root = tmp_path / "orphan"
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        server(root, parent.pid)
        store = RunStore(root)
        run_id = launch(tiny_config(**{**TINY, "rounds": 40}), root)
        wait(lambda: store.read_status(run_id).get("state") == "running", 60, "the run to start")
    finally:
        parent.kill()
        parent.wait()
    wait(lambda: not launcher.server_alive(root), 30, "the server to exit after its parent")
    assert not (root / launcher.SOCKET_NAME).exists()
    assert finished(store, run_id)["state"] == "finished"  # the run was in its own session: it went on
