"""A warm start for background runs: one process per run store that has imported the engine once
(torch, scikit-learn, the methods, the data loaders, the optimizer's first-step imports) and forks
each launched run from there, so a run starts training without the seconds a fresh Python spends
importing them (``benchmarks/demo_first_point.py``; README, "Speed").

The dashboard starts it (``launcher.ensure_warm_server``, after its first page); by hand:
``python -m fedquad_core.prefork ROOT [--parent PID] [--idle-exit SECONDS]``.

- **One per store**: it holds an exclusive ``flock`` on ``ROOT/.prefork.lock`` for its whole
  life and listens on the Unix socket ``ROOT/.prefork.sock`` (owner-only; a peer of another user
  is refused). A second server finds the lock taken and exits before importing anything.
- **What a request does**: ``{"run_id": ...}`` for a run the launcher just created (state
  ``queued``, no process yet). The server forks; the child starts its own session, sends its output
  to the run's ``log.txt`` and runs ``fedquad run --run-id`` exactly as ``slot_wait`` would have
  exec'd it (slot, claim, cancel file, signals: the same code). The server writes the child's pid
  into ``status.json`` before the child may start, then answers ``{"pid": ...}``.
- **When it refuses** (the launcher then starts the run the usual way): a run that is not
  queued or already has a process, a malformed request, a request older than the launcher waits
  for an answer (``ANSWER_S``), or a server that is not single-threaded (forking a threaded process
  is not safe). A launch while the server is still importing waits for it (``READY_WAIT_S``); an
  answer lost to a time-out is looked for in status.json, where the server writes the pid first:
  a run is never started twice.
- **When it exits**: when its parent is gone, after ``--idle-exit`` seconds without a request,
  or when its socket file is removed. The runs it started are in their own sessions and go on.
- **Same numbers**: a forked run computes what a fresh process computes (the preload runs no torch
  operation and seeds nothing; tests/engine/test_prefork.py compares the metrics of both).
"""
from __future__ import annotations

import argparse
import atexit
import importlib
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from pathlib import Path

from . import locks
from .store import RunStore, pid_alive, process_identity

LOCK_NAME = ".prefork.lock"
SOCKET_NAME = ".prefork.sock"
LOG_NAME = ".prefork.log"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes: a longer store path gets no warm start
IDLE_S = 3600.0
ANSWER_S = 5.0         # how long the launcher waits for the fork's answer before starting the run itself
READY_WAIT_S = 6.0     # how long a launch waits for a server that is still importing (about 4 s)
REQUEST_LIMIT = 4096
_held: dict[str, int] = {}  # the server's lock fd: closed in each child (a run must not hold it)


