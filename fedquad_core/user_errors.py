"""Every error a user can fix, gathered from the modules that define it: bad input
(``errors.UserError``), a setting (``config.ConfigError``), the run store (``RunNotFound``,
``StoreError``), the data (``errors.DataError``) and an impossible partition (``PartitionError``).
Every command catches ``USER_ERRORS``, prints the one line and exits 2, before any training
starts; the dashboard shows the line."""
from __future__ import annotations

from .config import ConfigError
from .errors import DataError, UserError
from .numerics.partition import PartitionError
from .runs.store import RunNotFound, StoreError

USER_ERRORS = (UserError, ConfigError, RunNotFound, StoreError, DataError, PartitionError)
