"""The projection worker: one long-lived process per run store that keeps UMAP's numba code
compiled and projects each embedding snapshot as it lands, so a run's UMAP pictures are on disk
seconds after it ends (``benchmarks/umap_ready.py``).

The app starts it (``ensure_worker``, from ``app/main.py``); by hand:
``python -m app.projection.worker ROOT [--parent PID] [--idle-exit SECONDS]``.

- **One per store**: it holds an exclusive ``flock`` on ``ROOT/.projection_worker.lock`` for its
  whole life; a second one finds the lock taken and exits before importing anything heavy.
- **What it projects**, one fit at a time, rescanning after each: the snapshots a page asked
  for (``.request`` files) and the rest of their runs; then every snapshot written since
  shortly before it started (``BACKLOG_S``): the runs training now and those that just ended,
  each run's newest snapshot first (so a run's final picture comes before its backlog). Older runs wait until a page asks. A snapshot that fails gets its
  error in its ``.log`` file and is retried only when asked again.
- **Where it writes**: only in the run folders directly under ROOT (symbolic links are not
  followed), the same cache and marker files as the one-shot process (``app.projection.cache``).
- **When it exits**: when its parent (the Streamlit server) is gone, after ``--idle-exit``
  seconds without work, or when ``stop_worker`` writes ``ROOT/.projection_worker.stop`` (it
  signals no process: a pid read from a file in the store could name any process).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

from app.projection import cache as proj
from fedquad_core import api
from fedquad_core.api import ACTIVE

BACKLOG_S = 3600.0  # snapshots this much older than the worker are projected only on request
POLL_S = 0.5
IDLE_S = 1800.0
LOG_NAME = f".{proj.WORKER}.log"
STOP_NAME = f".{proj.WORKER}.stop"  # a stop request, polled by the worker itself (api.Helper)


def worker_pid(root) -> int | None:
    """The pid of the worker serving ``root``, or None when there is none."""
    return proj.worker(root).pid()


def stop_worker(root, timeout: float = 10.0) -> bool:
    """Ask the worker of ``root`` to exit (a stop-request file it polls; no signal is sent) and
    wait for it to go; True if one was stopped."""
    return proj.worker(root).stop(timeout)


def ensure_worker(root, parent: int | None = None, idle_s: float = IDLE_S) -> bool:
    """Start the worker for the store at ``root`` unless one is alive; True if started now.

    Two processes racing both start one; the second exits at once on the lock. A planted link
    or pipe at the worker's lock or log: ``UnsafeFile`` naming it, nothing started."""
    root = Path(root).resolve()
    cmd = [sys.executable, "-m", "app.projection.worker", str(root),
           "--parent", str(parent or os.getpid()), "--idle-exit", str(idle_s)]
    return proj.worker(root).start(cmd, cwd=proj.REPO_ROOT, env={"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})


def _active(run: Path) -> bool:
    status = api.run_view(run.parent).status(run.name)  # safe_io: a regular file only
    # no status yet, or an unreadable one ("damaged"): treat as training
    return not status or status.get("state") in (*ACTIVE, "damaged")


def _snapshot_rounds(run: Path) -> list[int]:
    """The run's snapshot rounds, as the run store reads them (a stray file name is ignored)."""
    return api.run_view(run.parent).snapshot_rounds(run.name)


class Queue:
    """Finds the snapshots still to project under ``root``, in the order to do them."""

    def __init__(self, root: Path, since: float):
        self.root, self.since = root, since
        self.quiet: dict[Path, int] = {}    # embeddings folder -> its mtime when nothing was to do
        self.failed: set[tuple[Path, int]] = set()
        self.wanted: set[Path] = set()      # runs a page asked for: all their snapshots

    def jobs(self) -> list[tuple[Path, int]]:
        """Asked-for snapshots, then each run's newest one not projected yet (ended runs' first:
        their final round is what a page shows), then the rest; newest first within each."""
        asked, latest, auto = [], [], []
        for run in self._runs():
            emb = run / "embeddings"
            try:
                stamp = emb.stat().st_mtime_ns
            except OSError:
                continue
            if self.quiet.get(emb) == stamp:
                continue
            found, todo = False, []
            for r in _snapshot_rounds(run):
                try:
                    mtime = proj.snapshot_files(run, r)[0].stat().st_mtime
                except OSError:
                    continue
                if proj.umap_cached(run, r) is not None:
                    continue
                if proj.request_file(run, r).exists():
                    asked.append((mtime, run, r))
                elif (run, r) not in self.failed and (run in self.wanted or mtime >= self.since):
                    todo.append((mtime, run, r))
                else:
                    continue
                found = True
            if todo:
                todo.sort(key=lambda job: job[2])
                mtime, _, r = todo.pop()
                # a run that has ended keeps its final picture: before a training run's newest
                latest.append((not _active(run), mtime, run, r))
                auto.extend(todo)
            if not found:
                self.quiet[emb] = stamp
        jobs = [job[-2:] for job in sorted(asked, reverse=True) + sorted(latest, reverse=True)]
        return jobs + [(run, r) for _, run, r in sorted(auto, reverse=True)]

    def _runs(self) -> list[Path]:
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return []
        return [p for p in entries if not p.is_symlink() and p.is_dir() and not (p / "embeddings").is_symlink()]

    def project(self, run: Path, r: int) -> bool:
        """Fit and cache one snapshot; False when another process has it."""
        request = proj.request_file(run, r)
        if request.exists():
            self.wanted.add(run)
            self.failed.discard((run, r))
        if not proj.claim(run, r):
            return False
        try:
            proj.compute_and_cache(run, r)
        except Exception:  # noqa: BLE001 - one bad snapshot must not stop the worker
            self.failed.add((run, r))
            try:
                proj.job(run, r).fail(traceback.format_exc())
            except OSError:
                pass
        request.unlink(missing_ok=True)
        return True


def serve(root, parent: int | None = None, idle_s: float = IDLE_S, poll_s: float = POLL_S) -> int:
    """Run the worker until its parent dies, it idles ``idle_s`` seconds, or it is killed."""
    root = Path(root).resolve()
    # the lock (None: another worker has it); from now on this process ends when its parent is
    # gone or stop_worker asks, however long a fit or the warm-up takes
    lock = proj.worker(root).serve(parent, poll_s)
    if lock is None:
        print(f"a projection worker already serves {root}", flush=True)
        return 0
    started = time.time()
    proj.enable_numba_cache()
    print(f"[{time.strftime('%H:%M:%S')}] worker {os.getpid()} for {root}: "
          f"UMAP warm-up {proj.warm():.1f} s", flush=True)
    queue, last_work = Queue(root, started - BACKLOG_S), time.monotonic()
    while True:
        done = next((True for run, r in queue.jobs() if queue.project(run, r)), False)
        if done:
            last_work = time.monotonic()
        elif time.monotonic() - last_work > idle_s:
            print(f"idle for {idle_s:.0f} s: exiting", flush=True)
            os.close(lock)
            return 0
        else:
            time.sleep(poll_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.projection.worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="the run store to serve (the user's runs folder)")
    parser.add_argument("--parent", type=int, help="exit when this process is gone (the app's server)")
    parser.add_argument("--idle-exit", type=float, default=IDLE_S, help="exit after this many seconds without work")
    parser.add_argument("--poll", type=float, default=POLL_S, help="seconds between scans of the store")
    args = parser.parse_args(argv)
    return serve(args.root, args.parent, args.idle_exit, args.poll)


if __name__ == "__main__":
    sys.exit(main())
