"""app/main.py runs the dashboard only as the script Streamlit runs (``__main__``). AppTest leaves
that script as the process's ``__main__``, and multiprocessing's "spawn" imports the parent's
``__main__`` in every child (as ``__mp_main__``): a child would otherwise start the dashboard's
UMAP worker and warm server on its store (it did, in the suite: tests/conftest.py's
``_keep_main_module``)."""
from __future__ import annotations

import multiprocessing
import os
import sys

from streamlit.testing.v1 import AppTest

from app_helpers import MAIN


def test_a_process_spawned_after_a_page_ran_does_not_start_the_dashboard(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.run()
    assert not at.exception and at.title
    assert getattr(sys.modules["__main__"], "__file__", "") == MAIN  # what a spawned child imports first
    child_store = tmp_path / "child-runs"
    # in the child the dashboard's helpers are on: it would start them on child_store if main() ran
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(child_store))
    monkeypatch.setenv("FEDQUAD_PROJECTION_WORKER", "1")
    monkeypatch.setenv("FEDQUAD_WARM_SERVER", "1")
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        pid = pool.apply_async(os.getpid).get(timeout=60)  # (with main() run there, the child hung)
    assert pid != os.getpid()
    assert not child_store.exists() or not any(child_store.iterdir()), sorted(p.name for p in child_store.iterdir())
