"""Helpers of the planted-file tests (issue 47): plant a symbolic link to a victim file outside
the store, or a named pipe, at a path; fail instead of hanging; read a folder back byte for byte."""
from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

SECRET = b"the victim's file: must never change\n"
HANG_S = 20


@contextlib.contextmanager
def no_hang(seconds: int = HANG_S):
    """Fail (SIGALRM) when the block takes ``seconds``: a planted pipe must never be waited on."""
    def hung(signum, frame):
        raise AssertionError(f"hung for {seconds} s on a planted pipe")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def victim_folder(base: Path) -> Path:
    """A folder outside the store holding one file with ``SECRET`` in it."""
    outside = base / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_bytes(SECRET)
    return outside


def plant(path: Path, kind: str, outside: Path) -> None:
    """A link to ``outside/victim.txt`` ("link") or a named pipe ("fifo") at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if kind == "link":
        path.symlink_to(outside / "victim.txt")
    else:
        os.mkfifo(path)


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def refusal(where: str, kind: str) -> str:
    """The one line a refused planted ``kind`` at store path ``where`` gives."""
    what = "is a symbolic link, not a file" if kind == "link" else "is a named pipe, not a regular file"
    return f"run store: {where} {what}: remove it"
