"""Background runs: each run is a separate OS process running the engine (``python -m
fedquad_core run --run-id ...``) that writes into the run store, so closing the dashboard
never stops a run. Concurrency is bounded by slot files locked with ``fcntl``: the kernel frees a
slot when its process ends, however it ends. A queued run waits for its slot in a small process
that has not loaded torch (``slot_wait``). A daemon thread per child waits on it, so a finished
run never lingers as a zombie of the dashboard. When the store has a warm server (the dashboard
starts one, ``fedquad_core.prefork``), a launched run is forked from it instead, with the engine
already imported. This module imports no torch."""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from . import prefork
from .config import RunConfig
from .devices import usable_cores
from .store import RunStore, process_identity

def default_slots() -> int:
    """One run per usable CPU core (each run trains with one thread)."""
    return usable_cores()


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
    store = RunStore(runs_dir)
    store.root.mkdir(parents=True, exist_ok=True)
    config = cfg.resolved().to_dict()
    writer = store.create(config, run_id)
    if extra:
        writer.set_status("queued", **extra)
    if prefork.request(store.root, writer.run_id, slots or default_slots()) is not None:
        return writer.run_id  # forked by the store's warm server, which wrote its pid (fedquad_core.prefork)
    run = [sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(store.root), "--run-id", writer.run_id,
           "--no-progress"]
    cmd = [sys.executable, "-m", "fedquad_core.slot_wait", str(store.root), str(slots or default_slots()),
           writer.run_id, "--", *run]
    proc = spawn_detached(cmd, writer.path / "log.txt", name=writer.run_id)
    writer.set_status("queued", **process_identity(proc.pid))
    return writer.run_id


def ensure_warm_server(root, parent: int | None = None, idle_s: float = prefork.IDLE_S) -> bool:
    """Start the store's warm server (``fedquad_core.prefork``) unless one is alive or the store's
    path is too long for its socket; True if started now. It exits with ``parent``."""
    root = Path(root).resolve()
    if prefork.socket_path(root) is None or prefork.server_alive(root):
        return False
    root.mkdir(parents=True, exist_ok=True)
    spawn_detached([sys.executable, "-m", "fedquad_core.prefork", str(root), "--parent", str(parent or os.getpid()),
                    "--idle-exit", str(idle_s)], root / prefork.LOG_NAME, name="prefork")
    return True


def spawn_detached(cmd: list[str], log_path: str | os.PathLike, *, name: str,
                   cwd: str | os.PathLike | None = None) -> subprocess.Popen:
    """Start ``cmd`` in its own session (it outlives the caller, e.g. the dashboard) with its output
    appended to ``log_path`` and one torch thread; a daemon thread waits on it, so no zombie is left."""
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=child_env(), start_new_session=True, cwd=cwd or os.getcwd())
    threading.Thread(target=proc.wait, name=f"reap-{name}", daemon=True).start()
    return proc


def held_slot() -> IO | None:
    """The slot file that ``slot_wait`` locked before it exec'd this process, if it did."""
    fd = os.environ.pop("FEDQUAD_SLOT_FD", None)
    if fd is None:
        return None
    os.set_inheritable(int(fd), False)
    return os.fdopen(int(fd), "a")


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
