"""Shared machinery of the tuple-based metric-learning methods (TripletFL, QuadrupletFL, FedQuad).

Tuples are sampled offline, per client and per round, before local training
(``fedquad_core.numerics.sampling.sample_quadruplets``: class-aware, so rare classes still appear as
anchors and negatives). Each local step forwards ``tuples_per_batch`` tuples together with the
CE batch, in one pass; the tuple term is added to the CE of the batch. Clients with fewer
classes than a tuple needs fall back visibly (see ``sampling``): with 2 classes the second
negative term drops out, with 1 class (or no class with 2 samples) only CE remains; each round
counts such clients (``clients_no_second_negative``, ``clients_ce_only``).
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import torch

from ..numerics.sampling import sample_quadruplets
from .base import BatchedOut, ForwardOut, LocalObjective, StepLoss, batched_ce, embedding_for_loss


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

    @staticmethod
    def formula(parts: list[torch.Tensor], params: Any) -> torch.Tensor:
        """The tuple term on [anchor, positive, negative(s)] embeddings; a 4-member method also
        accepts 3 parts (its 2-class fallback: the second-negative term drops out)."""
        raise NotImplementedError

    def loss(self, out: ForwardOut) -> StepLoss:
        ce = super().loss(out).total
        if out.extra_emb is None or out.extra_emb.shape[0] == 0:
            return StepLoss(ce)
        z = embedding_for_loss(out.extra_emb, self.ctx.normalize_embeddings)
        parts = list(torch.chunk(z, len(self._cols)))
        return StepLoss(ce + self.params.beta * self.formula(parts, self.params))

    def counters(self) -> dict[str, int]:
        """Clients (of this round's) whose tuples lack the second negative (exactly 2 classes), and
        those that train with CE only (no anchor-positive pair next to another class): the
        same definitions as ``partition.json``'s fields of these names."""
        return {"clients_no_second_negative": int(self.mode == "triplet"), "clients_ce_only": int(self.mode == "none")}

    @classmethod
    def batched_loss(cls, run, out: BatchedOut) -> torch.Tensor:
        z = embedding_for_loss(out.extra_emb, run.settings.normalize_embeddings)
        parts = list(torch.chunk(z, cls.members))
        term = cls.formula(parts, run.params)
        if cls.members == 4:  # 2-class clients (has_n2 = 0) keep the first term only
            short = cls.formula(parts[:3], run.params)
            term = short + out.has_n2 * (term - short)
        return batched_ce(out) + run.params.beta * out.has_tuples * term
