"""The shape of a study file (``<root>/studies/<name>.json``), checked in one place, like
``fedquad_core.runs.files`` does for a run folder: ``read_study`` returns the parsed study or raises
``run_files.Damaged`` with one line saying what is wrong (unreadable, not UTF-8, not JSON, a
folder, or JSON of the wrong shape). ``StudyStore`` turns that into ``DamagedStudy``, so
``study list`` names it as damaged and goes on, and ``show``/``run`` refuse it in one line."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..runs.files import Damaged, _kind, load_json
from ..safe_io import shown
from ..config.alpha import alpha_problem
from ..config.numbers import finite_number

STUDY_FILE_MAX = 64 << 20  # about 300,000 points; a default grid (at most 1,000 points) is under 1 MB
# the longest text a study is written with (config.limits.check_text at `study run`); a name and
# an engine fingerprint are short
TEXT_MAX = {"title": 2_000, "description": 2_000, "name": 200, "engine": 64}


_NONE = object()


def _value_problem(axis: str, value: Any) -> str | None:
    """Why ``value`` cannot be a grid value (of ``axis``), or None: a grid value is one setting, a
    string, a boolean, null or a finite number, never a list or an object; an α is IID (null) or
    a number above 0 (``alpha_problem``, the rule of a typed α)."""
    if value is None or isinstance(value, (bool, str)):
        return None if not (axis == "alpha" and isinstance(value, (bool, str))) else "not a number or null (IID)"
    if not isinstance(value, (int, float)):
        return "not one setting's value (a string, a number, true/false or null)"
    if not finite_number(value):
        return "not a finite number"
    if axis == "alpha" and alpha_problem(value):
        return "not an alpha above 0"
    return None


def read_study(path: Path) -> dict[str, Any]:
    """The study file at ``path``, checked as a whole: ``Damaged`` names the first thing in it that
    no version of the study driver writes (its top level, an axis, a point)."""
    if path.is_dir():
        raise Damaged(f"{path.name} is a folder, not a file")
    study = load_json(path, limit=STUDY_FILE_MAX)
    _check_top(path.name, study)
    _check_points(path.name, study["axes"], study["points"])
    return study


def _check_top(name: str, study: Any) -> None:
    """The study's keys, texts, axes and base."""
    if not isinstance(study, dict):
        raise Damaged(f"{name} holds {_kind(study)}, not an object")
    for key in ("axes", "points"):
        if key not in study:
            raise Damaged(f"{name} has no {key!r}")
    axes = study["axes"]
    if not isinstance(axes, dict) or not all(isinstance(v, list) for v in axes.values()):
        raise Damaged(f"{name}: 'axes' is {_kind(axes)}, not an object of axis: [values]")
    for key in ("title", "description", "name", "engine"):
        if study.get(key) is not None and not isinstance(study[key], str):
            raise Damaged(f"{name}: {key!r} is {shown(study[key])}, not a string")
        if len(study.get(key) or "") > TEXT_MAX[key]:
            raise Damaged(f"{name}: {key!r} is {len(study[key]):,} characters long, more than the "
                          f"{TEXT_MAX[key]:,} a study is written with")
    for axis, values in axes.items():
        if not values:
            raise Damaged(f"{name}: axis {shown(axis)} has no values")
        bad = next((v for v in values if _value_problem(axis, v)), _NONE)
        if bad is not _NONE:
            raise Damaged(f"{name}: axis {shown(axis)} holds {shown(bad)}, {_value_problem(axis, bad)}")
    if study.get("base") is not None and not isinstance(study["base"], dict):
        raise Damaged(f"{name}: 'base' is {_kind(study['base'])}, not an object")


def _check_points(name: str, axes: dict[str, list], points: Any) -> None:
    """Every point: an object with coordinates on every axis, a key, a run id or null, and no
    grid point twice."""
    if not isinstance(points, list):
        raise Damaged(f"{name}: 'points' is {_kind(points)}, not an array")
    if not points:
        raise Damaged(f"{name} holds no points (a study is written with every point of its grid)")
    seen: set[str] = set()
    for n, point in enumerate(points, 1):
        if not isinstance(point, dict):
            raise Damaged(f"{name}: point {n} is {_kind(point)}, not an object")
        if not isinstance(point.get("coords"), dict):
            raise Damaged(f"{name}: point {n}'s 'coords' is {_kind(point.get('coords'))}, not an object")
        if not isinstance(point.get("key"), str):
            raise Damaged(f"{name}: point {n}'s 'key' is {_kind(point.get('key'))}, not a string")
        if point.get("run_id") is not None and not isinstance(point["run_id"], str):
            raise Damaged(f"{name}: point {n}'s 'run_id' is {_kind(point['run_id'])}, not a string or null")
        bad = next((k for k, v in point["coords"].items() if _value_problem(k, v)), None)
        if bad is not None:
            raise Damaged(f"{name}: point {n}'s {shown(bad)} is {shown(point['coords'][bad])}, "
                          f"{_value_problem(bad, point['coords'][bad])}")
        missing = set(axes) - set(point["coords"])
        if missing:
            raise Damaged(f"{name}: point {n} has no value for axis {sorted(missing)[0]!r}")
        coords = json.dumps(point["coords"], sort_keys=True, default=str)
        if coords in seen:  # the same grid point twice: written by no version of the study driver
            raise Damaged(f"{name}: point {n} repeats an earlier point's coordinates ({shown(point['coords'], 60)})")
        seen.add(coords)
