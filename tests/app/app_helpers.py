"""Shared helpers of the dashboard tests (paths, polling the store)."""
from __future__ import annotations

import os
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "app" / "main.py")
PAGES = ["views/partitions.py", "views/launch.py", "views/live.py", "views/embeddings.py",
         "views/geometry.py", "views/clients.py", "views/runs.py", "views/explore.py"]


def wait_finished(store, run_ids, timeout=120.0):
    """Poll the store until every run has left queued/running; return their states."""
    deadline = time.monotonic() + timeout
    while True:
        states = [store.read_status(r).get("state") for r in run_ids]
        if all(s not in ("queued", "running") for s in states) or time.monotonic() > deadline:
            return states
        time.sleep(0.5)


def trace_values(trace: dict, axis: str = "y") -> list:
    """A plotly trace's x or y values, whether plain lists or plotly 6 typed arrays ({dtype, bdata})."""
    import base64

    import numpy as np

    v = trace.get(axis)
    if isinstance(v, dict) and "bdata" in v:
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        shape = v.get("shape")
        if isinstance(shape, str):  # plotly writes "rows, cols"
            shape = [int(n) for n in shape.split(",")]
        return arr.reshape(shape).tolist() if shape else arr.tolist()
    return list(v) if v is not None else []


def open_page(page: str):
    """The app run once, then switched to ``page`` (a path under app/, e.g. "views/runs.py")."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page(page)
    at.run()
    return at


def page_text(at) -> str:
    """Everything the page shows as text: its elements' values and its tables."""
    parts = [str(getattr(el, "value", "")) for el in at.main]
    parts += [df.value.to_string() for df in at.dataframe]
    return "\n".join(parts)
