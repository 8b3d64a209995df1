"""The run store: one folder per run under a root; the only channel between the engine and
the dashboard.

    <root>/<run_id>/config.json        the resolved RunConfig (atomic write)
                    status.json        state, error, times, pid, round (atomic write)
                    metrics.jsonl      one JSON object per round, appended and flushed
                    partition.json     clients x classes counts
                    embeddings/round_NNNN.npz   embeddings, labels and the geometry arrays
                    embeddings/local_round_NNNN.npz   the measured clients' local embeddings
                                                      and update cosines (``local_metrics``)
                    model.pt           final global weights (load with weights_only=True)
                    cancel             present when a cancel was requested
                    log.txt            stdout/stderr of a background run

Readers never see a half-written JSON file (temp file + os.replace) and skip a metrics line
that is still being written. A folder that is a symbolic link, or whose files are unreadable or
of the wrong shape (checked in ``run_files``), is *damaged*: ``info``/``list_runs`` report it with
its reason and the readers raise ``DamagedRun`` (one line), so the other runs stay usable.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

import numpy as np

from .. import safe_io
from . import files as run_files

STATES = ("queued", "running", "finished", "failed", "cancelled", "diverged")
ACTIVE = ("queued", "running")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# Folders the store keeps for itself beside the runs (studies, the follow positions). A run id
# may never name one: a run called "studies" would hold every study, and deleting it would
# delete them all. Dot-folders (.slots, .claims, .studies) are already outside the run-id pattern.
STUDIES_FOLDER, FOLLOW_FOLDER = "studies", "follow"
RESERVED = frozenset({STUDIES_FOLDER, FOLLOW_FOLDER})


class RunNotFound(LookupError):
    """No run of that id in the store."""


class StoreError(ValueError):
    """An invalid run id, or an operation the run's state does not allow."""


class DamagedRun(StoreError):
    """A run folder that cannot be read as a run; ``reason`` says why in one line."""

    def __init__(self, run_id: str, reason: str):
        super().__init__(f"run {run_id} is damaged: {reason}")
        self.run_id, self.reason = run_id, reason


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any], *, within: Path | None = None) -> None:
    """Write a file so that readers see the old one or the whole new one, never half of it
    (``safe_io.atomic_write``: a temp file created with ``O_EXCL`` beside it, then renamed; a
    link planted at either name is never written through)."""
    safe_io.atomic_write(path, write, within=within)


def atomic_write_text(path: Path, text: str, *, within: Path | None = None) -> None:
    atomic_write(path, lambda f: f.write(text.encode()), within=within)


def atomic_write_json(path: Path, data: Any, *, within: Path | None = None) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, default=_jsonable), within=within)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} as JSON")


def check_run_id(run_id: str) -> str:
    if not isinstance(run_id, str) or not _RUN_ID.match(run_id) or ".." in run_id:
        raise StoreError(f"invalid run id {run_id!r}: use letters, digits, '.', '_' and '-' (no path separators)")
    if run_id.lower() in RESERVED:
        raise StoreError(f"run id {run_id!r} is reserved: the run store keeps its own "
                         f"{', '.join(sorted(RESERVED))} folders under these names; choose another id")
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
    damaged: str | None = None  # why the folder cannot be read as a run, if it cannot

    @property
    def state(self) -> str:
        return "damaged" if self.damaged else self.status.get("state", "unknown")


