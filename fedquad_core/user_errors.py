"""Every error a user can fix, gathered from the modules that define it: bad input
(``errors.UserError``), a setting (``config.ConfigError``), the run store (``RunNotFound``,
``StoreError``), the data (``errors.DataError``), an impossible partition (``PartitionError``) and a
damaged or planted file in the store (``safe_io.DamagedFile``, e.g. a link at a claim lock).
Every command catches ``USER_ERRORS``, prints the one line and exits 2, before any training
starts; the dashboard shows the line."""
from __future__ import annotations

from .config import ConfigError
from .errors import DataError, UserError
from .numerics.partition import PartitionError
from .runs.store import RunNotFound, StoreError
from .safe_io import DamagedFile

# DamagedFile: a file in the store that is a planted link, a pipe or unreadable, named in one line
USER_ERRORS = (UserError, ConfigError, RunNotFound, StoreError, DataError, PartitionError, DamagedFile)
