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

import sys
from typing import Any, Callable

from .config import RunConfig
from .errors import UserError
from .store import RunStore, atomic_write


def _run_task(cfg_dict: dict[str, Any], threads: int | None) -> tuple[str, dict[str, bytes], str | None]:
    import tempfile

    from .runner import execute

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


def _write_run(store: RunStore, run_id: str, files: dict[str, bytes]) -> None:
    folder = store.root / run_id
    for rel, blob in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda f, blob=blob: f.write(blob))


def check_reachable(address: str) -> None:
    """Fail in seconds, not minutes (ray.init retries a dead address for a long time)."""
    import socket


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
    """Run every config as a Ray task; return the run ids in the order of ``configs``.
    ``on_done(i, run_id, error)`` is called as the i-th run's folder lands in ``store``."""
    try:
        import ray
    except ImportError:

        raise UserError("--ray needs Ray: pip install ray (or pip install -e '.[ray]')") from None
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
    for cfg, ref in zip(configs, refs):
        run_id, files, error = ray.get(ref)
        _write_run(store, run_id, files)
        if error:
            print(f"ray: {cfg.name or run_id} failed: {error}", file=sys.stderr)
        if on_done:
            on_done(len(run_ids), run_id, error)
        run_ids.append(run_id)
    return run_ids
