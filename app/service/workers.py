"""The helper processes a dashboard keeps alive for its user store: the UMAP projection worker
and the warm server runs are forked from; each exits with this server process."""
from __future__ import annotations

import os
import sys
import threading

import streamlit as st

from fedquad_core import api
from fedquad_core.api import DamagedFile
from app.projection import worker as projection_worker
from app.roots import runs_dir


_told: set[str] = set()


def _not_started(what: str, error: Exception) -> None:
    """A helper not started because of a planted or damaged file in the store (a link or a pipe at
    its lock or log): one line in the dashboard's log, once; the pages work without it."""
    line = f"fedquad dashboard: {what} not started: {error}"
    if line not in _told:
        _told.add(line)
        print(line, file=sys.stderr, flush=True)


@st.cache_resource(show_spinner=False)
def _worker_start_lock() -> threading.Lock:
    return threading.Lock()  # one per server process: its sessions' threads start one worker


def keep_projection_worker() -> None:
    """Make sure the user store's UMAP projection worker runs (a flock check; it starts the
    detached worker only when none is alive, e.g. at the first page load or after an idle exit).
    The worker exits with this server process. FEDQUAD_PROJECTION_WORKER=0 turns it off."""
    if os.environ.get("FEDQUAD_PROJECTION_WORKER", "1") == "0":
        return
    with _worker_start_lock():
        try:
            projection_worker.ensure_worker(runs_dir(), parent=os.getpid())
        except (OSError, DamagedFile) as e:
            _not_started("UMAP projection worker", e)


def keep_warm_server() -> None:
    """Make sure the user store has its warm server (``fedquad_core.prefork``): launched runs are
    forked from a process that has imported the engine, so they start training seconds sooner.
    Called after a page ran (never while the first page is drawn). It exits with this server
    process. FEDQUAD_WARM_SERVER=0 turns it off (runs are then started as fresh processes)."""
    if os.environ.get("FEDQUAD_WARM_SERVER", "1") == "0":
        return
    with _worker_start_lock():
        try:
            api.keep_warm_server(runs_dir(), parent=os.getpid())
        except (OSError, DamagedFile) as e:  # runs then start as fresh processes
            _not_started("warm server", e)


