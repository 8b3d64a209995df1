"""TripletFL: FedAvg + the triplet loss [d(a,p) - d(a,n) + m]_+ (Schroff et al., CVPR 2015)."""
from __future__ import annotations

from dataclasses import dataclass

from ..numerics.losses import triplet_loss
from .base import param
from .tuples import TupleObjective


@dataclass(frozen=True, kw_only=True)
class TripletParams:
    beta: float = param(2.0, help="weight of the triplet term", max=10.0)
    margin: float = param(1.0, help="margin of the triplet term [d(a,p) - d(a,n) + margin]", max=4.0, step=0.05)
    tuples_per_batch: int = param(8, help="triplets forwarded with each CE batch", min=1, max=256, limit=256, integer=True)


class Triplet(TupleObjective):
    name = "triplet"
    label = "TripletFL"
    Params = TripletParams
    members = 3
    citation = "Schroff, Kalenichenko & Philbin, FaceNet, CVPR 2015"

    @staticmethod
    def formula(parts, params):
        return triplet_loss(*parts[:3], params.margin)

    def counters(self) -> dict[str, int]:
        return {"clients_ce_only": int(self.mode == "none")}
