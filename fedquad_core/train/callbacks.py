"""Side effects of a run, one small class each: the round loop only calls these hooks."""
from __future__ import annotations

import math
import sys
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from ..runs.stop_signals import interrupt_deferred
from ..safe_io import one_line


class Callback:
    def on_start(self, info: dict[str, Any]) -> None: ...
    def on_round(self, row: dict[str, Any]) -> None: ...
    def on_snapshot(self, round_: int, arrays: dict[str, np.ndarray]) -> None: ...
    def on_local_snapshot(self, round_: int, arrays: dict[str, np.ndarray]) -> None: ...
    def on_end(self, state: str, info: dict[str, Any]) -> None: ...
    def stop_requested(self) -> bool:
        return False


class Callbacks(Callback):
    """Fans each hook out to a list of callbacks."""

    def __init__(self, items: list[Callback]):
        self.items = list(items)

    def on_start(self, info):
        for c in self.items:
            c.on_start(info)

    def on_round(self, row):
        for c in self.items:
            c.on_round(row)

    def on_snapshot(self, round_, arrays):
        for c in self.items:
            c.on_snapshot(round_, arrays)

    def on_local_snapshot(self, round_, arrays):
        for c in self.items:
            c.on_local_snapshot(round_, arrays)

    def on_end(self, state, info):
        for c in self.items:
            c.on_end(state, info)

    def stop_requested(self) -> bool:
        return any(c.stop_requested() for c in self.items)


class StoreCallback(Callback):
    """Writes status, metrics (line by line), partition, snapshots and weights to the run store."""

    def __init__(self, writer):
        self.writer = writer

    def on_start(self, info):
        self.writer.save_partition(info["partition"])
        self.writer.set_status("running", started=time.time(), total_rounds=info["rounds"], round=0,
                               device=info["device"], num_train=info["num_train"],
                               data_source=info.get("data_source"))

    def on_round(self, row):
        with interrupt_deferred():  # the row and the status's round move together
            self.writer.append_metrics(row)
            self.writer.set_status("running", round=row["round"])

    def on_snapshot(self, round_, arrays):
        self.writer.save_snapshot(round_, arrays)

    def on_local_snapshot(self, round_, arrays):
        self.writer.save_local_snapshot(round_, arrays)

    def on_end(self, state, info):
        fields = {k: v for k, v in info.items() if k in ("error", "diverged_round", "round", "stopped_by")}
        if fields.get("error"):  # one line for pages and `list`; a traceback stays in error_detail
            full = str(fields["error"])
            fields["error"] = _error_line(full)
            if "\n" in full.strip():
                fields["error_detail"] = full[-8_000:]
        try:
            if info.get("weights") is not None:
                self.writer.save_weights(info["weights"])
            if state == "failed":  # the last round whose metrics row was written (the status moves with it)
                last = fields.get("round", self.writer.status().get("round"))
                if isinstance(last, int):
                    self.writer.drop_snapshots_after(last)
            self.writer.set_status(state, ended=time.time(), **fields)
        except OSError:  # the disk is full or gone: what is on it stays as it was
            if state != "failed":
                raise

    def stop_requested(self) -> bool:
        return self.writer.cancel_requested()


def _error_line(text: str) -> str:
    """A run's error as one line of bounded length: "no space left ..." for a full disk."""
    first = text.strip().splitlines()[0] if text.strip() else "failed"
    if "[Errno 28]" in first or "No space left on device" in first:
        return "no space left on the run store's disk: free some space, or use another --runs-dir"
    return one_line(first, 300)


class SignalStop(Callback):
    """Stops the loop after the current round once ``flag['stop']`` is set (by a signal handler)."""

    def __init__(self, flag: dict[str, bool]):
        self.flag = flag

    def stop_requested(self) -> bool:
        if self.flag.get("stop"):
            self.flag["ending"] = True  # the loop returns now: a later Ctrl-C must not cut the saving short
            return True
        return False


class ProgressCallback(Callback):
    """A progress bar on stderr (tqdm) with the latest accuracy."""

    def __init__(self, label: str = "", stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.bar = None

    def on_start(self, info):
        self.bar = tqdm(total=info["rounds"], desc=self.label or info.get("method", "run"), unit="round",
                        file=self.stream, leave=True, dynamic_ncols=True)

    def on_round(self, row):
        if self.bar is not None:
            post = {"acc": f"{row['test_accuracy']:.3f}"}
            if "ratio" in row and row["ratio"] is not None and math.isfinite(row["ratio"]):
                post["ratio"] = f"{row['ratio']:.3f}"
            self.bar.set_postfix(post, refresh=False)
            self.bar.update(1)

    def on_end(self, state, info):
        if self.bar is not None:
            self.bar.close()
