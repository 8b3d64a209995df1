"""A warm start for background runs: one process per run store that has imported the engine once
(torch, scikit-learn, the methods, the data loaders, the optimizer's first-step imports) and forks
each launched run from there, so a run starts training without the seconds a fresh Python spends
importing them (``benchmarks/demo_first_point.py``; README, "Speed").

The dashboard starts it (``launcher.ensure_warm_server``, after its first page); by hand:
``python -m fedquad_core.prefork ROOT [--parent PID] [--idle-exit SECONDS]``. This module is the
launcher's side (no torch, no CLI: the CLI's launcher imports it); ``prefork.server`` is the
server, which imports the engine and runs the CLI.

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

import json
import os
import socket
import time
from pathlib import Path

from .. import locks
from ..store import RunStore, pid_alive

LOCK_NAME = ".prefork.lock"
SOCKET_NAME = ".prefork.sock"
LOG_NAME = ".prefork.log"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes: a longer store path gets no warm start
IDLE_S = 3600.0
ANSWER_S = 5.0         # how long the launcher waits for the fork's answer before starting the run itself
READY_WAIT_S = 6.0     # how long a launch waits for a server that is still importing (about 4 s)
REQUEST_LIMIT = 4096


def socket_path(root) -> Path | None:
    """The store's socket, or None where there can be no warm server: a path too long for a Unix
    socket, or a system without peer credentials (``SO_PEERCRED``: Linux) to check who asks."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "fork"):
        return None
    path = Path(root).resolve() / SOCKET_NAME
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None


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
