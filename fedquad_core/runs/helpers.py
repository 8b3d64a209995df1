"""The dashboard's helper processes in a run store, as two small objects the app asks (through
``fedquad_core.api``) instead of handling locks, pid files and process starting itself:

- ``Helper(root, name)``: a long-lived helper, one per store (the UMAP projection worker). Its
  files are ``<root>/.<name>.lock`` (a whole-life ``flock`` it holds, its pid written in it),
  ``.<name>.log`` (its output) and ``.<name>.stop`` (a stop request it polls: no signal is ever
  sent to a pid read from a file). The app calls ``start`` (unless one is alive), ``alive``,
  ``pid`` and ``stop``; the helper itself calls ``serve`` once at its start.
- ``Job(marker, log, request)``: a one-shot job computing one file (a UMAP layout), marked while
  it runs by ``marker`` (the pid of the process doing it; empty while it is being started), with
  its output or error in ``log``; ``request`` asks the store's helper for it instead.

How it is done stays here: locks (``runs.locks``), starting (``launcher.spawn_detached``: its own
session, reaped, the log opened through ``safe_io``), pid checks and atomic writes. Something other
than a regular file at a lock or a log (a planted link or pipe) raises ``safe_io.UnsafeFile``
naming it before anything starts. Torch-free."""
from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

from .. import safe_io
from . import locks
from .launcher import spawn_detached
from .store import atomic_write_text, pid_alive

_started: dict[Path, subprocess.Popen] = {}  # lock file -> the process started from here, still taking it


class Helper:
    """A long-lived helper process of the store at ``root`` named ``name`` (see the module)."""

    def __init__(self, root: str | os.PathLike, name: str):
        self.root, self.name = Path(root), name
        self.lock, self.log, self.stop_file = (self.root / f".{name}.{ext}" for ext in ("lock", "log", "stop"))

    def alive(self) -> bool:
        """True while a process holds the helper's lock (a link or pipe there: held by no one)."""
        return locks.held(self.lock)

    def pid(self) -> int | None:
        """The pid of the live helper, or None when there is none."""
        if not self.alive():
            return None
        try:
            return int(safe_io.read_text(self.lock, 64).split()[0])
        except (OSError, ValueError, IndexError):  # DamagedFile is a ValueError
            return None

    def start(self, cmd: list[str], *, cwd: str | os.PathLike | None = None,
              env: dict[str, str] | None = None) -> bool:
        """Start ``cmd`` (the helper, which calls ``serve``) detached unless one is alive or was
        started from this process and is still taking its lock; True if started now. Two
        processes racing both start one: the second exits at once on the lock. ``UnsafeFile``
        names a planted link or pipe at the lock or the log; nothing is started then."""
        root = self.root.resolve()
        lock = root / self.lock.name
        starting = _started.get(lock)
        if locks.held(lock) or (starting is not None and starting.poll() is None):
            return False
        root.mkdir(parents=True, exist_ok=True)
        locks.check(lock)
        _started[lock] = spawn_detached(cmd, root / self.log.name, name=self.name.replace("_", "-"), cwd=cwd,
                                        within=root, env=env)
        return True

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask the live helper to exit (its stop-request file; no signal is sent) and wait up to
        ``timeout`` seconds for it to go; True if one was stopped."""
        if not self.alive():
            return False
        atomic_write_text(self.stop_file, "stop\n")
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.alive()

    def serve(self, parent: int | None, poll_s: float = 0.5) -> int | None:
        """The helper's own start: take its lock (the open descriptor; None when another helper
        holds it: exit then), drop a stop request older than this process, and from now on end
        this process when ``parent`` is gone or ``stop`` asks (a thread, so that long work
        cannot delay the exit; the kernel then drops the lock)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = locks.take(self.lock)
        if fd is None:
            return None
        self.stop_file.unlink(missing_ok=True)  # a request older than this helper is not for it
        threading.Thread(target=self._exit_when_gone, args=(parent, poll_s), daemon=True).start()
        return fd

    def _exit_when_gone(self, parent: int | None, poll_s: float) -> None:
        while (parent is None or pid_alive(parent)) and not self.stop_file.exists():
            time.sleep(min(poll_s, 0.1))
        self.stop_file.unlink(missing_ok=True)
        os._exit(0)


class Job:
    """A one-shot job computing one file (see the module): ``marker`` holds the pid of the process
    doing it, ``log`` its output or error, ``request`` (optional) asks the store's helper for it.
    An empty marker counts as "being started" for ``grace_s`` seconds."""

    def __init__(self, marker: str | os.PathLike, log: str | os.PathLike, request: str | os.PathLike | None = None,
                 *, grace_s: float = 30.0):
        self.marker, self.log = Path(marker), Path(log)
        self.request = None if request is None else Path(request)
        self.grace_s = grace_s

    def running(self) -> bool:
        """True while a live process holds the marker (or an empty one is younger than
        ``grace_s``); a pipe or link planted there counts as no process and is never waited on."""
        try:
            text, age = safe_io.read_text(self.marker, 64).strip(), time.time() - self.marker.stat().st_mtime
        except (OSError, safe_io.DamagedFile):
            return False
        if not text:
            return age < self.grace_s
        return text.isdigit() and pid_alive(int(text))

    def _create(self, pid: int | None) -> bool:
        """Create the marker (``O_EXCL``) holding ``pid``; a stale one (its process gone) is
        replaced; False when a live process holds it."""
        for _ in range(3):
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                if self.running():
                    return False
                self.marker.unlink(missing_ok=True)  # stale: its process died
                continue
            with os.fdopen(fd, "w") as f:
                if pid is not None:
                    f.write(str(pid))
            return True
        return False

    def claim(self) -> bool:
        """Mark the job as done by this process; False when another live process has it."""
        return self._create(os.getpid())

    def start(self, cmd: list[str], *, name: str, cwd: str | os.PathLike | None = None,
              env: dict[str, str] | None = None) -> bool:
        """Start ``cmd`` detached to do the job (its output written afresh to ``log``), its pid in
        the marker; False when a live process has the job or something other than a regular file
        sits at the log (a planted link or pipe: then no job and no marker is left)."""
        if not self._create(None):  # of two sessions asking at once, one starts the job
            return False
        try:
            proc = spawn_detached(cmd, self.log, name=name, cwd=cwd, env=env, fresh_log=True)
        except (OSError, safe_io.DamagedFile):
            self.marker.unlink(missing_ok=True)
            return False
        safe_io.atomic_write(self.marker, lambda f: f.write(str(proc.pid).encode()))
        return True

    def release(self) -> None:
        """Drop the marker when it is this process's (or empty); another's is left alone."""
        try:
            if safe_io.read_text(self.marker, 64).strip() in ("", str(os.getpid())):
                self.marker.unlink(missing_ok=True)
        except (OSError, safe_io.DamagedFile):
            pass

    def fail(self, text: str) -> None:
        """Write why the job failed into its log (atomically; ``OSError`` when it cannot)."""
        atomic_write_text(self.log, text)

    def ask(self) -> bool:
        """Leave the request for the store's helper; False when it cannot be left (a planted link
        or pipe there is never written through)."""
        try:
            safe_io.touch(self.request)
        except (OSError, safe_io.DamagedFile):
            return False
        return True

    def asked(self) -> bool:
        """True while a request for the job is waiting."""
        return self.request is not None and self.request.exists()
