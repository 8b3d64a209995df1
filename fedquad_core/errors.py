"""User errors: bad input a user can fix, in one place. Every command catches ``USER_ERRORS``,
prints the one line and exits 2, before any training starts; a run that fails on
``RUN_INPUT_ERRORS`` records the message alone (no traceback) and re-raises it."""
from __future__ import annotations

import errno

from .config import ConfigError
from .numerics.partition import PartitionError
from .runs.store import RunNotFound, StoreError


class DataError(Exception):
    """Data is missing or unreadable. The message is one line: what is wrong and how to fix it."""


class UserError(Exception):
    """Bad command-line input; the message says what to change."""


USER_ERRORS = (UserError, ConfigError, RunNotFound, StoreError, DataError, PartitionError)
# a run: settings, data, and any ValueError of its preparation (partition, store, arguments)
RUN_INPUT_ERRORS = (ConfigError, DataError, ValueError)


def os_error_line(exc: OSError) -> str:
    """An operating-system error as one line naming the file: what a disk-full, read-only or
    vanished run store says instead of a traceback."""
    where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
    if exc.errno == errno.ENOSPC:
        return f"no space left on the run store's disk{where} (free some space, or use --runs-dir on another disk)"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"cannot write{where}: {exc.strerror} (use --runs-dir with a folder you can write)"
    text = f"{exc.strerror or exc}{where}"
    return text if len(text) <= 300 else text[:299] + "…"
