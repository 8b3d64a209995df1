"""``fedquad sweep --ray ADDRESS``: each run of a sweep as one Ray task on an existing cluster.

Choice: no shared filesystem is assumed. A task runs ``runner.execute`` into a private run store
in the node's temp folder and returns the run folder's files; the driver writes them into the
sweep's store, so ``fedquad list/show/compare`` and the dashboard see them as local runs.
Each task asks for one CPU (and the run gets ``threads`` torch threads, default 1) and, when the
cluster has GPUs, one GPU (the run's ``device: auto`` then picks CUDA). The nodes need this
package importable (``pip install -e .`` or the same image); Ray is an optional extra
(``pip install ray``). Without ``--ray`` the sweep runs locally.
"""
from __future__ import annotations

import os

import socket
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from ..config import RunConfig
from ..errors import UserError
from ..runs.store import RunStore, StoreError, atomic_write
from ..train.runner import execute


def _run_task(cfg_dict: dict[str, Any], threads: int | None) -> tuple[str, dict[str, bytes], str | None]:
    with tempfile.TemporaryDirectory(prefix="fedquad-ray-") as tmp:
        store = RunStore(tmp)
        error = None
        try:
            run_id = execute(RunConfig.from_dict(cfg_dict), store, progress=False, threads=threads)
        except BaseException as exc:  # the run folder records the failure; the driver reports it
            error = f"{type(exc).__name__}: {exc}"
            ids = store.run_ids()
            if not ids:
                raise
            run_id = ids[0]
        folder = store.path(run_id)
        files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        return run_id, files, error


def _checked_files(folder: Path, files: Any) -> list[tuple[Path, bytes]]:
    """Each (path, bytes) a task sent back, refused (StoreError) unless it is a plain relative
    path inside the run folder: no absolute path, no '..', no empty or '.' parts."""
    if not isinstance(files, dict):
        raise StoreError(f"a Ray task returned {type(files).__name__} instead of a dict of run files")
    out = []
    for rel, blob in files.items():
        parts = PurePosixPath(rel).parts if isinstance(rel, str) else ()
        if (not parts or rel.startswith("/") or "\\" in rel or "\0" in rel
                or any(p in ("", ".", "..") for p in parts) or not isinstance(blob, bytes)):
            raise StoreError(f"a Ray task returned the file path {rel!r}: only plain paths inside the run folder are written")
        out.append((folder.joinpath(*parts), blob))
    return out


def _no_links(folder: Path, path: Path) -> None:
    """Refuse to write through a symlink anywhere from the run folder down to ``path``."""
    p = path
    while True:
        if p.is_symlink():
            raise StoreError(f"refusing to write {path}: {p} is a symbolic link")
        if p == folder:
            return
        p = p.parent


def _write_run(store: RunStore, run_id: str, files: dict[str, bytes]) -> None:
    """Write a run a Ray task sent back into ``store``, under the store's run-id rules; the run
    folder must be new (a task cannot overwrite a run already in the store)."""
    folder = store.path(run_id)  # check_run_id + stays inside the store
    if folder.exists() or folder.is_symlink():
        raise StoreError(f"a Ray task returned run id {run_id!r}, which is already in {store.root}")
    checked = _checked_files(folder, files)
    folder.mkdir(parents=True)
    for path, blob in checked:
        _no_links(folder, path.parent)
        path.parent.mkdir(parents=True, exist_ok=True)
        _no_links(folder, path)
        atomic_write(path, lambda f, blob=blob: f.write(blob))


def check_reachable(address: str) -> None:
    """Fail in seconds, not minutes (ray.init retries a dead address for a long time)."""
    host, sep, port = address.rpartition(":")
    if address == "auto" or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.removeprefix("ray://") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise UserError(f"cannot reach a Ray cluster at {address!r} ({exc.strerror or exc}): start one with "
                        "`ray start --head` and pass its address, or drop --ray to sweep here") from None


def run_on_ray(configs: list[RunConfig], store: RunStore, address: str, threads: int | None = None,
               on_done: Callable[[int, str, str | None], None] | None = None) -> list[str]:
    """Run every config as a Ray task; return the stored run ids in the order of ``configs``.
    ``on_done(i, run_id, error)`` is called as the i-th run's folder lands in ``store``."""
    try:
        import ray  # lazy: an optional extra (pip install ray), absent by default
    except ImportError:

        raise UserError("--ray needs Ray: pip install ray (or pip install -e '.[ray]')") from None
    # Ray's usage statistics look up cloud metadata hosts (169.254.169.254, metadata.google.internal):
    # off, so nothing leaves the machine but what the user's --ray address asks for (docs/reliability.md)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if not ray.is_initialized():
        check_reachable(address)
        try:
            ray.init(address=address, log_to_driver=False)
        except Exception as exc:  # ConnectionError, ValueError, RuntimeError, depending on how it fails

            raise UserError(f"cannot reach a Ray cluster at {address!r} ({type(exc).__name__}): start one with "
                            "`ray start --head` and pass its address, or drop --ray to sweep here") from None
    gpus = 1 if ray.cluster_resources().get("GPU", 0) > 0 else 0
    task = ray.remote(num_cpus=max(1, threads or 1), num_gpus=gpus, max_retries=0)(_run_task)
    refs = [task.remote(cfg.to_dict(), threads) for cfg in configs]
    print(f"ray: {len(refs)} tasks sent to {address} ({'1 GPU' if gpus else 'CPU only'} each)", file=sys.stderr)
    run_ids = []
    for i, (cfg, ref) in enumerate(zip(configs, refs)):
        run_id, files, error = ray.get(ref)
        try:
            _write_run(store, run_id, files)
        except StoreError as exc:  # a task's answer is not trusted: skip it, keep the others
            print(f"ray: {cfg.name or 'a run'} not stored: {exc}", file=sys.stderr)
            continue
        if error:
            print(f"ray: {cfg.name or run_id} failed: {error}", file=sys.stderr)
        if on_done:
            on_done(i, run_id, error)
        run_ids.append(run_id)
    return run_ids
