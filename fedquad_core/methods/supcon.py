"""SupConFL: CE + weight * supervised contrastive loss (Khosla et al., NeurIPS 2020) on the
L2-normalised embeddings of the local batch. Anchors without a positive in the batch are
skipped (under label skew they are common), never turned into NaN."""
from __future__ import annotations

from dataclasses import dataclass

from ..numerics.losses import masked_supcon_loss, supcon_loss
from .base import BatchedOut, ForwardOut, LocalObjective, StepLoss, batched_ce, param


@dataclass(frozen=True, kw_only=True)
class SupConParams:
    beta: float = param(1.0, help="weight of the SupCon term", max=10.0)
    tau: float = param(0.1, help="temperature of the SupCon term", min=0.01, max=1.0)


class SupCon(LocalObjective):
    name = "supcon"
    label = "SupConFL"
    Params = SupConParams
    citation = "Khosla et al., Supervised Contrastive Learning, NeurIPS 2020"

    def loss(self, out: ForwardOut) -> StepLoss:
        ce = super().loss(out).total
        return StepLoss(ce + self.params.beta * supcon_loss(out.emb, out.y, self.params.tau))

    @classmethod
    def batched_loss(cls, run, out: BatchedOut):
        """``losses.masked_supcon_loss``: ``supcon_loss`` over the unmasked rows only."""
        return batched_ce(out) + run.params.beta * masked_supcon_loss(out.emb, out.y, out.mask > 0, run.params.tau)
