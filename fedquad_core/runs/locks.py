"""Whole-life process locks on a file (``flock``): a long-lived helper process (the dashboard's
warm server for runs, its projection worker) holds one for as long as it lives, so there is one
per store, and the kernel frees it when the process ends however it ends; and ``exclusive``, a
lock held for one ``with`` block (the classroom poll's read-and-rewrite). The lock file is opened
through ``safe_io`` (never through a planted link, never blocking on a planted pipe): something
else at its name raises ``safe_io.UnsafeFile`` naming it."""
from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

from .. import safe_io


def take(path: Path) -> int | None:
    """Lock ``path`` (created if missing) for this process and write its pid into it; the open
    descriptor, or None when another process holds it."""
    path = Path(path)
    fd = safe_io.open_fd(path, "lock", within=path.parent, mode=0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def check(path: Path) -> None:
    """Raise ``safe_io.UnsafeFile`` when something other than a regular file (a link, a pipe) sits
    at ``path``: a helper is not started on a lock it could never take."""
    path = Path(path)
    try:
        os.close(safe_io.open_fd(path, "read", within=path.parent))
    except FileNotFoundError:
        pass


def held(path: Path) -> bool:
    """True while some process holds ``path``'s lock. False when it is missing, unreadable, or
    not a regular file (a link or a pipe: ``take`` refuses those, so no process holds them)."""
    path = Path(path)
    try:
        fd = safe_io.open_fd(path, "read", within=path.parent)
    except (OSError, safe_io.DamagedFile):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(path: Path, *, within: Path | None = None, wait_s: float = 3.0, mode: int = 0o600) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the ``with`` block;
    ``TimeoutError`` when another process holds it for more than ``wait_s`` seconds."""
    f = safe_io.open_file(path, "lock", within=within, mode=mode)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{Path(path).name} is held by another process") from None
                time.sleep(0.02)
        yield
    finally:
        f.close()  # (closing releases the lock)
