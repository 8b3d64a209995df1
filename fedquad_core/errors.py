"""User errors: bad input a user can fix, in one place. Every command catches ``USER_ERRORS``,
prints the one line and exits 2, before any training starts; a run that fails on
``RUN_INPUT_ERRORS`` records the message alone (no traceback) and re-raises it."""
from __future__ import annotations

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
