"""FedProx (Li et al., MLSys 2020): CE + (mu/2) * ||w - w_global||^2 over all parameters."""
from __future__ import annotations

from dataclasses import dataclass

from ..numerics.losses import proximal_term
from .base import BatchedOut, ForwardOut, LocalObjective, StepLoss, batched_ce, param


@dataclass(frozen=True, kw_only=True)
class FedProxParams:
    mu: float = param(0.01, help="weight of the proximal term (mu/2)||w - w_global||^2 (0 = FedAvg exactly)",
                      max=10.0, log=True)


class FedProx(LocalObjective):
    name = "fedprox"
    label = "FedProx"
    Params = FedProxParams
    needs_global_model = True
    citation = "Li et al., Federated Optimization in Heterogeneous Networks, MLSys 2020"

    def setup(self) -> None:
        self._global = [p.detach() for p in self.ctx.global_model.parameters()]

    def loss(self, out: ForwardOut) -> StepLoss:
        base = super().loss(out).total
        if self.params.mu == 0:
            return StepLoss(base)
        return StepLoss(base + proximal_term(out.model.parameters(), self._global, self.params.mu))

    @classmethod
    def batched_loss(cls, run, out: BatchedOut):
        mu = run.params.mu
        if mu == 0:
            return batched_ce(out)
        return batched_ce(out) + proximal_term([out.params[k] for k in run.global_params],
                                               list(run.global_params.values()), mu)
