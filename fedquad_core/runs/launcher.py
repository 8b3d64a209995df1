"""Background runs and studies: each run is a separate OS process running the engine (``python -m
fedquad_core run --run-id ...``) that writes into the run store, so closing the dashboard
never stops a run. Concurrency is bounded by slot files locked with ``fcntl``: the kernel frees a
slot when its process ends, however it ends. A queued run waits for its slot in a small process
that has not loaded torch (``slot_wait``). A daemon thread per child waits on it, so a finished
run never lingers as a zombie of the dashboard. When the store has a warm server (the dashboard
starts one: ``fedquad_core.prefork``, which says how it works), a launched run is forked from it
instead, with the engine already imported; this module is the launcher's side of its socket
(``request``, ``server_alive``, the file names). A study started from the dashboard is one
detached driver process (``launch_study``: ``fedquad study run``), recorded in the store's
``.studies`` folder. This module imports no torch."""
from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from .. import safe_io
from . import locks, preflight_file
from ..config import RunConfig
from ..config.checked import Checked
from ..config.devices import usable_cores
from ..version import engine_fingerprint
from .store import RunStore, atomic_write_json, pid_alive, process_identity, run_process_alive

# the warm server's files in a store, and how long a launch waits on it (fedquad_core.prefork)
LOCK_NAME = ".prefork.lock"
SOCKET_NAME = ".prefork.sock"
LOG_NAME = ".prefork.log"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes: a longer store path gets no warm start
IDLE_S = 3600.0
ANSWER_S = 5.0         # how long the launcher waits for the fork's answer before starting the run itself
READY_WAIT_S = 6.0     # how long a launch waits for a server that is still importing (about 4 s)
REQUEST_LIMIT = 4096


def default_slots() -> int:
    """One run per usable CPU core (each run trains with one thread)."""
    return usable_cores()


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def launch(cfg: RunConfig | Checked, runs_dir: str | os.PathLike, *, run_id: str | None = None,
           slots: int | None = None, extra: dict | None = None) -> str:
    """Create the run folder (state 'queued') and start its process; return the run id at once.
    A ``Checked`` config (``preflight.check_runs``) hands its partition to the process
    (``preflight_file``), which then neither checks the config nor draws the partition again.
    ``extra`` is stored beside the config (e.g. the dashboard's comparison group)."""
    checked = cfg if isinstance(cfg, Checked) else Checked(cfg)
    store = RunStore(runs_dir)
    store.root.mkdir(parents=True, exist_ok=True)
    config = checked.config.resolved().to_dict()
    writer = store.create(config, run_id)
    if checked.parts is not None and checked.labels_digest:
        preflight_file.write(writer.path / preflight_file.FILE, [(config, checked.parts, checked.labels_digest)],
                             engine_fingerprint())
    if extra:
        writer.set_status("queued", **extra)
    slots = slots or default_slots()
    if request(store.root, writer.run_id, slots) is not None:
        return writer.run_id  # forked by the store's warm server, which wrote its pid (fedquad_core.prefork)
    run = [sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(store.root), "--run-id", writer.run_id,
           "--no-progress"]
    cmd = [sys.executable, "-m", "fedquad_core.runs.slot_wait", str(store.root), str(slots), writer.run_id, "--", *run]
    proc = spawn_detached(cmd, writer.path / "log.txt", name=writer.run_id, within=store.root)
    writer.set_status("queued", **process_identity(proc.pid))
    return writer.run_id


STUDIES = ".studies"  # <root>/.studies/<name>.study.json, .preflight.npz, .pid, .log: the dashboard's drivers


def study_files(root, name: str) -> tuple[Path, Path, Path, Path]:
    """A launched study's files: its spec, the preflight handed to its driver, the driver's
    identity (pid and start time) and its log."""
    folder = Path(root) / STUDIES
    return (folder / f"{name}.study.json", folder / f"{name}.preflight.npz", folder / f"{name}.pid",
            folder / f"{name}.log")


