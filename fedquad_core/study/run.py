"""``run_study``: check the whole grid, reuse every finished run with the same key (from any
study or a plain ``fedquad run``), train the rest ``jobs`` at a time in a pool of background
processes (one torch thread each) or as Ray tasks, and record each point's run id in the study
file as it finishes. A failed point is reported and the study goes on; Ctrl-C cancels the
running points after their current round, and running the study again resumes it."""
from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from typing import Any, Callable

from ..config import RunConfig
from ..devices import usable_cores
from ..errors import UserError
from ..preflight import check_grid
from ..store import ACTIVE, RunStore, new_run_id
from ..version import engine_fingerprint
from .grid import expand, keyed, parse_axes
from .ray import check_reachable, run_on_ray
from .store import StudyStore, finished_runs, grid_difference

Done = Callable[[str, str, "str | None"], None]  # (key, run_id, error or None)


def _study_dict(spec, points, previous: dict | None, index: dict[str, str]) -> dict[str, Any]:
    old = {p.get("key"): p.get("run_id") for p in (previous or {}).get("points", [])}
    return {
        "name": spec.name, "title": spec.title or (previous or {}).get("title"),
        "description": spec.description or (previous or {}).get("description"),
        "created": (previous or {}).get("created") or time.time(), "base": spec.base.to_dict(),
        "axes": {k: list(v) for k, v in spec.axes.items()}, "engine": engine_fingerprint(),
        "points": [{"coords": p.coords, "key": p.key, "run_id": index.get(p.key) or old.get(p.key)} for p in points],
    }


def prepare_study(spec, store) -> tuple[StudyStore, dict[str, Any], dict[str, RunConfig]]:
    """Every check, then the study file written: (studies, study dict, key -> config to train)."""
    studies = store if isinstance(store, StudyStore) else StudyStore(store.root)
    spec = dataclasses.replace(spec, axes=parse_axes(spec.axes))  # a spec built in code is checked too
    points = expand(spec)
    previous = studies.read(spec.name) if studies.exists(spec.name) else None
    if previous is not None:
        diff = grid_difference(previous, spec.base.to_dict(), spec.axes)
        if diff:
            raise UserError(f"study {spec.name!r} already exists with another grid ({diff}): "
                            "choose a new name, or rerun it with its own grid to resume it")
    check_grid([p.config for p in points])
    points = keyed(points)
    index = finished_runs(studies.runs)
    study = _study_dict(spec, points, previous, index)
    todo: dict[str, RunConfig] = {}
    for p in points:
        if p.key not in index:
            todo.setdefault(p.key, p.config)
    studies.write(study)
    return studies, study, todo


def run_study(spec, store, *, jobs: int | None = None, threads: int | None = None, ray: str | None = None,
              quiet: bool = False) -> dict[str, Any]:
    """Run the study's missing points; return the study dict (also saved in ``<root>/studies``)."""
    if ray:
        check_reachable(ray)
    studies, study, todo = prepare_study(spec, store)
    keys = {p["key"] for p in study["points"]}
    say = (lambda msg: None) if quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    say(f"study {spec.name}: {len(study['points'])} points, {len(keys)} distinct runs, {len(keys) - len(todo)} "
        f"done already, {len(todo)} to train into {studies.root}")

    def done(key: str, run_id: str, error: str | None) -> None:
        for p in study["points"]:
            if p["key"] == key:
                p["run_id"] = run_id
        studies.write(study)
        if error:
            say(f"study {spec.name}: run {run_id} ({todo[key].name}) failed: {error.splitlines()[0]}")

    if todo and ray:
        keys_in_order = list(todo)
        run_on_ray(list(todo.values()), studies.runs, ray, threads=threads,
                   on_done=lambda i, run_id, error: done(keys_in_order[i], run_id, error))
    elif todo:
        run_in_pool(todo, studies.runs, jobs=jobs or usable_cores(), threads=threads, on_done=done, progress=not quiet)
    return study


def _init_worker() -> None:
    """Pool processes ignore Ctrl-C: the driver cancels their runs after the current round (a
    cancel that comes before the run has installed its handler is seen in its cancel file)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _run_one(payload: tuple[dict, str, str, int | None, str]) -> str | None:
    config, root, run_id, threads, stop = payload
    if os.path.exists(stop):  # the study was interrupted before this point started
        return None
    from ..runner import execute

    return execute(RunConfig.from_dict(config), RunStore(root), run_id=run_id, progress=False, threads=threads)


def run_in_pool(todo: dict[str, RunConfig], runs: RunStore, *, jobs: int, threads: int | None, on_done: Done,
                progress: bool = True) -> None:
    """Train each config in a pool of ``jobs`` spawned processes; ``on_done`` as each ends.
    On Ctrl-C: points not started are dropped, running ones cancelled after their current
    round (state 'cancelled'), and KeyboardInterrupt is raised once they have stopped."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from tqdm import tqdm

    ids = {key: new_run_id(cfg.method) for key, cfg in todo.items()}
    stop = runs.root / f".study-stop-{os.urandom(4).hex()}"
    pool = ProcessPoolExecutor(max_workers=max(1, min(jobs, len(todo))), mp_context=get_context("spawn"),
                               initializer=_init_worker)
    futures = {pool.submit(_run_one, (cfg.to_dict(), str(runs.root), ids[key], threads, str(stop))): key
               for key, cfg in todo.items()}
    reported: set[str] = set()

    def report(fut) -> None:
        key = futures[fut]
        if key in reported or fut.cancelled() or not runs.exists(ids[key]):
            return
        reported.add(key)
        exc = fut.exception()
        on_done(key, ids[key], f"{type(exc).__name__}: {exc}" if exc else None)  # the folder holds the error

    try:
        for fut in tqdm(as_completed(futures), total=len(futures), desc="study", unit="run", disable=not progress):
            report(fut)
    except KeyboardInterrupt:
        stop.touch()
        for fut in futures:
            fut.cancel()
        asked: set[str] = set()
        while not all(f.done() for f in futures):
            for run_id in set(ids.values()) - asked:
                if runs.exists(run_id) and runs.read_status(run_id).get("state") in ACTIVE:
                    runs.request_cancel(run_id)  # stops after its current round, state 'cancelled'
                    asked.add(run_id)
            time.sleep(0.3)
        for fut in futures:
            if fut.done() and not fut.cancelled():
                report(fut)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        stop.unlink(missing_ok=True)
