"""``run_study``: check the whole grid, reuse every finished run with the same key (from any
study or a plain ``fedquad run``), train the rest ``jobs`` at a time in a pool of background
processes (one torch thread each) or as Ray tasks, and record each point's run id in the study
file as it finishes. A failed point is reported and the study goes on; Ctrl-C cancels the
running points after their current round, and running the study again resumes it."""
from __future__ import annotations

import ctypes
import dataclasses
import fcntl
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from .. import safe_io
from ..config import ConfigError, RunConfig
from ..config.checked import Checked
from ..config.devices import usable_cores
from ..config.limits import check_grid_size, check_text
from ..config.preflight import Draw, Labels, check_runs
from ..errors import UserError
from ..methods import METHODS
from ..runs.claims import claim, finished_run, release
from ..runs.preflight_file import Handed
from ..runs.store import ACTIVE, RunStore, atomic_write_text, new_run_id
from ..train.checked import checked_prep
from ..train.runner import execute
from ..version import engine_fingerprint
from .grid import Point, expand, keyed, parse_axes
from .ray import check_reachable, run_on_ray
from .store import StudyStore, finished_runs, grid_difference

SAVE_EVERY = 5.0  # seconds between writes of a large study's file while it trains
SMALL_STUDY = 200  # up to this many runs to train, the file is written after every point

Done = Callable[[str, str, "str | None"], None]  # (key, run_id, error or None)


def _study_dict(spec, points, previous: dict | None, index: dict[str, str]) -> dict[str, Any]:
    old = {p.get("key"): p.get("run_id") for p in (previous or {}).get("points", [])}
    return {
        "name": spec.name, "title": spec.title or (previous or {}).get("title"),
        "description": spec.description or (previous or {}).get("description"),
        "created": (previous or {}).get("created") or time.time(), "base": spec.base.to_dict(),
        "axes": {k: list(v) for k, v in spec.axes.items()}, "engine": engine_fingerprint(),
        **({"registration": spec.registration} if spec.registration else {}),
        "points": [{"coords": p.coords, "key": p.key, "run_id": index.get(p.key) or old.get(p.key)} for p in points],
    }


def study_points(spec, *, large_grid: bool = False) -> tuple[Any, list[Point]]:
    """The study's axes parsed (a spec built in code is checked too), its size, title, description
    and shared method parameters checked, and its points: (the parsed spec, its points). A grid
    above ``limits.GRID_POINTS_MAX`` points is refused before it is expanded, unless ``large_grid``."""
    spec = dataclasses.replace(spec, axes=parse_axes(spec.axes))
    check_grid_size(spec.axes, allow_large=large_grid)  # before a million points are made
    check_text(spec.title, "the title", "--title (or the file's title)", 200)
    check_text(spec.description, "the description", "--description (or the file's description)")
    check_method_params(spec)
    return spec, expand(spec)


def check_points(points: list[Point], *, labels: Labels | None = None, draw: Draw | None = None,
                 handed: Handed | None = None) -> list[Checked]:
    """Each point's config checked once and each distinct partition drawn once (``check_runs``);
    or, when ``handed`` (the preflight file of the dashboard's check of this very grid, under this
    engine) holds every point's config, its checked partitions, without checking again."""
    configs = [p.config for p in points]
    return _handed(configs, handed) or check_runs(configs, labels=labels, draw=draw)


def _handed(configs: list[RunConfig], handed: Handed | None) -> list[Checked] | None:
    if handed is None:
        return None
    out = []
    for cfg in configs:
        try:
            resolved = cfg.resolved()
        except (ValueError, TypeError):  # a config too broken to resolve: check_runs says what is wrong
            return None
        found = handed.get(resolved.to_dict())
        if found is None:
            return None
        out.append(Checked(resolved, *found))
    return out


def check_study(spec, *, large_grid: bool = False, labels: Labels | None = None,
                draw: Draw | None = None) -> tuple[Any, list[Point], list[Checked]]:
    """Every check of a study before any work (the dashboard's, before it starts the driver):
    ``study_points`` then ``check_points``."""
    spec, points = study_points(spec, large_grid=large_grid)
    return spec, points, check_points(points, labels=labels, draw=draw)


