"""The run store: one folder per run under a root; the only channel between the engine and
the dashboard.

    <root>/<run_id>/config.json        the resolved RunConfig (atomic write)
                    status.json        state, error, times, pid, round (atomic write)
                    metrics.jsonl      one JSON object per round, appended and flushed
                    partition.json     clients x classes counts
                    embeddings/round_NNNN.npz   embeddings, labels and the geometry arrays
                    model.pt           final global weights (load with weights_only=True)
                    cancel             present when a cancel was requested
                    log.txt            stdout/stderr of a background run

Readers never see a half-written JSON file (temp file + os.replace) and skip a metrics line
that is still being written.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

import numpy as np

STATES = ("queued", "running", "finished", "failed", "cancelled", "diverged")
ACTIVE = ("queued", "running")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class RunNotFound(LookupError):
    """No run of that id in the store."""


class StoreError(ValueError):
    """An invalid run id, or an operation the run's state does not allow."""


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write a file so that readers see the old one or the whole new one, never half of it:
    ``write(f)`` fills a hidden temp file in the same folder, which then replaces ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda f: f.write(text.encode()))


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, default=_jsonable))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} as JSON")


def check_run_id(run_id: str) -> str:
    if not isinstance(run_id, str) or not _RUN_ID.match(run_id) or ".." in run_id:
        raise StoreError(f"invalid run id {run_id!r}: use letters, digits, '.', '_' and '-' (no path separators)")
    return run_id


def new_run_id(method: str, *, now: float | None = None) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return f"{stamp}-{method}-{os.urandom(3).hex()}"


def _proc_stat(pid: int) -> list[str] | None:
    """Fields 3.. of /proc/<pid>/stat (after the command name), or None when there is no such process."""
    try:
        with open(f"/proc/{int(pid)}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None


def process_start(pid: int | None) -> int | None:
    """When process ``pid`` started (field 22 of /proc/<pid>/stat, clock ticks since boot): with
    the pid it names one process, where a pid alone is reused by the system."""
    fields = _proc_stat(pid) if pid else None
    return int(fields[19]) if fields and len(fields) > 19 else None


def process_identity(pid: int) -> dict[str, Any]:
    """What a run stores in status.json to be recognised later: its pid and that pid's start time."""
    return {"pid": pid, "pid_start": process_start(pid)}


def pid_alive(pid: int | None) -> bool:
    if not pid or not isinstance(pid, int) or isinstance(pid, bool) or pid < 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError) as exc:
        return isinstance(exc, PermissionError)
    fields = _proc_stat(pid)  # a zombie child still answers kill(0): look at its state
    return fields is None or fields[0] != "Z"


def _cmdline_mentions_fedquad(pid: int) -> bool:
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as f:
            return b"fedquad" in f.read()
    except OSError:
        return False


def run_process_alive(status: dict[str, Any], *, signal_ok: bool = False) -> bool:
    """Whether the process a status names is still that run's process: its pid exists and its
    start time is the one the run recorded (``pid_start``). A pid reused by an unrelated process
    does not count. Old status files without ``pid_start``: the run counts as alive while a process
    with that pid whose command line mentions fedquad exists, but ``signal_ok=True`` (about to send
    a signal) is refused for them, since such a process is not known to be the run. Without /proc
    (not Linux) only the pid can be checked, as before."""
    pid = status.get("pid")
    if not pid_alive(pid):
        return False
    if not os.path.isdir("/proc/self"):  # no /proc (e.g. macOS): the pid is all there is to go on
        return True
    if "pid_start" not in status or status["pid_start"] is None:
        return not signal_ok and _cmdline_mentions_fedquad(pid)
    return process_start(pid) == status["pid_start"]


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    path: Path
    status: dict[str, Any]
    config: dict[str, Any]

    @property
    def state(self) -> str:
        return self.status.get("state", "unknown")


