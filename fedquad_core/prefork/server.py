"""The warm server itself (``fedquad_core.prefork``'s docstring says what it does): it imports
the engine once, then forks each requested run and runs the CLI's ``run --run-id`` in the child.
The socket's names and the request's reading are the launcher's (``fedquad_core.runs.launcher``)."""
from __future__ import annotations

import argparse
import atexit
import importlib
import json
import math
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

from .. import safe_io
from ..runs import locks
from ..version import engine_fingerprint
from ..runs.store import RunStore, pid_alive, process_identity
from ..runs.launcher import ANSWER_S, IDLE_S, LOCK_NAME, _read_line, socket_path

_held: dict[str, int] = {}  # the server's lock fd: closed in each child (a run must not hold it)


def preload() -> None:
    """What every run imports, once: the CLI's run command and everything it reaches. Nothing
    here may leave a thread behind (the server forks): scikit-learn's loaders import pandas and
    so pyarrow, whose jemalloc starts a background thread unless told not to."""
    os.environ.setdefault("JE_ARROW_MALLOC_CONF", "background_thread:false")
    # lazy by design: this is the preload, after the store's lock (a second server exits before
    # importing anything) and after the variable above; cli.main alone is about 1.6 s (benchmarks/lazy_imports.py)
    import torch  # noqa: F401
    import torch.optim  # noqa: F401

    from .. import data, methods  # noqa: F401
    from ..numerics import geometry  # noqa: F401
    from ..train import local_metrics, runner  # noqa: F401
    from ..cli import main  # noqa: F401

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
        if (not isinstance(run_id, str) or Path(run_id).name != run_id or run_id.startswith(".")
                or not 1 <= slots <= 1024 or not math.isfinite(sent)):
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
    threads = _threads()
    if threads != 1:
        return _refuse(conn, f"{threads} threads in the server: not safe to fork")
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        _child(go_r, conn, listener, store, run_id, slots)  # never returns
    os.close(go_r)
    written = False
    try:
        store.writer(run_id).set_status("queued", **process_identity(pid))
        written = True
    finally:
        os.write(go_w, b"g" if written else b"x")  # no pid in status.json: the child must not run
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
        log = safe_io.open_fd(store.path(run_id) / "log.txt", "append", within=store.root)  # no planted link or pipe
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        from ..cli import main  # loaded by preload (a look-up here); at the top it would load before the lock

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
    """Serve launch requests for the store at ``root`` until idle for ``idle_s`` seconds, the
    ``parent`` process is gone, or the socket is removed or replaced (another server took over);
    0 also when another server holds the store."""
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
    listener, inode = _listen(path)
    store = RunStore(root)
    print(f"prefork: serving {root} (preload {time.monotonic() - t0:.1f} s, pid {os.getpid()})", flush=True)
    try:
        last = time.monotonic()
        while True:
            if _answer_one(listener, store, timeout=1.0):
                last = time.monotonic()
            _reap()
            reason = _why_stop(path, inode, parent, idle_s, time.monotonic() - last)
            if reason is not None:
                if reason:
                    print(f"prefork: {reason}, exiting", flush=True)
                return 0
    finally:
        _close(listener, path, inode)


def _listen(path: Path) -> tuple[socket.socket, int]:
    """The listening socket at ``path``, owner-only (umask 177 while it is bound), and its inode."""
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old)
    listener.listen(16)
    return listener, path.stat().st_ino


def _answer_one(listener: socket.socket, store: RunStore, timeout: float) -> bool:
    """One request answered if one comes within ``timeout`` seconds (whether one came)."""
    ready, _, _ = select.select([listener], [], [], timeout)
    if not ready:
        return False
    conn, _ = listener.accept()
    with conn:
        try:
            _handle(conn, listener, store)
        except Exception:  # noqa: BLE001 - one request's failure (no answer: the launcher starts it)
            traceback.print_exc()
    return True


def _why_stop(path: Path, inode: int, parent: int | None, idle_s: float, idle: float) -> str | None:
    """Why the server should end now ("" for a quiet end: the socket replaced by another
    server's), or None to go on."""
    if parent and not pid_alive(parent):
        return "parent gone"
    if idle > idle_s:
        return "idle"
    try:
        if path.stat().st_ino != inode:
            return ""
    except OSError:
        return "socket removed"
    return None


def _close(listener: socket.socket, path: Path, inode: int) -> None:
    """The socket closed, and its file removed unless another server's has replaced it."""
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
    p = argparse.ArgumentParser(prog="python -m fedquad_core.prefork", description="the warm server for runs of one store")
    p.add_argument("root", type=Path, help="the run store to serve")
    p.add_argument("--parent", type=int, default=None, help="exit when this process is gone")
    p.add_argument("--idle-exit", type=float, default=IDLE_S, help="exit after this many seconds without a request")
    args = p.parse_args(argv)
    root = args.root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    return serve(root, args.parent, args.idle_exit)


if __name__ == "__main__":
    sys.exit(main())
