"""User errors: bad input a user can fix. Every command catches ``USER_ERRORS``, prints the one
line and exits 2, before any training starts."""
from __future__ import annotations

from .config import ConfigError
from .data import DataError
from .partition import PartitionError
from .store import RunNotFound, StoreError


class UserError(Exception):
    """Bad command-line input; the message says what to change."""


USER_ERRORS = (UserError, ConfigError, RunNotFound, StoreError, DataError, PartitionError)