class RunStore:
    """Reads and manages the runs under ``root``. Safe to use while runs are writing."""

    def __init__(self, root: str | os.PathLike = "runs"):
        self.root = Path(root)

    def path(self, run_id: str) -> Path:
        path = (self.root / check_run_id(run_id)).resolve()
        if path.parent != self.root.resolve():
            raise StoreError(f"run id {run_id!r} points outside the run store")
        return path

    def exists(self, run_id: str) -> bool:
        return (self.path(run_id) / "config.json").is_file()

    def _require(self, run_id: str) -> Path:
        path = self.path(run_id)
        if not (path / "config.json").is_file():
            raise RunNotFound(f"no run {run_id!r} in {self.root}: `fedquad list --runs-dir {self.root}` shows the runs")
        return path

    def create(self, config: dict[str, Any], run_id: str | None = None) -> "RunWriter":
        run_id = check_run_id(run_id or new_run_id(config.get("method", "run")))
        path = self.path(run_id)
        path.mkdir(parents=True, exist_ok=False)
        (path / "embeddings").mkdir()
        atomic_write_json(path / "config.json", config)
        writer = RunWriter(path)
        writer.set_status("queued", created=time.time())
        return writer

    def writer(self, run_id: str) -> "RunWriter":
        return RunWriter(self._require(run_id))

    def run_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "config.json").is_file() and _RUN_ID.match(p.name))

    def list_runs(self) -> list[RunInfo]:
        return [self.info(r) for r in self.run_ids()]

    def info(self, run_id: str) -> RunInfo:
        path = self._require(run_id)
        return RunInfo(run_id, path, self.read_status(run_id), _read_json(path / "config.json", {}))

    def read_config(self, run_id: str) -> dict[str, Any]:
        return _read_json(self._require(run_id) / "config.json", {})

    def read_status(self, run_id: str) -> dict[str, Any]:
        """The status, with runs whose process died without saying so reported as failed."""
        status = _read_json(self._require(run_id) / "status.json", {"state": "queued"})
        if status.get("state") in ACTIVE and status.get("pid") and not run_process_alive(status):
            status = {**status, "state": "failed", "error": status.get("error") or "the run's process ended unexpectedly (see log.txt)"}
        return status

    def read_metrics(self, run_id: str) -> list[dict[str, Any]]:
        path = self._require(run_id) / "metrics.jsonl"
        if not path.exists():
            return []
        rows = []
        with open(path) as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # still being written
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return rows

    def read_partition(self, run_id: str) -> dict[str, Any] | None:
        return _read_json(self._require(run_id) / "partition.json", None)

    def snapshot_rounds(self, run_id: str) -> list[int]:
        folder = self._require(run_id) / "embeddings"
        return sorted(int(p.stem.split("_")[1]) for p in folder.glob("round_*.npz")) if folder.is_dir() else []

    def read_snapshot(self, run_id: str, round_: int) -> dict[str, np.ndarray]:
        path = self._require(run_id) / "embeddings" / f"round_{int(round_):04d}.npz"
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}

    def weights_path(self, run_id: str) -> Path:
        return self._require(run_id) / "model.pt"

    def request_cancel(self, run_id: str) -> None:
        """Ask a run to stop after its current round; it ends 'cancelled' with all it wrote kept."""
        path = self._require(run_id)
        (path / "cancel").touch()
        status = _read_json(path / "status.json", {})
        if status.get("state") == "queued" and not run_process_alive(status):
            RunWriter(path).set_status("cancelled", ended=time.time())
        elif status.get("state") in ACTIVE and run_process_alive(status, signal_ok=True):
            try:  # the run also sees the cancel file after its current round
                os.kill(status["pid"], signal.SIGUSR1)
            except OSError:
                pass

    def delete(self, run_id: str) -> None:
        path = self._require(run_id)
        status = self.read_status(run_id)
        if status.get("state") in ACTIVE:
            raise StoreError(f"run {run_id} is {status['state']}: cancel it before deleting it")
        shutil.rmtree(path)


class RunWriter:
    """What a run writes. Used by the engine's store callback."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.run_id = self.path.name

    def set_status(self, state: str, **fields: Any) -> dict[str, Any]:
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        status = _read_json(self.path / "status.json", {})
        status.update(fields, state=state, updated=time.time())
        atomic_write_json(self.path / "status.json", status)
        return status

    def append_metrics(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, sort_keys=True, default=_jsonable, allow_nan=True)
        with open(self.path / "metrics.jsonl", "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def save_partition(self, data: dict[str, Any]) -> None:
        atomic_write_json(self.path / "partition.json", data)

    def save_snapshot(self, round_: int, arrays: dict[str, np.ndarray]) -> None:
        atomic_write(self.path / "embeddings" / f"round_{int(round_):04d}.npz",
                     lambda f: np.savez_compressed(f, **arrays))

    def save_weights(self, state_dict: dict[str, Any]) -> None:
        import torch

        atomic_write(self.path / "model.pt", lambda f: torch.save(state_dict, f))

    def cancel_requested(self) -> bool:
        return (self.path / "cancel").exists()


def _read_json(path: Path, default: Any) -> Any:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default
    except json.JSONDecodeError:
        return default