def prepare_study(spec, store, *, large_grid: bool = False,
                  handed: Handed | None = None) -> tuple[StudyStore, dict[str, Any], dict[str, Checked]]:
    """Every check, then the study file written: (studies, study dict, key -> checked config to
    train). ``handed``: see ``check_points``."""
    studies = store if isinstance(store, StudyStore) else StudyStore(store.root)
    spec, points = study_points(spec, large_grid=large_grid)
    previous = studies.read(spec.name) if studies.exists(spec.name) else None
    if previous is not None:
        diff = grid_difference(previous, spec.base.to_dict(), spec.axes)
        if diff:
            raise UserError(f"study {spec.name!r} already exists with another grid ({diff}): "
                            "choose a new name, or rerun it with its own grid to resume it")
    checked = check_points(points, handed=handed)
    points = keyed(points)
    index = finished_runs(studies.runs)
    study = _study_dict(spec, points, previous, index)
    todo: dict[str, Checked] = {}
    for p, c in zip(points, checked):
        if p.key not in index:
            todo.setdefault(p.key, c)
    studies.write(study)
    return studies, study, todo


def check_method_params(spec) -> None:
    """The shared method parameters of a study are checked like ``run --config``'s: each must be a
    parameter of a method of the study (one of them, when method is an axis), or it is refused."""
    params = spec.base.method_params
    if not isinstance(params, dict):
        raise ConfigError(f"method_params must be an object of parameter: value (got {params!r})")
    methods = [m for m in spec.axes.get("method", [spec.base.method]) if m in METHODS]
    for key in params:
        owners = [m for m in methods if key in {f.name for f in dataclasses.fields(METHODS[m].Params)}]
        if methods and not owners:
            valid = ", ".join(sorted({f.name for m in methods for f in dataclasses.fields(METHODS[m].Params)})) or "none"
            raise ConfigError(f"method {'/'.join(methods)} has no parameter {key!r}: its parameters are {valid}")


@dataclasses.dataclass(frozen=True)
class StudyOptions:
    """How ``run_study`` trains a study's missing points (every field optional).

    ``jobs``: training processes (default: the usable cores); ``threads``: torch threads per run;
    ``ray``: a Ray cluster's address to train on instead; ``quiet``: no progress lines or bar;
    ``large_grid``: allow a grid above ``limits.GRID_POINTS_MAX`` points; ``handed``: the
    dashboard's preflight of this grid (``check_points``); ``pool``: training processes kept across
    several studies (else the study starts its own, ``jobs`` of them)."""
    jobs: int | None = None
    threads: int | None = None
    ray: str | None = None
    quiet: bool = False
    large_grid: bool = False
    handed: Handed | None = None
    pool: "StudyPool | None" = None


def run_study(spec, store, options: StudyOptions | None = None, **fields) -> dict[str, Any]:
    """Run the study's missing points; return the study dict (also saved in ``<root>/studies``).
    ``options`` (a ``StudyOptions``), or its fields as keywords (``run_study(spec, store, jobs=2)``)."""
    opts = dataclasses.replace(options or StudyOptions(), **fields)
    if opts.ray:
        check_reachable(opts.ray)
    studies, study, todo = prepare_study(spec, store, large_grid=opts.large_grid, handed=opts.handed)
    say = (lambda msg: None) if opts.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    keys = {p["key"] for p in study["points"]}
    say(f"study {spec.name}: {len(study['points'])} points, {len(keys)} distinct runs, {len(keys) - len(todo)} "
        f"done already, {len(todo)} to train into {studies.root}")
    record = _StudyRecord(spec.name, studies, study, todo, say)
    if todo and opts.ray:
        _train_on_ray(todo, studies, opts, record)
    elif todo:
        _train_in_pool(spec.name, todo, studies, opts, record)
    return study


class _StudyRecord:
    """The study file as points finish: each point's run id set as its run ends, the file written at
    most every ``SAVE_EVERY`` seconds (a large grid's file is megabytes; a small study's after every
    point) and once more at the end or on a stop; a failed point said in one line."""

    def __init__(self, name: str, studies: StudyStore, study: dict[str, Any], todo: dict[str, Checked], say):
        self.name, self.studies, self.study, self.todo, self.say = name, studies, study, todo, say
        self.at_key: dict[str, list[dict]] = {}
        for p in study["points"]:
            self.at_key.setdefault(p["key"], []).append(p)
        self.saved_at, self.dirty = time.monotonic(), False

    def save(self, force: bool = False) -> None:
        if self.dirty and (force or time.monotonic() - self.saved_at >= SAVE_EVERY):
            self.studies.write(self.study)
            self.saved_at, self.dirty = time.monotonic(), False

    def done(self, key: str, run_id: str, error: str | None) -> None:
        for p in self.at_key.get(key, ()):
            p["run_id"] = run_id
        self.dirty = True
        self.save(force=len(self.todo) <= SMALL_STUDY)
        if error:
            self.say(f"study {self.name}: run {run_id} ({self.todo[key].config.name}) failed: {error.splitlines()[0]}")


