"""FedQuad (Göksu & Pugeault, arXiv 2509.04107, 2025).

Local objective L = CE + beta * l_quad*, with
l_quad* = [d(a,p) - d(a,n1) + m1]_+ + [d(a,p) - d(a,n2) + m2]_+ on squared Euclidean distances:
both terms push the *anchor* away from a negative (n1, n2 from two different other classes).
The server is plain FedAvg.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..numerics.losses import fedquad_loss
from .base import param
from .tuples import TupleObjective


@dataclass(frozen=True, kw_only=True)
class FedQuadParams:
    beta: float = param(2.0, help="weight of the FedQuad quadruplet term", max=10.0)
    m1: float = param(1.0, help="margin of the anchor-to-first-negative term [d(a,p) - d(a,n1) + m1]", max=4.0, step=0.05)
    m2: float = param(0.5, help="margin of the anchor-to-second-negative term [d(a,p) - d(a,n2) + m2]", max=4.0, step=0.05)
    tuples_per_batch: int = param(8, help="quadruplets forwarded with each CE batch", min=1, max=256, limit=256, integer=True)


class FedQuad(TupleObjective):
    name = "fedquad"
    label = "FedQuad"
    Params = FedQuadParams
    citation = "Göksu & Pugeault, FedQuad: Federated Stochastic Quadruplet Learning, arXiv 2509.04107, 2025"

    @staticmethod
    def formula(parts, params):
        a, p, n1, *rest = parts
        return fedquad_loss(a, p, n1, rest[0] if rest else None, params.m1, params.m2)
