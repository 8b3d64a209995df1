"""The store's shared folder (``<root>/follow``, ``store.FOLLOW_FOLDER``): small JSON files the
dashboard's sessions share across its server processes (the classroom's follow positions and its
poll). The engine knows only that the folder is never a run; what a file holds is the app's.

Each file is read bounded and only as a regular file (a pipe never hangs a page, a link is not
followed: ``safe_io``), written atomically (a temp file renamed; never through a planted link
between the store and it), and ``update`` rewrites one under its lock file so that two sessions'
changes are never lost to each other. Torch-free."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from .. import safe_io
from . import locks
from .store import FOLLOW_FOLDER, atomic_write_json


class SharedFolder:
    """The shared folder of the store at ``root`` (see the module)."""

    FOLDER = FOLLOW_FOLDER  # its name in every store

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.folder = self.root / FOLLOW_FOLDER

    def path(self, name: str) -> Path:
        """Where the shared file ``name`` lives (``name`` is a plain file name the caller checked)."""
        return self.folder / name

    def shown(self, name: str) -> str:
        """The file's name relative to the store, as a message names it (``follow/<name>``)."""
        return f"{FOLLOW_FOLDER}/{name}"

    def read(self, name: str, limit: int) -> Any:
        """The JSON value of the shared file ``name`` (at most ``limit`` bytes, duplicate keys and
        deep nesting refused); ``FileNotFoundError`` when it is missing, ``DamagedFile`` naming
        anything else wrong with it, ``OSError`` when it cannot be read."""
        return safe_io.read_json(self.path(name), limit)

    def write(self, name: str, data: Any) -> None:
        """Write the JSON value ``data`` as the shared file ``name`` (atomically; the folder is
        created if missing)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.path(name), data, within=self.root)

    def update(self, name: str, change: Callable[[], Any], *, wait_s: float = 3.0) -> Any:
        """Under the lock file of ``name`` (its suffix replaced by ``.lock``): write what
        ``change()`` returns (it reads the file itself, with ``read``) and return it; an exception
        of ``change`` writes nothing. ``TimeoutError`` when another process holds the lock past
        ``wait_s`` seconds; ``UnsafeFile`` for a planted link or pipe at the lock."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with locks.exclusive(self.path(Path(name).with_suffix(".lock").name), within=self.root, wait_s=wait_s):
            data = change()
            self.write(name, data)
            return data
