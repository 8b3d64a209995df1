"""A study: a named grid of runs over run settings, computed once (see docs/studies.md).

    spec = StudySpec("digits-alpha", base=RunConfig(...), axes=parse_grid(["alpha=0.1,iid", "seed=0,1"]))
    check_grid([p.config for p in expand(spec)])   # preflight: every user error, before any run
    run_study(spec, RunStore("runs"), jobs=2)       # reuses finished runs with the same key

An axis is a RunConfig field (``alpha``, ``num_clients`` or ``clients``, ``seed``, ``method``, ...)
or a method parameter (``m1``, ``m2``, ``beta``, ...). A method parameter applies only to the
methods that have it; for the others the points are one run (same key), trained once."""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from ..config import CLIENT_EXECS, DATASET_NAMES, DEVICES, MODEL_NAMES, RunConfig
from ..config.alpha import alpha_text, parse_alpha
from ..config.numbers import FLOAT_RULE, INT_RULE, parse_float, parse_int
from ..errors import UserError
from ..methods import METHODS
from ..methods.params import method_param_fields
from .. import safe_io
from ..version import BOOKKEEPING, run_key
from .store import check_name

NOT_AXES = ("name", "method_params")
ALIASES = {"clients": "num_clients"}
CHOICES = {"method": tuple(METHODS), "dataset": DATASET_NAMES, "model": MODEL_NAMES, "device": DEVICES,
           "client_exec": CLIENT_EXECS}


def _config_fields() -> dict[str, str]:
    return {f.name: str(f.type) for f in dataclasses.fields(RunConfig) if f.name not in NOT_AXES}


def axis_name(key: str) -> str:
    key = key.strip().replace("-", "_")
    key = ALIASES.get(key, key)
    if key in BOOKKEEPING:
        raise UserError(f"{key!r} cannot be a grid axis: it does not change a run's numbers, so every value "
                        f"would be the same run; set it with --{key.replace('_', '-')} instead")
    if key not in _config_fields() and key not in method_param_fields():
        valid = sorted({*_config_fields(), *method_param_fields(), *ALIASES})
        raise UserError(f"unknown grid key {key!r}: use a run setting or method parameter ({', '.join(valid)})")
    return key


def parse_value(axis: str, value: Any) -> Any:
    """One grid value of ``axis`` as the type its field wants (alpha: ``parse_alpha``, IID as 'iid')."""
    text = value.strip() if isinstance(value, str) else value
    kind = _config_fields().get(axis)
    if kind is None:  # a method parameter
        kind = "int" if method_param_fields()[axis].metadata.get("integer") else "float"
    try:
        if axis == "alpha":
            return parse_alpha(text)  # nan / inf numbers: validate() names the flag to change
        if text is None and "None" in kind:
            return None
        if "bool" in kind:
            if isinstance(text, bool):
                return text
            if str(text).lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
                return str(text).lower() in ("true", "yes", "on", "1")
            raise ValueError
        if "int" in kind:
            if isinstance(text, float) and text.is_integer():  # 2.0 in a JSON study file
                return int(text)
            return parse_int(text)  # the one rule: no '_', ASCII digits, no 1e400 or inf
        if "float" in kind:
            return parse_float(text)  # nan / inf: validate() names the flag to change
        text = str(text)
        if axis in CHOICES and text not in CHOICES[axis]:
            raise UserError(f"unknown {axis} {text!r} in the {axis} axis: choose from {', '.join(CHOICES[axis])}")
        return text
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e400, inf or -inf for an integer
        base = kind.split(" ")[0]
        want = {"int": "an integer", "float": "a number", "bool": "true or false"}.get(base, kind)
        rule = {"int": f" ({INT_RULE})", "float": f" ({FLOAT_RULE})"}.get("float" if axis == "alpha" else base, "")
        raise UserError(f"grid value {safe_io.shown(value)} of {axis} is not {want}{rule}: fix --grid {axis}=...") from None


def parse_axes(axes: dict[str, Any]) -> dict[str, list]:
    """Axis names checked and aliases resolved, every value parsed; an empty axis is an error."""
    out: dict[str, list] = {}
    for key, values in axes.items():
        name = axis_name(key)
        if name in out:
            raise UserError(f"grid key {name!r} given twice: give each axis once")
        if not isinstance(values, list):
            raise UserError(f"grid axis {name!r} must be a list of values (got {safe_io.shown(values)}): "
                            f'write "{name}": [v1, v2]')
        if not values:
            raise UserError(f"grid axis {name!r} has no values: give at least one (--grid {name}=v1,v2)")
        parsed = [parse_value(name, v) for v in values]
        out[name] = list(dict.fromkeys(parsed))  # a value given twice is one point
    return out


def parse_grid(items: list[str]) -> dict[str, list]:
    """``["alpha=0.05,0.1,iid", "method=fedavg,fedquad"]`` -> ``{"alpha": [0.05, 0.1, None], ...}``."""
    raw: dict[str, list] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"bad --grid {item!r}: write KEY=V1,V2,... (e.g. alpha=0.1,0.5,iid)")
        name = axis_name(key)
        if name in raw:
            raise UserError(f"grid key {name!r} given twice: give each axis once")
        raw[name] = [v for v in values.split(",") if v.strip()]
    return parse_axes(raw)


@dataclass(frozen=True)
class StudySpec:
    name: str
    base: RunConfig
    axes: dict[str, list]
    title: str | None = None
    description: str | None = None
    registration: dict | None = None  # a confirmation study's registration stamp (study/registration.py)


@dataclass(frozen=True)
class Point:
    coords: dict[str, Any]
    config: RunConfig
    key: str = field(default="")


def _label(coords: dict[str, Any]) -> str:
    return " ".join(f"{k}={alpha_text(v) if k == 'alpha' else v}" for k, v in coords.items())


def expand(spec: StudySpec) -> list[Point]:
    """Every grid point in the axes' order (the last axis varies fastest)."""
    check_name(spec.name)
    params = method_param_fields()
    methods = spec.axes.get("method", [spec.base.method])
    for axis in spec.axes:
        if axis in params and not any(axis in {f.name for f in dataclasses.fields(METHODS[m].Params)}
                                      for m in methods if m in METHODS):
            raise UserError(f"no method of this study has the parameter {axis!r} ({', '.join(methods)}): "
                            f"drop --grid {axis}=..., or add a method that has it")
    points = []
    for combo in itertools.product(*spec.axes.values()):
        coords = dict(zip(spec.axes, combo))
        settings = {k: v for k, v in coords.items() if k not in params}
        cfg = dataclasses.replace(spec.base, **settings)
        own = {f.name for f in dataclasses.fields(METHODS[cfg.method].Params)} if cfg.method in METHODS else set()
        method_params = {**spec.base.method_params, **{k: v for k, v in coords.items() if k in params}}
        cfg = dataclasses.replace(cfg, method_params={k: v for k, v in method_params.items() if k in own},
                                  name=f"{spec.name} {_label(coords)}")
        points.append(Point(coords, cfg))
    return points


def keyed(points: list[Point]) -> list[Point]:
    """The points with their run keys (needs every config valid: call after ``check_grid``)."""
    return [dataclasses.replace(p, key=run_key(p.config)) for p in points]
