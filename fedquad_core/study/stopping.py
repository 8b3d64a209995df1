"""A study's driver, seen from outside: the running lock a live driver holds (so ``fedquad study
cancel`` can tell whether anyone would see its request), the cancel request it polls, and
``StudyStopped``, raised when a signal or a cancel stops the study before all its points ran."""
from __future__ import annotations

import fcntl
from pathlib import Path
from typing import Any

from .. import safe_io
from ..runs.store import atomic_write_text


def _running_lock_path(root, name: str):
    return Path(root) / "studies" / f".{name}.running"


def hold_running_lock(root, name: str):
    """A shared flock held while a driver trains the study's points (several drivers may); only a
    live driver can hold it, so ``study cancel`` can tell whether anyone would see its request."""
    path = _running_lock_path(root, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    f = safe_io.open_file(path, "lock", within=root)  # a planted link or pipe: UnsafeFile, one line
    fcntl.flock(f, fcntl.LOCK_SH)
    return f


def study_running(root, name: str) -> bool:
    """Whether a live driver holds the study's running lock (the kernel decides, not a file's content)."""
    path = _running_lock_path(root, name)
    try:  # a link or a pipe there: no driver holds it (a driver refuses to use one)
        f = safe_io.open_file(path, "read", within=root)
    except (OSError, safe_io.DamagedFile):
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def request_study_cancel(root, name: str) -> bool:
    """Ask every driver of study ``name`` to stop (as Ctrl-C does); False when none is running."""
    if not study_running(root, name):
        return False
    atomic_write_text(cancel_path(root, name), "cancel\n", within=Path(root))
    return True


class StudyStopped(Exception):
    """The study was stopped (Ctrl-C, SIGTERM or ``fedquad study cancel``) before all its points
    ran: no new point started, the running ones were cancelled after their round, and the study
    file records what finished. ``signal`` names what stopped it."""

    def __init__(self, name: str, signal_name: str, study: dict[str, Any] | None = None):
        super().__init__(f"study {name} stopped by {signal_name}")
        self.name, self.signal, self.study = name, signal_name, study


def cancel_path(root, name: str):
    """The file ``fedquad study cancel NAME`` writes; the study's driver polls it."""
    return Path(root) / "studies" / f".{name}.cancel"