class RunStore:
    """Reads and manages the runs under ``root``. Safe to use while runs are writing."""

    def __init__(self, root: str | os.PathLike = "runs"):
        self.root = Path(root)

    def path(self, run_id: str) -> Path:
        if (self.root / check_run_id(run_id)).is_symlink():
            raise DamagedRun(run_id, "its folder is a symbolic link (not followed)")
        path = (self.root / run_id).resolve()
        if path.parent != self.root.resolve():
            raise StoreError(f"run id {run_id!r} points outside the run store")
        return path

    def exists(self, run_id: str) -> bool:
        return _is_run_folder(self.path(run_id))

    def _require(self, run_id: str) -> Path:
        path = self.path(run_id)
        if not _is_run_folder(path):
            raise RunNotFound(f"no run {run_id!r} in {self.root}: `fedquad list --runs-dir {self.root}` shows the runs")
        return path

    def create(self, config: dict[str, Any], run_id: str | None = None) -> "RunWriter":
        run_id = check_run_id(run_id or new_run_id(config.get("method", "run")))
        path = self.path(run_id)
        path.mkdir(parents=True, exist_ok=False)  # reserves the id; empty, so not listed yet
        tmp = Path(tempfile.mkdtemp(prefix=f".{run_id}.", suffix=".new", dir=self.root))
        try:  # filled aside, then renamed over the empty folder: readers never see half a run
            (tmp / "embeddings").mkdir()
            atomic_write_json(tmp / "config.json", config, within=self.root)
            RunWriter(tmp).set_status("queued", created=time.time())
            os.replace(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            path.rmdir()
            raise
        return RunWriter(path)

    def writer(self, run_id: str) -> "RunWriter":
        return RunWriter(self._require(run_id))

    def run_ids(self) -> list[str]:
        """Every entry of the store that is (or claims to be) a run, damaged ones included."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir()
                      if _RUN_ID.match(p.name) and ".." not in p.name and p.name.lower() not in RESERVED and (p.is_symlink() or _is_run_folder(p)))

    def list_runs(self) -> list[RunInfo]:
        return [self.info(r) for r in self.run_ids()]

    def info(self, run_id: str) -> RunInfo:
        """Status and config of a run, every file's shape checked; a damaged run comes back with
        ``damaged`` set (never an exception), so a listing goes on with the other runs."""
        config: dict[str, Any] = {}
        try:
            path = self._require(run_id)
            config = self.read_config(run_id)
            status = self.read_status(run_id)
            self.read_partition(run_id)
            reason = run_files.metrics_damage(path)
            if reason:
                raise DamagedRun(run_id, reason)
        except DamagedRun as e:
            return RunInfo(run_id, self.root / run_id, {"state": "damaged", "error": e.reason}, config, e.reason)
        return RunInfo(run_id, path, status, config)

    def _checked(self, run_id: str, read: Callable[[Path], Any]) -> Any:
        path = self._require(run_id)
        try:
            return read(path)
        except run_files.Damaged as e:
            raise DamagedRun(run_id, str(e)) from None

    def read_config(self, run_id: str) -> dict[str, Any]:
        return self._checked(run_id, run_files.read_config)

    def read_status(self, run_id: str) -> dict[str, Any]:
        """The status, with runs whose process died without saying so reported as failed."""
        status = self._checked(run_id, lambda p: run_files.read_status(p, STATES))
        if status.get("state") in ACTIVE and status.get("pid") and not run_process_alive(status):
            status = {**status, "state": "failed", "error": status.get("error") or "the run's process ended unexpectedly (see log.txt)"}
        return status

    def read_metrics(self, run_id: str) -> list[dict[str, Any]]:
        """One dict per completed round; a line still being written is skipped."""
        return self._checked(run_id, run_files.read_metrics)

    def read_partition(self, run_id: str) -> dict[str, Any] | None:
        return self._checked(run_id, run_files.read_partition)

    def snapshot_rounds(self, run_id: str, *, readable: bool = False) -> list[int]:
        """The snapshot rounds of a run (a stray file name is ignored); ``readable=True`` leaves out
        the damaged snapshot files (``snapshot_damage`` says which and why)."""
        folder = self._require(run_id) / "embeddings"
        rounds = run_files.snapshot_rounds(folder)
        if readable:
            rounds = [r for r in rounds if run_files.snapshot_damage(self._snapshot_path(folder, r)) is None]
        return rounds

    def snapshot_damage(self, run_id: str) -> list[str]:
        """One line per damaged snapshot file of the run (empty when every one reads)."""
        folder = self._require(run_id) / "embeddings"
        reasons = [run_files.snapshot_damage(self._snapshot_path(folder, r)) for r in run_files.snapshot_rounds(folder)]
        try:
            layouts = sorted(p for p in folder.iterdir() if run_files.UMAP_FILE.match(p.name))
        except OSError:
            layouts = []
        reasons += [run_files.layout_damage(p) for p in layouts]
        return [f"run {run_id}: {reason}, left out" for reason in reasons if reason]

    @staticmethod
    def _snapshot_path(folder: Path, round_: int) -> Path:
        return folder / f"round_{int(round_):04d}.npz"

    def read_snapshot(self, run_id: str, round_: int) -> dict[str, np.ndarray]:
        """The snapshot's arrays (never unpickled); ``DamagedRun`` naming the file when it cannot be read."""
        path = self._snapshot_path(self._require(run_id) / "embeddings", round_)
        return self._checked(run_id, lambda _: run_files.read_snapshot(path))

    def _layout_path(self, run_id: str, round_: int) -> Path:
        return self._require(run_id) / "embeddings" / f"umap_round_{int(round_):04d}.npy"

    def read_layout(self, run_id: str, round_: int, n: int | None = None) -> np.ndarray | None:
        """The stored UMAP layout of a snapshot, None when there is none; ``DamagedRun`` when it cannot be read."""
        path = self._layout_path(run_id, round_)
        if not os.path.lexists(path):
            return None
        return self._checked(run_id, lambda _: run_files.read_layout(path, n))

    def layout_ready(self, run_id: str, round_: int) -> bool:
        """True when the snapshot's UMAP layout is stored and reads (checked once per file version)."""
        path = self._layout_path(run_id, round_)
        return path.is_file() and run_files.layout_damage(path) is None

    def write_layout(self, run_id: str, round_: int, xy: np.ndarray) -> Path:
        """Store a snapshot's 2-D layout (the dashboard's UMAP of it) beside it, atomically; its path."""
        path = self._layout_path(run_id, round_)
        atomic_write(path, lambda f: np.save(f, xy))
        return path

    def local_snapshot_rounds(self, run_id: str) -> list[int]:
        folder = self._require(run_id) / "embeddings"
        return sorted(int(p.stem.split("_")[2]) for p in folder.glob("local_round_*.npz")) if folder.is_dir() else []

    def read_local_snapshot(self, run_id: str, round_: int) -> dict[str, np.ndarray]:
        """The measured clients' arrays of one snapshot round, shapes checked (``DamagedRun``
        names the file when they are wrong)."""
        return self._checked(run_id, lambda p: run_files.read_local_snapshot(p, round_))

    def weights_path(self, run_id: str) -> Path:
        return self._require(run_id) / "model.pt"

    def request_cancel(self, run_id: str) -> str:
        """Ask a run to stop after its current round; it ends 'cancelled' with all it wrote kept.
        The request is the run's ``cancel`` file, which the run's own process polls (each round,
        and while it waits for a slot or for its key's claim): no process is ever signalled
        because of what status.json says, so a forged status cannot aim this at another process.
        A queued run whose process is gone is marked cancelled here. Returns what was done, in
        words. Raises ``StoreError`` when the run has already ended."""
        path = self._require(run_id)
        state = self.read_status(run_id)["state"]
        if state not in ACTIVE:
            raise StoreError(f"run {run_id} has already ended ({state})")
        safe_io.touch(path / "cancel", within=self.root)  # never through a planted link or into a pipe
        status = _read_json(path / "status.json", {})
        if status.get("state") == "queued" and not run_process_alive(status):
            RunWriter(path).set_status("cancelled", ended=time.time())
            return "it had not started: marked cancelled"
        return "cancel file written; the run's process stops after its current round (no process was signalled)"

    def delete(self, run_id: str) -> None:
        """Remove a run that is not active; a damaged entry can always be removed (a symbolic
        link is removed itself, never what it points to)."""
        link = self.root / check_run_id(run_id)
        if link.is_symlink():
            link.unlink()
            return
        info = self.info(run_id)
        if info.state in ACTIVE:
            raise StoreError(f"run {run_id} is {info.state}: cancel it before deleting it")
        shutil.rmtree(info.path)


class RunWriter:
    """What a run writes. Used by the engine's store callback."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.run_id = self.path.name
        self.root = self.path.parent  # no link between it and a file written here (safe_io)

    def set_status(self, state: str, **fields: Any) -> dict[str, Any]:
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        status = _read_json(self.path / "status.json", {})
        status.update(fields, state=state, updated=time.time())
        atomic_write_json(self.path / "status.json", status, within=self.root)
        return status

    def append_metrics(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, sort_keys=True, default=_jsonable, allow_nan=True)
        with safe_io.open_file(self.path / "metrics.jsonl", "append", within=self.root) as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def save_partition(self, data: dict[str, Any]) -> None:
        atomic_write_json(self.path / "partition.json", data, within=self.root)

    def save_snapshot(self, round_: int, arrays: dict[str, np.ndarray]) -> None:
        atomic_write(self.path / "embeddings" / f"round_{int(round_):04d}.npz",
                     lambda f: np.savez_compressed(f, **arrays), within=self.root)

    def save_local_snapshot(self, round_: int, arrays: dict[str, np.ndarray]) -> None:
        """An uncompressed ``.npz``: float16 embeddings shrink by only a quarter under zlib, which
        cost a snapshot round more than the whole measurement (benchmarks/local_metrics_cost.py)."""
        atomic_write(self.path / "embeddings" / f"local_round_{int(round_):04d}.npz",
                     lambda f: np.savez(f, **arrays), within=self.root)

    def status(self) -> dict[str, Any]:
        """The status as written so far ({} when missing or damaged)."""
        return _read_json(self.path / "status.json", {})

    def drop_snapshots_after(self, round_: int) -> None:
        """Remove the snapshots (global and local) of rounds after ``round_``: a run that failed
        between writing a round's snapshot and its metrics row keeps the rounds both hold."""
        for path in (self.path / "embeddings").glob("*round_*.np[yz]"):
            match = re.search(r"round_(\d+)\.np[yz]$", path.name)
            if match and int(match.group(1)) > round_:
                path.unlink(missing_ok=True)

    def save_weights(self, state_dict: dict[str, Any]) -> None:
        import torch  # lazy: about 1.5 s of torch (benchmarks/lazy_imports.py); the store is read by torch-free processes

        atomic_write(self.path / "model.pt", lambda f: torch.save(state_dict, f), within=self.root)

    def cancel_requested(self) -> bool:
        return (self.path / "cancel").exists()


def _is_run_folder(path: Path) -> bool:
    """A folder holding a config.json or status.json, or one this user cannot look into (it is
    listed and named as damaged, never silently left out)."""
    if not path.is_dir():
        return False
    for name in ("config.json", "status.json"):
        try:
            os.lstat(path / name)
            return True
        except FileNotFoundError:
            continue
        except OSError:  # no permission to look inside: named, not left out
            return True
    return False


def _read_json(path: Path, default: Any) -> Any:
    """The JSON in ``path`` (through ``safe_io``: a regular file of at most 4 MiB), or ``default``
    when it is missing or damaged."""
    try:
        return safe_io.read_json(path, 4 << 20)
    except (FileNotFoundError, safe_io.DamagedFile):
        return default
