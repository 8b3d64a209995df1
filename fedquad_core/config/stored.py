"""The checks a stored ``config.json`` goes through when it is read back (``runs.files.read_config``,
a queued run started by ``fedquad run --run-id``): the same rules as a typed setting, without the
data. A value of the wrong type, a method, data set or model this engine does not know, an α that
is NaN, infinite or not above 0, a count below 1 or a float that float32 cannot hold is damage:
the run is named, never shown as a finished result. Torch-free (the dashboard's listing reads it).

Older stored configs may lack a field (the dataclass default applies) or hold a field no longer
used: only the fields that are there and known are checked."""
from __future__ import annotations

import dataclasses
from typing import Any

from .alpha import alpha_problem
from .field_types import _KINDS, _kind, type_ok
from ..vocab.methods import labels as method_labels
from .numbers import FLOAT_MAX, finite_number, float32_problem as _float32_problem
from .run import CLIENT_EXECS, DATASET_NAMES, DEVICES, MODEL_NAMES, RunConfig

_CHOICES = {"method": tuple(method_labels()), "dataset": DATASET_NAMES, "model": MODEL_NAMES, "device": DEVICES,
            "client_exec": CLIENT_EXECS}
_COUNTS = {"num_clients": 1, "rounds": 1, "local_epochs": 1, "batch_size": 1, "snapshot_every": 1,
           "snapshot_points": 1, "min_size": 0, "seed": 0, "workers": 0, "local_clients": 0,
           "train_subset": 1, "eval_points": 1}
_FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def stored_config_problem(data: Any) -> str | None:
    """Why a stored config cannot be a run of this engine, in one line, or None."""
    if not isinstance(data, dict):
        return "config.json does not hold an object"
    for name, value in data.items():
        f = _FIELDS.get(name)
        if f is None:
            continue
        kind, nullable = _kind(f.type)
        if value is None and nullable:
            continue
        if not type_ok(kind, value):
            return f"config.json: {name} is {_short(value)}, not {_KINDS[kind]}"
        if name in _CHOICES and value not in _CHOICES[name]:
            return f"config.json: unknown {name} {_short(value)} (this engine knows {', '.join(_CHOICES[name])})"
        if name in _COUNTS and value < _COUNTS[name]:
            return f"config.json: {name} {value!r} is below {_COUNTS[name]}"
    if "alpha" in data:
        problem = alpha_problem(data["alpha"])
        if problem:
            return "config.json: " + problem.split(": change")[0]
    participation = data.get("participation")
    if participation is not None and not (finite_number(participation) and 0 < participation <= 1):
        return f"config.json: participation {_short(participation)} is not in (0, 1]"
    for name in ("lr", "momentum", "weight_decay"):
        value = data.get(name)
        if value is None:
            continue
        problem = _float32_problem(value)
        if problem or value < 0 or (name == "lr" and value == 0):
            return f"config.json: {name} {_short(value)} is not a usable value"
    params = data.get("method_params")
    if isinstance(params, dict):
        for key, value in params.items():
            if not finite_number(value, FLOAT_MAX):
                return f"config.json: method parameter {key} is {_short(value)}, not a finite number"
    return None
