"""The projection worker: projects snapshots as they land, answers requests, one per store, writes
only inside the user store, exits with its parent or when told to. One worker serves the whole
module (its numba warm-up is the slow part)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.projection import cache as projection
from app.projection import worker as projection_worker

WARM_TIMEOUT_S = 300  # a fresh machine compiles numba once (about a minute on 2 busy cores)


def write_snapshot(run: Path, round_: int, n: int = 120, age_s: float = 0.0) -> Path:
    """A run folder's snapshot in the store's format (no training): 4 separated classes; the folder
    holds a config and a status, as every run folder does (the worker reads runs through the store)."""
    (run / "embeddings").mkdir(parents=True, exist_ok=True)
    for name, text in (("config.json", '{"method": "fedavg", "dataset": "digits"}'), ("status.json", '{"state": "running"}')):
        if not (run / name).exists():
            (run / name).write_text(text)
    rng = np.random.default_rng(round_)
    labels = np.arange(n) % 4
    z = (rng.normal(size=(n, 8)) + 5.0 * labels[:, None]).astype(np.float32)
    path = run / "embeddings" / f"round_{round_:04d}.npz"
    np.savez(path, embeddings=z, labels=labels, indices=np.arange(n))
    if age_s:
        old = time.time() - age_s
        os.utime(path, (old, old))
    return path


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def warmed_up(root: Path) -> bool:
    log = root / projection_worker.LOG_NAME
    return log.exists() and "warm-up" in log.read_text()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A user store (``runs``) served by one worker, and a recorded root beside it."""
    base = tmp_path_factory.mktemp("worker")
    root, recorded = base / "runs", base / "recorded"
    write_snapshot(recorded / "rec-run", 3)
    assert projection_worker.ensure_worker(root, parent=os.getpid(), idle_s=600)
    wait_for(lambda: warmed_up(root), WARM_TIMEOUT_S, "the worker's warm-up")
    yield root, recorded
    projection_worker.stop_worker(root)


def test_projects_a_snapshot_written_after_it_started(store):
    root, _ = store
    run = root / "run-new"
    write_snapshot(run, 3)
    wait_for(lambda: projection.umap_ready(run, 3), 60, "the layout of round 3")
    xy = projection.umap_cached(run, 3)
    assert xy.shape == (120, 2) and xy.dtype == np.float32 and np.isfinite(xy).all()
    assert not (run / "embeddings" / ".umap_round_0003.pending").exists()
    write_snapshot(run, 6)  # the next snapshot of a run still training
    wait_for(lambda: projection.umap_ready(run, 6), 60, "the layout of round 6")


def test_old_runs_wait_for_a_request_then_the_whole_run_is_done(store):
    root, _ = store
    run = root / "run-old"
    hours = 2 * projection_worker.BACKLOG_S
    write_snapshot(run, 1, age_s=hours)
    write_snapshot(run, 2, age_s=hours)
    time.sleep(4 * projection_worker.POLL_S)
    assert not projection.umap_ready(run, 1) and not projection.umap_ready(run, 2)
    assert projection.request_umap(run, 2) is True  # goes to the worker, no process of its own
    assert projection.request_file(run, 2).exists() and projection.umap_pending(run, 2)
    assert projection.request_umap(run, 2) is False  # already asked
    wait_for(lambda: projection.umap_ready(run, 2), 60, "the requested layout")
    wait_for(lambda: projection.umap_ready(run, 1), 60, "the rest of the requested run")
    assert not projection.request_file(run, 2).exists()


def test_only_one_worker_per_store(store):
    root, _ = store
    pid = projection_worker.worker_pid(root)
    assert pid and projection.worker_alive(root)
    assert projection_worker.ensure_worker(root) is False  # alive: nothing started
    second = subprocess.run([sys.executable, "-m", "app.projection.worker", str(root)], cwd=projection.REPO_ROOT,
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 0 and "already serves" in second.stdout, second.stdout + second.stderr
    assert projection_worker.worker_pid(root) == pid


def test_writes_nothing_outside_the_user_store(store):
    root, recorded = store
    (root / "linked-run").symlink_to(recorded / "rec-run", target_is_directory=True)
    before = {p: p.stat().st_mtime_ns for p in recorded.rglob("*")}
    run = root / "run-sync"
    write_snapshot(run, 9)  # a fresh user snapshot: once it is done, the worker has scanned the store
    wait_for(lambda: projection.umap_ready(run, 9), 60, "the user run's layout")
    time.sleep(4 * projection_worker.POLL_S)
    assert {p: p.stat().st_mtime_ns for p in recorded.rglob("*")} == before
    assert not projection.umap_ready(recorded / "rec-run", 3)


def test_exits_when_its_parent_dies(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        projection_worker.ensure_worker(tmp_path / "runs", parent=parent.pid)
        wait_for(lambda: projection.worker_alive(tmp_path / "runs"), 30, "the worker to start")
    finally:
        parent.kill()
        parent.wait()
    wait_for(lambda: not projection.worker_alive(tmp_path / "runs"), 10, "the worker to exit")


def test_exits_when_told_to(store):  # the module's worker, last
    root, _ = store
    # a lock file naming another process (forged, or a reused pid) never gets that process signalled
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    lock = root / projection.WORKER_LOCK
    real = lock.read_text()
    try:
        lock.write_text(f"{bystander.pid}\n")
        assert projection_worker.stop_worker(root) is True
        assert bystander.poll() is None  # still alive: stopping went through the stop file
    finally:
        bystander.kill()
        bystander.wait()
    assert real.strip().isdigit()
    assert not projection.worker_alive(root) and projection_worker.worker_pid(root) is None
    assert projection_worker.stop_worker(root) is False


def test_queue_order_asked_then_each_runs_newest_ended_runs_first_then_the_rest(tmp_path):
    a, b, old = tmp_path / "a", tmp_path / "b", tmp_path / "old"
    for i, (run, r) in enumerate([(a, 1), (a, 2), (a, 3), (b, 1), (b, 2)]):
        write_snapshot(run, r, n=8, age_s=100 - i)  # written in this order
    write_snapshot(old, 5, n=8, age_s=10_000)
    np.save(a / "embeddings" / "umap_round_0002.npy", np.zeros((8, 2), np.float32))  # done already
    queue = projection_worker.Queue(tmp_path, since=time.time() - 1000)
    assert queue.jobs() == [(b, 2), (a, 3), (b, 1), (a, 1)]  # "old" is before `since`
    (a / "status.json").write_text('{"state": "finished"}')  # a ended: its final picture first
    assert queue.jobs() == [(a, 3), (b, 2), (b, 1), (a, 1)]
    projection.request_file(old, 5).touch()
    assert queue.jobs()[0] == (old, 5)