def _train_on_ray(todo: dict[str, Checked], studies: StudyStore, opts: StudyOptions, record: _StudyRecord) -> None:
    keys_in_order = list(todo)
    run_on_ray([c.config for c in todo.values()], studies.runs, opts.ray, threads=opts.threads,
               on_done=lambda i, run_id, error: record.done(keys_in_order[i], run_id, error))


def _train_in_pool(name: str, todo: dict[str, Checked], studies: StudyStore, opts: StudyOptions,
                   record: _StudyRecord) -> None:
    """The points in the pool, under the study's running lock (so ``study cancel`` sees a driver);
    a stop becomes a ``StudyStopped`` that says what finished and how to resume."""
    cancel = cancel_path(studies.root, name)
    running = _hold_running_lock(studies.root, name)
    cancel.unlink(missing_ok=True)  # a request left from before this driver began
    try:
        try:
            run_in_pool(todo, studies.runs, jobs=opts.jobs or usable_cores(), threads=opts.threads, on_done=record.done,
                        progress=not opts.quiet, cancel_file=cancel, pool=opts.pool)
        finally:
            record.save(force=True)
    except StudyStopped as exc:
        raise _stopped_study(name, exc.signal, studies, record.study) from None
    finally:
        cancel.unlink(missing_ok=True)
        running.close()


def _stopped_study(name: str, signal_name: str, studies: StudyStore, study: dict[str, Any]) -> StudyStopped:
    points = study["points"]
    done_n = sum(1 for p in points if p.get("run_id") and _finished(studies.runs, p["run_id"]))
    stopped = StudyStopped(name, signal_name, study)
    stopped.args = (f"study {name} stopped by {signal_name}: no new point started, running points were "
                    f"cancelled after their round; {done_n} of {len(points)} points finished, recorded "
                    f"in {studies.path(name)}. Resume with: fedquad study run {name} "
                    f"--runs-dir {studies.root}",)
    return stopped


def _finished(runs: RunStore, run_id: str) -> bool:
    try:
        return runs.exists(run_id) and runs.read_status(run_id).get("state") == "finished"
    except (OSError, ValueError):
        return False


def _running_lock_path(root, name: str):
    return Path(root) / "studies" / f".{name}.running"


def _hold_running_lock(root, name: str):
    """A shared flock held while a driver trains the study's points (several drivers may); only a
    live driver can hold it, so ``study cancel`` can tell whether anyone would see its request."""
    path = _running_lock_path(root, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    f = safe_io.open_file(path, "lock", within=root)  # a planted link or pipe: UnsafeFile, one line
    fcntl.flock(f, fcntl.LOCK_SH)
    return f


def study_running(root, name: str) -> bool:
    """Whether a live driver holds the study's running lock (the kernel decides, not a file's content)."""
    path = _running_lock_path(root, name)
    try:  # a link or a pipe there: no driver holds it (a driver refuses to use one)
        f = safe_io.open_file(path, "read", within=root)
    except (OSError, safe_io.DamagedFile):
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def request_study_cancel(root, name: str) -> bool:
    """Ask every driver of study ``name`` to stop (as Ctrl-C does); False when none is running."""
    if not study_running(root, name):
        return False
    atomic_write_text(cancel_path(root, name), "cancel\n", within=Path(root))
    return True


class StudyStopped(Exception):
    """The study was stopped (Ctrl-C, SIGTERM or ``fedquad study cancel``) before all its points
    ran: no new point started, the running ones were cancelled after their round, and the study
    file records what finished. ``signal`` names what stopped it."""

    def __init__(self, name: str, signal_name: str, study: dict[str, Any] | None = None):
        super().__init__(f"study {name} stopped by {signal_name}")
        self.name, self.signal, self.study = name, signal_name, study


def cancel_path(root, name: str):
    """The file ``fedquad study cancel NAME`` writes; the study's driver polls it."""
    return Path(root) / "studies" / f".{name}.cancel"


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
