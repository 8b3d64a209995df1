"""A study's points trained in a pool of spawned processes (one torch thread each): handed out a
few at a time, each trained under the claim of its run key (a finished run with the same key is
reused), each reported as it ends; Ctrl-C, SIGTERM or the study's cancel file stop it after the
running points' current round (``StudyStopped``). ``StudyPool`` keeps the processes for several
studies."""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import Any, Callable

from tqdm import tqdm

from .. import safe_io
from ..config import RunConfig
from ..config.checked import Checked
from ..runs.claims import claim, finished_run, release
from ..runs.store import ACTIVE, RunStore, new_run_id
from ..train.checked import checked_prep
from ..train.runner import execute
from .stopping import StudyStopped

Done = Callable[[str, str, "str | None"], None]  # (key, run_id, error or None)


def _init_worker(driver: int) -> None:
    """Pool processes ignore Ctrl-C and SIGTERM between runs (the driver decides; a run in progress
    has its own handlers, which stop it after its round) and die with the driver: the kernel sends
    them SIGKILL when it ends, however it ends (Linux, ``PR_SET_PDEATHSIG``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _die_with_parent(driver)


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the driver died before the line above
        os._exit(1)


def _stopped(stop: str) -> bool:
    return os.path.exists(stop)


def _run_one(payload: tuple) -> str | None:
    """Train one point under the claim of its key, on the partition the driver's preflight checked
    (``train.checked``; when it cannot be used, the run checks and draws itself); the id of the run
    that holds the key (a finished run another process trained while this one waited is reused), or
    None when the study was stopped first."""
    config, root, run_id, threads, stop, key, parts, labels = payload
    if _stopped(stop):  # the study was interrupted before this point started
        return None
    held = claim(root, key, should_stop=lambda: _stopped(stop))
    if held is None:
        return None
    try:
        reused = finished_run(RunStore(root), key)
        if reused or _stopped(stop):
            return reused
        cfg = RunConfig.from_dict(config)
        run_id = execute(cfg, RunStore(root), run_id=run_id, progress=False, threads=threads,
                         prep=checked_prep(cfg, parts=parts, labels_digest=labels))
        if RunStore(root).read_status(run_id).get("stopped_by") in ("SIGINT", "SIGTERM"):
            safe_io.touch(stop)  # the signal reached the group: no next point, before the driver looks
        return run_id
    finally:
        release(held)


class StudyPool:
    """Spawned training processes kept across several studies (``run_study(..., pool=)``): each
    imports torch and the engine once, not once a study (scripts/record_studies.py records nine
    studies in one). A context manager: the processes end with it."""

    def __init__(self, jobs: int):
        self.jobs = max(1, int(jobs))
        self.executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=get_context("spawn"),
                                            initializer=_init_worker, initargs=(os.getpid(),))

    def __enter__(self) -> "StudyPool":
        return self

    def __exit__(self, *exc) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


def run_in_pool(todo: dict[str, Checked | RunConfig], runs: RunStore, *, jobs: int, threads: int | None,
                on_done: Done, progress: bool = True, cancel_file=None, pool: StudyPool | None = None) -> None:
    """Train each config (keyed by run key; a ``Checked`` one on its checked partition) in a pool of
    ``jobs`` spawned processes (or in ``pool``'s, kept for the next study); ``on_done`` as each
    ends. On Ctrl-C, SIGTERM or ``cancel_file`` appearing: points not started are dropped, running
    ones cancelled after their current round (state 'cancelled'), and ``StudyStopped`` is raised
    (with the signal's name) once they have stopped."""
    todo = {key: c if isinstance(c, Checked) else Checked(c) for key, c in todo.items()}
    if pool is not None:
        workers, executor = pool.jobs, pool.executor
    else:
        workers = max(1, min(jobs, len(todo)))
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                       initializer=_init_worker, initargs=(os.getpid(),))
    scheduler = _PoolScheduler(todo, runs, executor, workers, threads, on_done, cancel_file, progress)
    old = {}
    if threading.current_thread() is threading.main_thread():
        old = {sig: signal.signal(sig, scheduler.on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        scheduler.run()
    finally:
        scheduler.close(shutdown=pool is None)
        for sig, previous in old.items():
            signal.signal(sig, previous)


class _PoolScheduler:
    """One study's points through a process pool. Points are handed out a few at a time (never a
    million futures at once: a stop then only has the few in flight to cancel, and memory stays
    bounded at any grid size), each reported as it ends; a signal or the cancel file stops it."""

    def __init__(self, todo: dict[str, Checked], runs: RunStore, executor, workers: int, threads: int | None,
                 on_done: Done, cancel_file, progress: bool):
        self.runs, self.executor, self.workers, self.threads = runs, executor, workers, threads
        self.on_done, self.cancel_file = on_done, cancel_file
        self.queue = iter(todo.items())
        self.futures: dict[Any, tuple[str, str]] = {}  # in flight: future -> (key, run id)
        self.asked: set[str] = set()                   # runs asked to cancel
        self.signal: str | None = None                 # what stopped the study
        self.stop = runs.root / f".study-stop-{os.urandom(4).hex()}"  # the pool processes' stop file
        self.bar = tqdm(total=len(todo), desc="study", unit="run", disable=not progress)

    def on_signal(self, signum, frame) -> None:
        self.signal = self.signal or signal.Signals(signum).name

    def run(self) -> None:
        """Until every point has ended (or, after a stop, every running one has stopped)."""
        self.submit_more()
        while self.futures:
            finished, _ = wait(list(self.futures), timeout=0.3, return_when=FIRST_COMPLETED)
            for fut in finished:
                self.report(fut)
            if not self.signal and self.cancel_file is not None and os.path.exists(self.cancel_file):
                self.signal = "fedquad study cancel"
            if self.signal:
                self.stop_running()
            else:
                self.submit_more()
        if self.signal:
            raise StudyStopped("", self.signal)

    def submit_more(self) -> None:
        while len(self.futures) < 2 * self.workers and not self.signal:
            item = next(self.queue, None)
            if item is None:
                return
            key, c = item
            run_id = new_run_id(c.config.method)
            payload = (c.config.to_dict(), str(self.runs.root), run_id, self.threads, str(self.stop), key,
                       c.parts, c.labels_digest)
            self.futures[self.executor.submit(_run_one, payload)] = (key, run_id)

    def report(self, fut) -> None:
        key, planned = self.futures.pop(fut)
        if fut.cancelled():
            return
        exc = fut.exception()
        run_id = planned if exc else fut.result()
        if run_id is None or not self.runs.exists(run_id):
            return  # stopped before it started (or failed before its folder existed: nothing to record)
        self.bar.update(1)
        self.on_done(key, run_id, f"{type(exc).__name__}: {exc}" if exc else None)  # the folder holds the error

    def stop_running(self) -> None:
        """No new point starts (the stop file; the futures not started cancelled); each running
        one is asked, once, to stop after its current round (state 'cancelled')."""
        if not self.stop.exists():
            safe_io.touch(self.stop, within=self.runs.root)
            for fut in list(self.futures):
                fut.cancel()
        for _, run_id in list(self.futures.values()):
            if run_id in self.asked:
                continue
            try:
                if self.runs.exists(run_id) and self.runs.read_status(run_id).get("state") in ACTIVE:
                    self.runs.request_cancel(run_id)
                    self.asked.add(run_id)
            except (OSError, ValueError):
                pass  # it ended meanwhile

    def close(self, shutdown: bool) -> None:
        """``shutdown``: the pool was this study's own; else it stays for the next study and only
        this study's points not started are dropped."""
        self.bar.close()
        if shutdown:
            self.executor.shutdown(wait=True, cancel_futures=True)
        else:
            for fut in list(self.futures):
                fut.cancel()
            wait(list(self.futures))
        self.stop.unlink(missing_ok=True)