def socket_path(root) -> Path | None:
    """The store's socket, or None where there can be no warm server: a path too long for a Unix
    socket, or a system without peer credentials (``SO_PEERCRED``: Linux) to check who asks."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "fork"):
        return None
    path = Path(root).resolve() / SOCKET_NAME
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None


# ---- the launcher's side -----------------------------------------------------------------------
def request(root, run_id: str, slots: int, timeout: float = ANSWER_S, ready_wait: float = READY_WAIT_S) -> int | None:
    """Ask the store's server to start the queued run ``run_id``; the pid of its process, or None
    when there is no server or it did not take the run (the caller then starts it itself).

    A server still importing (its lock held, no socket yet) is waited for up to ``ready_wait`` s.
    The run is never started twice: the server refuses a request older than ``timeout`` and writes
    the child's pid into status.json before it answers, so an answer lost to a time-out is looked
    for there."""
    path = socket_path(root)
    if path is None:
        return None
    deadline = time.monotonic() + ready_wait
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
        if _is_pid(pid) and pid_alive(pid):
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


# ---- the server ----------------------------------------------------------------------------------
def preload() -> None:
    """What every run imports, once: the CLI's run command and everything it reaches. Nothing
    here may leave a thread behind (the server forks): scikit-learn's loaders import pandas and
    so pyarrow, whose jemalloc starts a background thread unless told not to."""
    os.environ.setdefault("JE_ARROW_MALLOC_CONF", "background_thread:false")
    import torch  # noqa: F401
    import torch.optim  # noqa: F401

    from . import data, geometry, local_metrics, methods, runner  # noqa: F401
    from .cli import main  # noqa: F401
    from .version import engine_fingerprint

    engine_fingerprint()  # each run's key: of the code this server (and so each run it forks) has loaded
    for name in ("torch._dynamo",  # the first optimizer step imports it (about 1 s)
                 "sklearn.datasets", "sklearn.model_selection"):  # the digits loader's (about 1.8 s)
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _refuse(conn: socket.socket, why: str) -> None:
    print(f"prefork: refused: {why}", flush=True)
    try:
        conn.sendall(json.dumps({"refused": why}).encode() + b"\n")
    except OSError:
        pass


def _handle(conn: socket.socket, listener: socket.socket, store: RunStore) -> None:
    conn.settimeout(2.0)
    if _peer_uid(conn) != os.getuid():
        return _refuse(conn, "a process of another user")
    try:
        req = _read_line(conn)
        run_id, slots, sent = req["run_id"], int(req.get("slots", 1)), float(req.get("sent", time.time()))
        if not isinstance(run_id, str) or not 1 <= slots <= 1024:
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError):
        return _refuse(conn, "a malformed request")
    if time.time() - sent > ANSWER_S:  # its launcher has given up waiting and starts the run itself
        return _refuse(conn, f"a request {time.time() - sent:.1f} s old")
    try:
        status = store.read_status(run_id)
    except Exception:  # noqa: BLE001 - an unknown or damaged run: refused, the launcher decides
        return _refuse(conn, f"no readable run {run_id!r}")
    if status.get("state") != "queued" or pid_alive(status.get("pid")):
        return _refuse(conn, f"run {run_id} is {status.get('state')} or has a process")
    if _threads() != 1:
        return _refuse(conn, f"{_threads()} threads in the server: not safe to fork")
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        _child(go_r, conn, listener, store, run_id, slots)  # never returns
    os.close(go_r)
    try:
        store.writer(run_id).set_status("queued", **process_identity(pid))
    finally:
        os.write(go_w, b"g")
        os.close(go_w)
    print(f"prefork: run {run_id} started as pid {pid}", flush=True)
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        pass


def _child(go_r: int, conn: socket.socket, listener: socket.socket, store: RunStore, run_id: str, slots: int):
    code = 1
    try:
        conn.close()
        listener.close()
        os.close(_held.pop("lock"))
        os.setsid()
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGUSR1, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        if os.read(go_r, 1) != b"g":  # the server died before it wrote this pid into status.json
            os._exit(0)
        os.close(go_r)
        log = os.open(store.path(run_id) / "log.txt", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        from .cli import main

        code = main(["run", "--runs-dir", str(store.root), "--run-id", run_id, "--no-progress", "--slots", str(slots)])
    except BaseException:  # noqa: BLE001 - the child must never return into the server's loop
        traceback.print_exc()
    finally:
        try:  # a normal exit's work (atexit: e.g. multiprocessing's clean-up), then out without the server's
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


def serve(root: Path, parent: int | None, idle_s: float) -> int:
    lock = locks.take(root / LOCK_NAME)
    if lock is None:
        print("prefork: another server holds this store", flush=True)
        return 0
    _held["lock"] = lock
    t0 = time.monotonic()
    preload()
    path = socket_path(root)
    if path is None:
        return 0
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old)
    listener.listen(16)
    inode = path.stat().st_ino
    store = RunStore(root)
    print(f"prefork: serving {root} (preload {time.monotonic() - t0:.1f} s, pid {os.getpid()})", flush=True)
    last = time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([listener], [], [], 1.0)
            if ready:
                conn, _ = listener.accept()
                with conn:
                    _handle(conn, listener, store)
                last = time.monotonic()
            _reap()
            if parent and not pid_alive(parent):
                print("prefork: parent gone, exiting", flush=True)
                return 0
            if time.monotonic() - last > idle_s:
                print("prefork: idle, exiting", flush=True)
                return 0
            try:
                if path.stat().st_ino != inode:
                    return 0
            except OSError:
                print("prefork: socket removed, exiting", flush=True)
                return 0
    finally:
        listener.close()
        try:
            if path.stat().st_ino == inode:
                path.unlink()
        except OSError:
            pass


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fedquad_core.prefork", description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path, help="the run store to serve")
    p.add_argument("--parent", type=int, default=None, help="exit when this process is gone")
    p.add_argument("--idle-exit", type=float, default=IDLE_S, help="exit after this many seconds without a request")
    args = p.parse_args(argv)
    root = args.root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    return serve(root, args.parent, args.idle_exit)


if __name__ == "__main__":
    sys.exit(main())