def launch_study(root, name: str, spec: dict | None = None, *, checked: list[Checked] | None = None,
                 jobs: int | None = None, cwd: str | os.PathLike | None = None) -> int:
    """Start ``python -m fedquad_core study run NAME`` on the store at ``root``, detached (it
    outlives the dashboard, like a run); return its pid. ``spec`` ({"title", "base", "axes"})
    starts a new study; without it the stored study resumes. ``checked`` (``study.check_study``'s,
    of this spec) is handed to the driver, which then trains each point on its checked partition
    without checking the grid again."""
    spec_file, handed_file, pid_file, log_file = study_files(root, name)
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "fedquad_core", "study", "run", name, "--runs-dir", str(root), "--quiet"]
    if spec is not None:
        atomic_write_json(spec_file, spec, within=Path(root))
        cmd += ["--file", str(spec_file)]
    handed_file.unlink(missing_ok=True)  # a former launch's: never handed to this one
    entries = [(c.config.to_dict(), c.parts, c.labels_digest) for c in checked or () if c.parts is not None]
    if entries:
        preflight_file.write(handed_file, entries, engine_fingerprint())
        cmd += ["--preflight", str(handed_file)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    proc = spawn_detached(cmd, log_file, name=f"study-{name}", cwd=cwd, within=Path(root))
    atomic_write_json(pid_file, process_identity(proc.pid), within=Path(root))
    return proc.pid


def study_launched(root, name: str) -> bool:
    """True while the driver ``launch_study`` started for study ``name`` is alive (its pid and
    start time, as for a run: a reused pid does not count; a file holding a bare pid, as older
    dashboards wrote it, counts while that pid's command line names fedquad)."""
    try:
        identity = safe_io.read_json(study_files(root, name)[2], 64 << 10)  # a regular file, bounded
    except (OSError, ValueError):  # DamagedFile is a ValueError
        return False
    if isinstance(identity, int) and not isinstance(identity, bool):
        identity = {"pid": identity}
    return isinstance(identity, dict) and run_process_alive(identity)


def ensure_warm_server(root, parent: int | None = None, idle_s: float = IDLE_S) -> bool:
    """Start the store's warm server (``fedquad_core.prefork``) unless one is alive or the store's
    path is too long for its socket; True if started now. It exits with ``parent``. Something
    other than a regular file at its lock or its log (a planted link or pipe) raises
    ``safe_io.UnsafeFile`` naming it, and no server is started."""
    root = Path(root).resolve()
    if socket_path(root) is None or server_alive(root):
        return False
    root.mkdir(parents=True, exist_ok=True)
    locks.check(root / LOCK_NAME)
    spawn_detached([sys.executable, "-m", "fedquad_core.prefork", str(root), "--parent", str(parent or os.getpid()),
                    "--idle-exit", str(idle_s)], root / LOG_NAME, name="prefork", within=root)
    return True


def spawn_detached(cmd: list[str], log_path: str | os.PathLike, *, name: str,
                   cwd: str | os.PathLike | None = None, within: str | os.PathLike | None = None,
                   env: dict[str, str] | None = None, fresh_log: bool = False) -> subprocess.Popen:
    """Start ``cmd`` in its own session (it outlives the caller, e.g. the dashboard) with its output
    appended to ``log_path`` (or written afresh with ``fresh_log``) and one torch thread (``env``
    adds to ``child_env()``); a daemon thread waits on it, so no zombie is left. The engine's one
    way to start a detached process: runs, studies, the warm server and the dashboard's UMAP
    projection worker and jobs (``runs.helpers``: ``api.Helper``, ``api.Job``).
    The log is opened through ``safe_io`` (no link between ``within``, the store, and it; no pipe):
    ``safe_io.UnsafeFile`` names anything else there, before anything starts."""
    with safe_io.open_file(log_path, "write" if fresh_log else "append", within=within, binary=True) as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**child_env(), **(env or {})}, start_new_session=True, cwd=cwd or os.getcwd())
    threading.Thread(target=proc.wait, name=f"reap-{name}", daemon=True).start()
    return proc


