"""Shared machinery of the tuple-based metric-learning methods (TripletFL, QuadrupletFL, FedQuad).

Tuples are sampled offline, per client and per round, before local training
(``fedquad_core.sampling.sample_quadruplets``: class-aware, so rare classes still appear as
anchors and negatives). Each local step forwards ``tuples_per_batch`` tuples together with the
CE batch, in one pass; the tuple term is added to the CE of the batch. Clients with fewer
classes than a tuple needs fall back visibly (see ``sampling``): with 2 classes the second
negative term drops out, with 1 class only CE remains; each round counts such clients.
"""
from __future__ import annotations

from typing import Callable, ClassVar

import numpy as np
import torch

from ..sampling import sample_quadruplets
from .base import ForwardOut, LocalObjective, StepLoss, embedding_for_loss


def _has(arr) -> bool:
    return arr is not None and len(arr) > 0 and int(np.min(arr)) >= 0


class TupleObjective(LocalObjective):
    """CE + beta * tuple loss on (anchor, positive, negative[, second negative]) embeddings."""

    members: ClassVar[int] = 4  # 3 for triplets

    def setup(self) -> None:
        k = int(self.params.tuples_per_batch)
        plan = sample_quadruplets(self.ctx.labels, self.ctx.num_steps * k, rng=self.ctx.rng)
        self.mode = plan.mode
        cols = [plan.a, plan.p, plan.n1]
        if self.members == 4 and _has(plan.n2):
            cols.append(plan.n2)
        self._cols = cols if _has(plan.a) else []
        self._k = k

    def extra_indices(self, step: int) -> np.ndarray | None:
        if not self._cols:
            return None
        sl = slice(step * self._k, (step + 1) * self._k)
        return np.concatenate([c[sl] for c in self._cols])

    def tuple_loss(self, parts: list[torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError

    def loss(self, out: ForwardOut) -> StepLoss:
        ce = super().loss(out).total
        if out.extra_emb is None or out.extra_emb.shape[0] == 0:
            return StepLoss(ce)
        z = embedding_for_loss(out.extra_emb, self.ctx.normalize_embeddings)
        parts = list(torch.chunk(z, len(self._cols)))
        return StepLoss(ce + self.params.beta * self.tuple_loss(parts))

    def counters(self) -> dict[str, int]:
        return {"clients_two_classes": int(self.mode == "triplet"), "clients_one_class": int(self.mode == "none")}


def four_or_three(parts: list[torch.Tensor], four: Callable, three: Callable) -> torch.Tensor:
    return four(*parts) if len(parts) == 4 else three(*parts)
