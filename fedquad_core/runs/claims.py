"""Claims: one process at a time trains a run key, across every process that shares a store.

    <root>/.claims/<key>.lock    locked with ``flock`` by the process training that key

A study point, a plain ``fedquad run`` and a dashboard run take the claim of their run key before
they train, and keep it until the run has ended (finished, failed or cancelled). The kernel
releases the lock when its process ends, however it ends (a crash or SIGKILL included), so a dead
claimer's claim is taken over by the next process that asks; nothing in the file decides who holds
it. The file names the holder's pid for messages only: no code signals a process because of it.
It is opened through ``safe_io`` (never through a planted link, never blocking on a planted pipe):
anything but a regular file there raises ``safe_io.UnsafeFile``, one line naming it.
After taking a claim, the claimer looks for a finished run of its key (``finished_run``): one that
another process trained while it waited is reused, not trained again. This module imports no torch.
"""
from __future__ import annotations

import fcntl
import os
import re
import time
from pathlib import Path
from typing import IO, Callable

from .. import safe_io
from ..study.store import finished_runs

_KEY = re.compile(r"^[0-9a-f]{16}$")


def claim_path(root: str | os.PathLike, key: str) -> Path:
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"invalid run key {key!r}")
    return Path(root) / ".claims" / f"{key}.lock"


def try_claim(root: str | os.PathLike, key: str) -> IO | None:
    """The claim of ``key`` (an open, locked file: keep it open while training), or None when
    another live process holds it."""
    path = claim_path(root, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    f = safe_io.open_file(path, "lock", within=root)
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def holder_pid(root: str | os.PathLike, key: str) -> int | None:
    """The pid the claim file names (for a message; it proves nothing), or None."""
    try:
        text = safe_io.read_text(claim_path(root, key), 64).strip()
        return int(text) if text.isdigit() and len(text) < 10 else None
    except (OSError, ValueError):  # DamagedFile is a ValueError
        return None


def claim(root: str | os.PathLike, key: str, *, should_stop: Callable[[], bool] = lambda: False,
          on_wait: Callable[[int | None], None] | None = None, poll_s: float = 0.2) -> IO | None:
    """Block until the claim of ``key`` is ours; return it, or None when ``should_stop()`` turns
    true first. ``on_wait(holder pid)`` is called once if another process holds it."""
    told = False
    while True:
        f = try_claim(root, key)
        if f is not None:
            return f
        if not told and on_wait is not None:
            on_wait(holder_pid(root, key))
        told = True
        if should_stop():
            return None
        time.sleep(poll_s)


def release(f: IO | None) -> None:
    if f is not None:
        try:
            f.close()  # closing the file drops the lock
        except OSError:
            pass


def finished_run(runs, key: str) -> str | None:
    """The first (by id) finished run of this engine with run key ``key`` in the store, or None."""
    return finished_runs(runs).get(key)
