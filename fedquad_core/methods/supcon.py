"""SupConFL: CE + weight * supervised contrastive loss (Khosla et al., NeurIPS 2020) on the
L2-normalised embeddings of the local batch. Anchors without a positive in the batch are
skipped (under label skew they are common), never turned into NaN."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..losses import l2_normalize, supcon_loss
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
        """``losses.supcon_loss`` over the unmasked rows only (same anchors, positives, skips)."""
        z = l2_normalize(out.emb)
        n = z.shape[0]
        valid = out.mask > 0
        sim = z @ z.T / run.params.tau
        cols = valid[None, :] & ~torch.eye(n, dtype=torch.bool, device=z.device)
        log_prob = sim - torch.logsumexp(sim.masked_fill(~cols, -1e9), dim=1, keepdim=True)
        positives = (out.y[:, None] == out.y[None, :]) & cols & valid[:, None]
        num_pos = positives.sum(dim=1)
        has_pos = num_pos > 0
        per_anchor = -torch.where(positives, log_prob, torch.zeros_like(log_prob)).sum(dim=1) / num_pos.clamp(min=1)
        sup = torch.where(has_pos, per_anchor, torch.zeros_like(per_anchor)).sum() / has_pos.sum().clamp(min=1)
        return batched_ce(out) + run.params.beta * sup
