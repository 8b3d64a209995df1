"""The errors a user can fix that are not a setting's (``UserError``: bad command-line input;
``DataError``: missing or unreadable data), and ``RUN_INPUT_ERRORS``: what a run records as its
one-line message (no traceback) and re-raises. A leaf: it imports nothing of the engine, so any
module may import it. The tuple of every user error, from the modules that define them, is
``user_errors.USER_ERRORS``."""
from __future__ import annotations


class DataError(Exception):
    """Data is missing or unreadable. The message is one line: what is wrong and how to fix it."""


class UserError(Exception):
    """Bad command-line input; the message says what to change."""


# a run: settings, data, and any ValueError of its preparation (ConfigError, PartitionError and
# StoreError are ValueErrors)
RUN_INPUT_ERRORS = (DataError, ValueError)
