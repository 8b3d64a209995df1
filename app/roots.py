"""Where the dashboard's two run stores live: the user's (``$FEDQUAD_RUNS_DIR``, default ``runs``)
and the recorded, read-only one shipped with the project (``$FEDQUAD_RECORDED_DIR``, default
``<repo>/assets/recorded``). Pure (no streamlit), so the service and the lesson's data share it."""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def runs_dir() -> Path:
    return Path(os.environ.get("FEDQUAD_RUNS_DIR", "runs"))


def recorded_dir() -> Path:
    """The recorded, read-only run store shipped with the project (studies recorded offline)."""
    return Path(os.environ.get("FEDQUAD_RECORDED_DIR", REPO_ROOT / "assets" / "recorded"))


def confirmed_dir() -> Path:
    """The confirmation studies shipped with the project (``$FEDQUAD_CONFIRMED_DIR``, default
    ``<repo>/assets/confirmed``): the registration's rows, run on fresh seeds (docs/verdicts.md)."""
    return Path(os.environ.get("FEDQUAD_CONFIRMED_DIR", REPO_ROOT / "assets" / "confirmed"))
