"""Explore's figures of RECORDED studies, built once per server process and shared by every session.

A recorded study (``$FEDQUAD_RECORDED_DIR``, read-only) looks the same to everyone, so when a class
opens the same link, one session builds a slider position's figures (``explore_panels.position``:
a ``switcher.Position`` whose panels' plotly JSON is already serialised, i.e. the switcher's
payload for that position) and the parts built on the way (response tables and figures,
heatmaps, the spectra across α), and every other session gets the same objects. Entries are keyed
on the study's content (``version``): the study file's size, mtime and ctime (read on every page
run) and those of every file in its runs' folders (walked again at most every ``WALK_TTL``
seconds), so a re-recorded study gets new keys and is built afresh; old entries age out (LRU,
``MAX_ENTRIES``). Sessions only read what they get (the page never mutates a figure it was
given; the heatmap copies its figure before marking the slider's cell).

Concurrent first requests for one key do not all build it: the first builds, the others wait for
it and take its result (a build that fails or is interrupted lets the next waiter build).

Users' own studies (``runs/``: they change while they compute) are not served from here: they keep
the per-session memo keyed on ``catalog.version``, as before. ``FEDQUAD_SHARED_FIGURES=0`` turns
the store off for every study (``benchmarks/class_at_once.py`` measures against that)."""
from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from app import service
from app.studies import catalog as studies

ENV = "FEDQUAD_SHARED_FIGURES"
MAX_ENTRIES = 256   # positions and their parts; a position of a recorded study holds ~0.1-0.3 MB of JSON
WALK_TTL = 2.0      # seconds a walk of a study's run folders is reused (digits-margins: 150 runs, ~10-25 ms)

_lock = threading.Lock()
_entries: OrderedDict[tuple, Any] = OrderedDict()
_building: dict[tuple, threading.Event] = {}
_walk_lock = threading.Lock()
_walks: OrderedDict[tuple, tuple[float, str]] = OrderedDict()


def enabled() -> bool:
    """On unless ``FEDQUAD_SHARED_FIGURES`` is 0 / false / no / off (read on every call)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def serves(ref: studies.StudyRef) -> bool:
    """Whether this study's figures come from the shared store: recorded studies, store on."""
    return ref.source == "recorded" and enabled()


def serves_key(key: tuple) -> bool:
    """The same for a key of ``explore_view.memo`` (its first item is the study's ``StudyRef.id``)."""
    return bool(key) and isinstance(key[0], str) and key[0].startswith("recorded:") and enabled()


def version(ref: studies.StudyRef, study: dict) -> tuple:
    """The study's version for this page run. A user's study (or any, with the store off): the
    page's ``catalog.version`` as before. A recorded one: ``("content", its root, the study
    file's stat, a digest of its runs' files' stats)``."""
    if not serves(ref):
        return studies.version(ref)
    root = service.source_root(ref.source)
    runs = tuple(sorted({str(p["run_id"]) for p in study.get("points", []) if p.get("run_id")}))
    return ("content", str(root), _stat(root / "studies" / f"{ref.name}.json"), _runs_digest(root, runs))


def _stat(path: Path) -> tuple:
    try:
        s = path.stat()
    except OSError:
        return ()
    return s.st_size, s.st_mtime_ns, s.st_ctime_ns  # ctime: a copy that keeps mtimes still changes it


def _runs_digest(root: Path, runs: tuple[str, ...]) -> str:
    """A digest of (path, size, mtime, ctime) of every file in the run folders, reused for
    ``WALK_TTL`` s; one walk at a time (concurrent callers take the one just made)."""
    key = (str(root), runs)
    with _walk_lock:
        got = _walks.get(key)
        if got is not None and time.monotonic() - got[0] < WALK_TTL:
            return got[1]
        h = hashlib.sha1()
        for run in runs:
            _walk(root / run, run, h)
        digest = h.hexdigest()[:20]
        _walks[key] = (time.monotonic(), digest)
        _walks.move_to_end(key)
        while len(_walks) > 64:
            _walks.popitem(last=False)
        return digest


def _walk(path: Path, rel: str, h) -> None:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        h.update(f"{rel}\0missing\n".encode())
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                _walk(Path(e.path), f"{rel}/{e.name}", h)
                continue
            s = e.stat(follow_symlinks=False)
        except OSError:
            continue  # went away while walking: the next walk sees the result
        h.update(f"{rel}/{e.name}\0{s.st_size}\0{s.st_mtime_ns}\0{s.st_ctime_ns}\n".encode())


def get(key: tuple, build: Callable[[], Any]) -> Any:
    """The shared value for ``key``, built by ``build()`` once: while one caller builds it,
    other callers of the same key wait for its result."""
    while True:
        with _lock:
            if key in _entries:
                _entries.move_to_end(key)
                return _entries[key]
            event = _building.get(key)
            if event is None:
                event = _building[key] = threading.Event()
                break
        event.wait()  # another session builds it: take its result (or build, if it failed)
    try:
        value = build()
    except BaseException:  # also Streamlit's rerun / stop: nothing stored, the next waiter builds
        with _lock:
            _building.pop(key, None)
        event.set()
        raise
    with _lock:
        _entries[key] = value
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
        _building.pop(key, None)
    event.set()
    return value


def prepared(position):
    """``position`` with each figure's plotly JSON and id computed now (``switcher.Panel.spec``
    and ``fid``), so that the serialising is done once, by the builder, not by each session."""
    for panel in position.panels:
        if panel.fig is not None:
            panel.fid  # noqa: B018 - computes and keeps spec, then its id
    return position


def keys() -> list[tuple]:
    """The keys held now, oldest first (for tests and diagnostics)."""
    with _lock:
        return list(_entries)


def clear() -> None:
    with _lock:
        _entries.clear()
    with _walk_lock:
        _walks.clear()
