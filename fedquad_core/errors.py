"""The errors a user can fix that are not a setting's (``UserError``: bad command-line input;
``DataError``: missing or unreadable data), and ``RUN_INPUT_ERRORS``: what a run records as its
one-line message (no traceback) and re-raises. A leaf: it imports nothing of the engine, so any
module may import it. The tuple of every user error, from the modules that define them, is
``user_errors.USER_ERRORS``."""
from __future__ import annotations

import errno


class DataError(Exception):
    """Data is missing or unreadable. The message is one line: what is wrong and how to fix it."""


class UserError(Exception):
    """Bad command-line input; the message says what to change."""


# a run: settings, data, and any ValueError of its preparation (ConfigError, PartitionError and
# StoreError are ValueErrors)
RUN_INPUT_ERRORS = (DataError, ValueError)


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
