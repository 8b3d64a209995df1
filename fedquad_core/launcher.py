"""Background runs: each run is a separate OS process running the engine (``python -m
fedquad_core run --run-id ...``) that writes into the run store, so closing the dashboard
never stops a run. Concurrency is bounded by slot files locked with ``fcntl``: the kernel frees a
slot when its process ends, however it ends. This module imports no torch."""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from .config import RunConfig
from .store import RunStore, process_identity

_children: list[subprocess.Popen] = []


def default_slots() -> int:
    """One run per CPU core (each run trains with one thread)."""
    return max(1, os.cpu_count() or 1)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def launch(cfg: RunConfig, runs_dir: str | os.PathLike, *, run_id: str | None = None, slots: int | None = None,
           extra: dict | None = None) -> str:
    """Create the run folder (state 'queued') and start its process; return the run id at once.
    ``extra`` is stored beside the config (e.g. the dashboard's comparison group)."""
    reap()
    store = RunStore(runs_dir)
    store.root.mkdir(parents=True, exist_ok=True)
    config = cfg.resolved().to_dict()
    writer = store.create(config, run_id)
    if extra:
        writer.set_status("queued", **extra)
    cmd = [sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(store.root), "--run-id", writer.run_id,
           "--slots", str(slots or default_slots()), "--no-progress"]
    log = open(writer.path / "log.txt", "ab")
    try:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=child_env(), start_new_session=True, cwd=os.getcwd())
    finally:
        log.close()
    _children.append(proc)
    writer.set_status("queued", **process_identity(proc.pid))
    return writer.run_id


def reap() -> None:
    """Collect finished child processes so they do not linger as zombies."""
    _children[:] = [p for p in _children if p.poll() is None]


def acquire_slot(root: Path, slots: int, *, should_stop=lambda: False, poll_s: float = 0.5) -> IO | None:
    """Block until one of ``slots`` slot files under ``root/.slots`` is locked; return its open
    file (keep it open while running). Returns None when ``should_stop()`` becomes true first."""
    folder = Path(root) / ".slots"
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(max(1, slots)):
            f = open(folder / f"slot-{i}", "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return f
            except BlockingIOError:
                f.close()
        if should_stop():
            return None
        time.sleep(poll_s)
