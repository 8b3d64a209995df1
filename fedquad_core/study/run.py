"""``run_study``: check the whole grid, reuse every finished run with the same key (from any
study or a plain ``fedquad run``), train the rest ``jobs`` at a time in a pool of background
processes (one torch thread each) or as Ray tasks, and record each point's run id in the study
file as it finishes. A failed point is reported and the study goes on; Ctrl-C cancels the
running points after their current round, and running the study again resumes it."""
from __future__ import annotations

import dataclasses
import sys
import time
from typing import Any

from ..config import ConfigError, RunConfig
from ..config.checked import Checked
from ..config.devices import usable_cores
from ..config.limits import check_grid_size, check_text
from ..config.preflight import Draw, Labels, check_runs
from ..errors import UserError
from ..methods import METHODS
from ..runs.preflight_file import Handed
from ..runs.store import RunStore
from ..version import engine_fingerprint
from .grid import Point, expand, keyed, parse_axes
from .pool import StudyPool, run_in_pool
from .ray import check_reachable, run_on_ray
from .stopping import StudyStopped, cancel_path, hold_running_lock
from .store import StudyStore, finished_runs, grid_difference


SAVE_EVERY = 5.0  # seconds between writes of a large study's file while it trains
SMALL_STUDY = 200  # up to this many runs to train, the file is written after every point


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
    running = hold_running_lock(studies.root, name)
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

