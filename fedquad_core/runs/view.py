"""One damage-tolerant view over a run store, the one every reader of runs in the dashboard uses
(the Runs, Live, Geometry and Explore pages, the Lesson's data, the study catalog, the projection
worker): each read returns a plain default when the run is not there or a file is damaged, instead
of raising, and the damage is named once, here (``damaged``: run id -> one line).

What counts as "skipped": ``RunNotFound`` (no such run: nothing named), ``StoreError`` (a damaged
file: ``DamagedRun`` names it), ``OSError`` (the folder went away or cannot be listed) and
``ValueError`` (a stray file name). A read that must fail loudly (one snapshot a figure draws)
goes through ``store`` (the ``RunStore``), whose readers raise.

Optionally (``cache_metrics``) the metrics of each run are read once: the Lesson reads every run of
a study many times while it draws one step; the pages read them afresh (a run may be training)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np

from .store import DamagedRun, RunInfo, RunNotFound, RunStore, StoreError

T = TypeVar("T")
SKIPPED = (RunNotFound, StoreError, OSError, ValueError)  # StoreError is a ValueError; listed for the reader


class RunView:
    """The runs under ``root`` as the dashboard reads them: never an exception for a missing run
    or a damaged file (see the module's docstring)."""

    def __init__(self, root: str | os.PathLike, *, cache_metrics: bool = False):
        self.store = RunStore(Path(root))
        self.root = self.store.root
        self.damaged: dict[str, str] = {}
        self._metrics: dict[str, list[dict[str, Any]]] | None = {} if cache_metrics else None

    def _read(self, run_id: str, read: Callable[[], T], default: T) -> T:
        try:
            return read()
        except RunNotFound:
            return default
        except SKIPPED as e:
            self.damaged.setdefault(run_id, str(e))  # named once, however often it is read
            return default

    # ---- the run's files ----
    def exists(self, run_id: str) -> bool:
        return self._read(run_id, lambda: self.store.exists(run_id), False)

    def path(self, run_id: str) -> Path:
        return self.store.path(run_id)

    def runs(self) -> list[RunInfo]:
        """Every run (a damaged one with state "damaged" and its reason); [] for a missing root."""
        try:
            return self.store.list_runs()
        except OSError:
            return []

    def status(self, run_id: str) -> dict[str, Any]:
        """The run's status; {} when there is none; ``{"state": "damaged", "error": reason}`` when
        its files cannot be read."""
        try:
            return self.store.read_status(run_id)
        except DamagedRun as e:
            self.damaged.setdefault(run_id, str(e))
            return {"state": "damaged", "error": e.reason}
        except SKIPPED as e:
            if not isinstance(e, RunNotFound):
                self.damaged.setdefault(run_id, str(e))
            return {}

    def config(self, run_id: str) -> dict[str, Any]:
        """The run's config; {} for a damaged or vanished run (its status says why)."""
        return self._read(run_id, lambda: self.store.read_config(run_id), {})

    def metrics(self, run_id: str) -> list[dict[str, Any]]:
        """The run's metrics rows (with the per-client ``local`` lists); [] when unreadable."""
        if self._metrics is None:
            return self._read(run_id, lambda: self.store.read_metrics(run_id), [])
        if run_id not in self._metrics:
            self._metrics[run_id] = self._read(run_id, lambda: self.store.read_metrics(run_id), [])
        return self._metrics[run_id]

    def whole(self, run_id: str, *, status: bool = True) -> tuple[dict, dict, list[dict]] | None:
        """(status, config, metrics) when each reads, else None (a table row needs all three;
        with ``status=False`` the status is not read and is {})."""
        try:
            got = (self.store.read_status(run_id) if status else {}, self.store.read_config(run_id),
                   self.store.read_metrics(run_id))
        except SKIPPED as e:
            if not isinstance(e, RunNotFound):
                self.damaged.setdefault(run_id, str(e))
            return None
        if self._metrics is not None:
            self._metrics.setdefault(run_id, got[2])
        return got

    def partition(self, run_id: str) -> dict[str, Any] | None:
        return self._read(run_id, lambda: self.store.read_partition(run_id), None)

    # ---- snapshots ----
    def snapshot_rounds(self, run_id: str, *, readable: bool = False) -> list[int]:
        """The snapshot rounds (``readable``: only those whose file reads: ``snapshot_damage``)."""
        return self._read(run_id, lambda: self.store.snapshot_rounds(run_id, readable=readable), [])

    def snapshot_damage(self, run_id: str) -> list[str]:
        """One line per damaged snapshot or UMAP layout file of the run."""
        return self._read(run_id, lambda: self.store.snapshot_damage(run_id), [])

    def local_snapshot_rounds(self, run_id: str) -> list[int]:
        return self._read(run_id, lambda: self.store.local_snapshot_rounds(run_id), [])

    def last_snapshot(self, run_id: str) -> tuple[int, dict[str, np.ndarray]] | None:
        """(round, arrays) of the run's last snapshot that reads (only the files read until then
        are opened; a damaged one is left out), or None."""
        for last in reversed(self.snapshot_rounds(run_id)):
            snap = self._read(run_id, lambda: self.store.read_snapshot(run_id, last), None)
            if snap is not None:
                return last, snap
        return None

    def layout(self, run_id: str, round_: int, n: int | None = None) -> tuple[np.ndarray | None, str | None]:
        """(the stored UMAP layout, None), (None, None) when none is stored, or (None, the damage
        in one line) when it cannot be read."""
        try:
            return self.store.read_layout(run_id, round_, n), None
        except DamagedRun as e:
            return None, str(e)
        except SKIPPED:
            return None, None

    def layout_ready(self, run_id: str, round_: int) -> bool:
        """True when the snapshot's UMAP layout is stored and reads (``False`` for a missing run)."""
        return self._read(run_id, lambda: self.store.layout_ready(run_id, round_), False)
