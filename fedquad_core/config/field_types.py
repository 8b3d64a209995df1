"""The type check of every RunConfig field, read from the dataclass's own annotations (a new field
is covered without an edit here): bool is not a number, numbers are finite, str fields are str,
None only where the annotation allows it. Used by ``preflight.validate`` before any range check."""
from __future__ import annotations

import dataclasses
from typing import Any

from .numbers import finite_number

_KINDS = {"int": "an integer", "float": "a finite number", "str": "a string", "bool": "true or false",
          "dict": "an object (mapping of names to values)"}
FLAGS = {"num_clients": "--clients", "method_params": "the method's flags (method_params in --config)",
         "alpha": "--alpha or --iid"}


def flag(name: str) -> str:
    """The command-line flag that sets field ``name``."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def _kind(annotation: Any) -> tuple[str, bool]:
    """('int' | 'float' | 'str' | 'bool' | 'dict', None allowed) from an annotation such as 'int | None'."""
    parts = [p.strip() for p in str(annotation).split("|")]
    base = next(p for p in parts if p != "None").split("[")[0]
    return base, "None" in parts


def type_ok(kind: str, value: Any) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "int":
        return isinstance(value, int)
    if kind == "float":
        return finite_number(value)  # an int of any size is compared, never converted (OverflowError)
    if kind == "str":
        return isinstance(value, str)
    if kind == "dict":
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)
    raise TypeError(f"RunConfig field type {kind!r} has no check in config_types")


def type_problem(cfg: Any) -> str | None:
    """The first field whose value has the wrong type, as a one-line message, else None."""
    for f in dataclasses.fields(cfg):
        kind, nullable = _kind(f.type)
        value = getattr(cfg, f.name)
        if value is None and nullable:
            continue
        if not type_ok(kind, value):
            what = _KINDS[kind] + (" or null" if nullable else "")
            return f"{f.name} must be {what} (got {_short(value)}): change {flag(f.name)}"
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
