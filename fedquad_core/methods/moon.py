"""MOON, model-contrastive FL (Li, He & Song, CVPR 2021).

L = CE + mu * l_con, with l_con contrasting the local projection z against the global model's
z_glob (positive) and this client's previous local model's z_prev (negative), temperature tau.
As in the reference code (``ModelFedCon``), the model is features -> projection head ->
classifier: z is the projection output, which is also what the classifier reads (the model's
embedding, so the geometry metrics read z for MOON).
Each client keeps its previous local model across rounds; only clients that trained have one
(kept on the CPU as a state dict). A client's first round uses the global model as z_prev,
as the reference implementation does with its initial model.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from ..numerics.losses import moon_contrastive_loss
from .base import BatchedOut, ForwardOut, LocalObjective, StepLoss, batched_ce, masked_mean, param


@dataclass(frozen=True, kw_only=True)
class MoonParams:
    mu: float = param(1.0, help="weight of the model-contrastive term (paper: 5 CIFAR-10, 1 CIFAR-100)", max=10.0)
    tau: float = param(0.5, help="temperature of the contrastive term", min=0.01, max=5.0)
    proj_dim: int = param(256, help="output size of the projection head (the classifier reads it)", min=8, max=1024,
                          limit=1024, integer=True)


class Moon(LocalObjective):
    name = "moon"
    label = "MOON"
    Params = MoonParams
    needs_global_model = True
    needs_projection = True
    citation = "Li, He & Song, Model-Contrastive Federated Learning, CVPR 2021"

    def setup(self) -> None:
        self._prev = self.ctx.global_model
        prev_state = self.ctx.state.get("prev_model")
        if prev_state is not None:
            self._prev = copy.deepcopy(self.ctx.global_model)
            self._prev.load_state_dict(prev_state)
            self._prev.eval()

    def loss(self, out: ForwardOut) -> StepLoss:
        ce = super().loss(out).total
        with torch.no_grad():
            z_glob = self.ctx.global_model(out.x)[1]
            z_prev = self._prev(out.x)[1]
        con = moon_contrastive_loss(out.emb, z_glob, z_prev, self.params.tau)
        return StepLoss(ce + self.params.mu * con, extra_forward=2 * out.x.shape[0])

    @classmethod
    def batched_loss(cls, run, out: BatchedOut):
        z = out.emb  # the projection output (the classifier reads it too)
        sims = torch.stack((F.cosine_similarity(z, out.aux["z_glob"], dim=-1),
                            F.cosine_similarity(z, out.aux["z_prev"], dim=-1)), dim=1) / run.params.tau
        con = -torch.log_softmax(sims, dim=1)[:, 0]  # per-row moon_contrastive_loss
        return batched_ce(out) + run.params.mu * masked_mean(con, out.mask)

    def teardown(self, model: torch.nn.Module) -> None:
        self.ctx.state["prev_model"] = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
