"""The method parameters across the registry, by name: what the CLI flags, the study grid's axes
and the dashboard's sliders are built from."""
from __future__ import annotations

import dataclasses

from . import METHODS


def method_param_fields() -> dict[str, dataclasses.Field]:
    """Every method parameter's dataclass field, by name (the first method that has it)."""
    fields: dict[str, dataclasses.Field] = {}
    for cls in METHODS.values():
        for f in dataclasses.fields(cls.Params):
            fields.setdefault(f.name, f)
    return fields


def owners(name: str) -> list[str]:
    """The methods that have the parameter ``name``."""
    return [m for m, cls in METHODS.items() if name in {f.name for f in dataclasses.fields(cls.Params)}]
