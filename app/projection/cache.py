"""UMAP pictures of a snapshot's embeddings, cached on disk next to the run and computed in the
background (PCA and the Procrustes alignment of consecutive rounds: ``app.projection.maths``).

UMAP never runs in the Streamlit process: numba's compile alone takes 15-50 s. The app's
projection worker (``app.projection.worker``) projects every new snapshot as it lands. A page
calls ``umap_cached`` and, when that is None, ``request_umap`` (a request for the worker, or a
one-shot process of this module when no worker is alive), and waits while ``umap_pending``.

    <run_dir>/embeddings/umap_round_NNNN.npy        the cached (n, 2) float32 layout
    <run_dir>/embeddings/.umap_round_NNNN.pending   pid of the process computing it
    <run_dir>/embeddings/.umap_round_NNNN.request   a page asked the worker for it
    <run_dir>/embeddings/.umap_round_NNNN.log       a one-shot process's output, or the worker's
                                                     error (a snapshot that failed)
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from app.projection.umap_fit import NUMBA_CACHE, UMAP_PARAMS, compute_umap, enable_numba_cache, warm  # noqa: F401
from fedquad_core import api
from fedquad_core.api import RunNotFound, RunStore, StoreError

REPO_ROOT = Path(__file__).resolve().parents[2]
CLAIM_GRACE_S = 30.0  # a marker without a pid yet is "being started" for this long


WORKER = "projection_worker"  # the store's helper (api.Helper): .projection_worker.lock, .log, .stop in the store root
WORKER_LOCK = f".{WORKER}.lock"  # the worker holds an flock on it for its whole life


def worker(root) -> api.Helper:
    """The store's projection worker, as the engine's helper processes are asked."""
    return api.Helper(root, WORKER)


def job(run_dir, round_: int) -> api.Job:
    """The one-shot job computing that snapshot's layout: its marker, log and request files."""
    _, _, marker, log = snapshot_files(run_dir, round_)
    return api.Job(marker, log, request_file(run_dir, round_), grace_s=CLAIM_GRACE_S)


def snapshot_files(run_dir, round_: int) -> tuple[Path, Path, Path, Path]:
    folder = Path(run_dir) / "embeddings"
    stem = f"umap_round_{int(round_):04d}"
    return (folder / f"round_{int(round_):04d}.npz", folder / f"{stem}.npy",
            folder / f".{stem}.pending", folder / f".{stem}.log")


def request_file(run_dir, round_: int) -> Path:
    return Path(run_dir) / "embeddings" / f".umap_round_{int(round_):04d}.request"


def worker_alive(root) -> bool:
    """True while a projection worker serves the store at ``root`` (it holds the lock file)."""
    return worker(root).alive()


def umap_cached(run_dir, round_: int, n: int | None = None) -> np.ndarray | None:
    """The cached UMAP layout of that snapshot (``(n, 2)`` floats, never unpickled), or None: none
    cached, or a damaged file (the page's notice names it, ``service.snapshot_notices``)."""
    run = Path(run_dir)
    return api.run_view(run.parent).layout(run.name, round_, n)[0]


def umap_ready(run_dir, round_: int) -> bool:
    """True when that snapshot's layout is cached and reads (checked once per file version)."""
    run = Path(run_dir)
    return api.run_view(run.parent).layout_ready(run.name, round_)


def umap_pending(run_dir, round_: int) -> bool:
    """True while a live process computes that layout, or the worker has it in its queue."""
    the_job = job(run_dir, round_)
    if the_job.asked() and worker_alive(Path(run_dir).parent):
        return True
    return the_job.running()  # a pipe planted at the marker is not waited on: no live process


def request_umap(run_dir, round_: int) -> bool:
    """Ask for that snapshot's layout; True if a request was made now.

    With a projection worker serving the run's store this leaves it a request file (it does the
    rest of the run after it); without one it starts a one-shot background process. Nothing is
    asked when the layout is cached, the snapshot is missing, a job is pending, or the run's
    folder is read-only (a recorded run ships its layouts).
    """
    npz, cache, _, _ = snapshot_files(run_dir, round_)
    if cache.exists() or not npz.exists() or umap_pending(run_dir, round_):
        return False
    if not os.access(npz.parent, os.W_OK):
        return False
    if worker_alive(Path(run_dir).parent):
        return job(run_dir, round_).ask()  # never through a planted link, never into a pipe
    env = {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
           "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(NUMBA_CACHE))}
    # of two sessions asking at once, one starts the job; a planted link or pipe at the log: no job
    return job(run_dir, round_).start([sys.executable, "-m", "app.projection", str(Path(run_dir).resolve()),
                                       str(int(round_))], name=f"umap-{int(round_)}", cwd=REPO_ROOT, env=env)


def compute_and_cache(run_dir, round_: int) -> Path:
    """Fit that snapshot's layout and write the cache (atomic); drops this process's marker."""
    cache = snapshot_files(run_dir, round_)[1]
    try:
        store, run_id = _store(run_dir)
        # through the store's reader (safe_io: a regular file, bounded, never unpickled); DamagedRun names a damaged file
        z = store.read_snapshot(run_id, round_)["embeddings"]
        store.write_layout(run_id, round_, compute_umap(z))
        return cache
    finally:
        job(run_dir, round_).release()


def _store(run_dir) -> tuple[RunStore, str]:
    """The run store holding ``run_dir`` and the run's id in it: a run's snapshots are read through
    the store (the one reader: shapes checked, a damaged file named)."""
    run = Path(run_dir).resolve()
    return api.run_view(run.parent).store, run.name


def claim(run_dir, round_: int) -> bool:
    """Mark a snapshot as being computed by this process; False if cached or taken."""
    if snapshot_files(run_dir, round_)[1].exists():
        return False
    return job(run_dir, round_).claim()


def compute_remaining(run_dir: str, near: int) -> list[int]:
    """Cache the UMAP of every other snapshot of the run, nearest rounds first (the one-shot
    process: numba compiles or loads once per process, so it does the whole run)."""
    done: list[int] = []
    while True:
        store, run_id = _store(run_dir)
        rounds = sorted(store.snapshot_rounds(run_id), key=lambda r: abs(r - near))
        todo = [r for r in rounds if r not in done and claim(run_dir, r)]
        if not todo:
            return done
        for r in todo:
            try:
                compute_and_cache(run_dir, r)
            except StoreError as e:  # a damaged snapshot (DamagedRun) named on the log's one line; the other rounds go on
                print(f"skipped round {r}: {e}", flush=True)
            done.append(r)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.projection", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", nargs="?")
    parser.add_argument("round", nargs="?", type=int)
    parser.add_argument("--warm", action="store_true", help="compile UMAP's numba code once on tiny data")
    args = parser.parse_args(argv)
    enable_numba_cache()
    if args.warm:
        print(f"UMAP warm-up took {warm():.1f} s", flush=True)
        return 0
    if args.run_dir is None or args.round is None:
        parser.error("give RUN_DIR and ROUND, or --warm")
    t0 = time.perf_counter()
    try:
        path = compute_and_cache(args.run_dir, args.round)
    except (StoreError, RunNotFound) as e:  # a damaged snapshot (DamagedRun), or no run there
        print(f"python -m app.projection: error: {e}", file=sys.stderr, flush=True)
        return 2
    print(f"wrote {path} in {time.perf_counter() - t0:.1f} s", flush=True)
    more = compute_remaining(args.run_dir, args.round)
    print(f"also cached rounds {more} in {time.perf_counter() - t0:.1f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
