"""``Checked``: a configuration the preflight passed (``preflight.check_runs``), as the launcher
hands it to a run's process. Torch-free: the dashboard's launcher imports it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .run import RunConfig


@dataclass(frozen=True, eq=False)
class Checked:
    """A configuration the preflight passed, resolved (every data set and method default written
    out, as stored in the run's config.json), with its partition and the digest of the training
    labels it was drawn on; ``parts`` is None where the preflight had no labels (data in a custom
    folder or to download: the run checks and draws itself)."""
    config: RunConfig
    parts: list[np.ndarray] | None = None
    labels_digest: str | None = None
