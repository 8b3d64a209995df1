"""QuadrupletFL: FedAvg + the quadruplet loss of Chen et al. (CVPR 2017), whose second term
compares with the distance *between the two negatives*:
[d(a,p) - d(a,n1) + m1]_+ + [d(a,p) - d(n1,n2) + m2]_+ (m2 < m1). This is what sets it apart
from FedQuad, whose second term is anchor-to-n2."""
from __future__ import annotations

from dataclasses import dataclass

from ..numerics.losses import chen_quadruplet_loss, triplet_loss
from .base import param
from .tuples import TupleObjective


@dataclass(frozen=True, kw_only=True)
class QuadrupletParams:
    beta: float = param(2.0, help="weight of the Chen et al. quadruplet term", max=10.0)
    m1: float = param(1.0, help="margin of the anchor-to-negative term [d(a,p) - d(a,n1) + m1]", max=4.0, step=0.05)
    m2: float = param(0.5, help="margin of the negative-to-negative term [d(a,p) - d(n1,n2) + m2] (Chen et al.: m2 < m1)",
                      max=4.0, step=0.05)
    tuples_per_batch: int = param(8, help="quadruplets forwarded with each CE batch", min=1, max=256, limit=256, integer=True)


class Quadruplet(TupleObjective):
    name = "quadruplet"
    label = "QuadrupletFL"
    Params = QuadrupletParams
    citation = "Chen et al., Beyond Triplet Loss: a Deep Quadruplet Network for Person Re-identification, CVPR 2017"

    @staticmethod
    def formula(parts, params):
        if len(parts) == 4:
            return chen_quadruplet_loss(*parts, params.m1, params.m2)
        return triplet_loss(*parts, params.m1)  # 2-class fallback: the first term only