def held_slot() -> IO | None:
    """The slot file that ``slot_wait`` locked before it exec'd this process, if it did."""
    fd = os.environ.pop("FEDQUAD_SLOT_FD", None)
    if fd is None:
        return None
    os.set_inheritable(int(fd), False)
    return os.fdopen(int(fd), "r+")


def acquire_slot(root: Path, slots: int, *, should_stop=lambda: False, poll_s: float = 0.5) -> IO | None:
    """Block until one of ``slots`` slot files under ``root/.slots`` is locked; return its open
    file (keep it open while running). Returns None when ``should_stop()`` becomes true first."""
    folder = Path(root) / ".slots"
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(max(1, slots)):
            f = safe_io.open_file(folder / f"slot-{i}", "lock", within=root)  # UnsafeFile: a planted link or pipe
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return f
            except BlockingIOError:
                f.close()
        if should_stop():
            return None
        time.sleep(poll_s)


# ---- the warm server's socket, from the launcher's side (the server: fedquad_core.prefork) ----


def socket_path(root) -> Path | None:
    """The store's socket, or None where there can be no warm server: a path too long for a Unix
    socket, or a system without peer credentials (``SO_PEERCRED``: Linux) to check who asks."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "fork"):
        return None
    path = Path(root).resolve() / SOCKET_NAME
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None


def request(root, run_id: str, slots: int, timeout: float = ANSWER_S, ready_wait: float | None = None) -> int | None:
    """Ask the store's server to start the queued run ``run_id``; the pid of its process, or None
    when there is no server or it did not take the run (the caller then starts it itself).

    A server still importing (its lock held, no socket yet) is waited for up to ``ready_wait`` s
    (``READY_WAIT_S`` when not given).
    The run is never started twice: the server refuses a request older than ``timeout`` and writes
    the child's pid into status.json before it answers, so an answer lost to a time-out is looked
    for there."""
    path = socket_path(root)
    if path is None:
        return None
    deadline = time.monotonic() + (READY_WAIT_S if ready_wait is None else ready_wait)
    while not path.exists():
        if not server_alive(root) or time.monotonic() > deadline:
            return None
        time.sleep(0.1)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(str(path))
    except OSError:
        return None  # nothing was sent: no server took the run
    with s:
        try:
            s.sendall(json.dumps({"run_id": run_id, "slots": int(slots), "sent": time.time()}).encode() + b"\n")
            answer = _read_line(s)
        except (OSError, ValueError):
            return _pid_written(root, run_id, timeout)
    if isinstance(answer, dict) and "refused" in answer:
        return None
    pid = answer.get("pid") if isinstance(answer, dict) else None
    return pid if _is_pid(pid) else _pid_written(root, run_id, timeout)


def _is_pid(pid) -> bool:
    return isinstance(pid, int) and not isinstance(pid, bool) and pid > 0


def _pid_written(root, run_id: str, wait: float) -> int | None:
    """The pid the server wrote for ``run_id`` (it does so before answering), looked for during
    ``wait`` s after an answer that did not come; None if there is none by then (the server
    refuses the request from then on: it is older than the time-out)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            pid = RunStore(root).read_status(run_id).get("pid")
        except Exception:  # noqa: BLE001 - unreadable: the launcher decides
            pid = None
        if pid_alive(pid):  # (it checks that pid is a positive int)
            return pid
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)


def server_alive(root) -> bool:
    """True while a server holds ``root``'s lock."""
    return locks.held(Path(root) / LOCK_NAME)


def _read_line(s: socket.socket) -> object:
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(REQUEST_LIMIT)
        if not chunk:
            break
        data += chunk
        if len(data) > REQUEST_LIMIT:
            raise ValueError("request too long")
    return json.loads(data.decode())
