"""Shared helpers of the dashboard tests (paths, polling the store)."""
from __future__ import annotations

import os
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "app" / "main.py")
PAGES = ["pages/partitions.py", "pages/launch.py", "pages/live.py", "pages/embeddings.py",
         "pages/geometry.py", "pages/runs.py"]


def wait_finished(store, run_ids, timeout=120.0):
    """Poll the store until every run has left queued/running; return their states."""
    deadline = time.monotonic() + timeout
    while True:
        states = [store.read_status(r).get("state") for r in run_ids]
        if all(s not in ("queued", "running") for s in states) or time.monotonic() > deadline:
            return states
        time.sleep(0.5)
