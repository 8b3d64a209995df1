"""Registry of FL methods. Everything that lists methods (CLI choices, dashboard pickers and
sliders, parametrised tests) reads ``METHODS``; adding a method is one file plus one line here."""
from __future__ import annotations

from .base import ClientContext, ForwardOut, LocalObjective, StepLoss
from .fedavg import FedAvg
from .fedprox import FedProx
from .fedquad import FedQuad
from .moon import Moon
from .quadruplet import Quadruplet
from .supcon import SupCon
from .triplet import Triplet

METHODS: dict[str, type[LocalObjective]] = {
    cls.name: cls for cls in (FedAvg, FedProx, Moon, SupCon, Triplet, Quadruplet, FedQuad)
}


def get_method(name: str) -> type[LocalObjective]:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose one of {', '.join(METHODS)}") from None


__all__ = ["METHODS", "get_method", "ClientContext", "ForwardOut", "LocalObjective", "StepLoss"]
