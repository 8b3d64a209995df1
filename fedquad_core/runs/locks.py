"""Whole-life process locks on a file (``flock``): a long-lived helper process (the dashboard's
warm server for runs, its projection worker) holds one for as long as it lives, so there is one
per store, and the kernel frees it when the process ends however it ends."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path


def take(path: Path) -> int | None:
    """Lock ``path`` (created if missing) for this process and write its pid into it; the open
    descriptor, or None when another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def held(path: Path) -> bool:
    """True while some process holds ``path``'s lock."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
