"""The one seam between FL methods: a client's local objective.

Every method in this package is FedAvg (McMahan et al., AISTATS 2017) plus its own local loss,
so a method is a small class that fills these hooks and nothing else; the round loop, the
aggregation and the server are shared (see ``fedquad_core.train.rounds``).

A method may
- draw per-client data offline before local training (``setup``: FedQuad's quadruplets),
- ask for extra samples to be forwarded together with each CE batch (``extra_indices``),
- add terms to the cross-entropy (``loss``), and give the same objective in its masked,
  per-client form for the batched GPU path (``batched_loss``, see ``fedquad_core.train.vectorized``),
- keep a little state per client across rounds (``teardown`` writes into ``ClientContext.state``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import torch
import torch.nn.functional as F

from ..numerics.losses import l2_normalize


@dataclass(frozen=True, kw_only=True)
class NoParams:
    """Methods without hyperparameters."""


@dataclass
class ClientContext:
    """Everything a method may look at for one client in one round."""

    client_id: int
    round: int
    labels: np.ndarray  # the client's local labels (numpy, int64)
    num_classes: int
    rng: np.random.Generator  # seeded per (run, round, client)
    global_model: torch.nn.Module | None  # frozen copy of this round's global model, if the method asked for it
    state: dict[str, Any]  # this client's persistent state across rounds (MOON's previous model)
    num_steps: int = 1  # local SGD steps this client will take this round
    normalize_embeddings: bool = False  # L2-normalise embeddings before metric-learning losses


@dataclass
class ForwardOut:
    """Model outputs for the CE batch, and for the extra samples the method asked for."""

    x: torch.Tensor  # inputs of the CE batch (after preparation)
    y: torch.Tensor
    logits: torch.Tensor
    emb: torch.Tensor
    extra_x: torch.Tensor | None = None
    extra_emb: torch.Tensor | None = None
    model: torch.nn.Module | None = None


@dataclass
class BatchedOut:
    """One client's view inside ``vmap`` (fedquad_core.train.vectorized): B CE rows, padded ones masked
    out by ``mask``, then the tuple slots; ``has_tuples``/``has_n2`` are this client's 0/1 flags."""

    x: torch.Tensor
    y: torch.Tensor
    mask: torch.Tensor
    logits: torch.Tensor
    emb: torch.Tensor
    extra_emb: torch.Tensor
    has_tuples: torch.Tensor
    has_n2: torch.Tensor
    params: dict[str, torch.Tensor]
    aux: dict[str, torch.Tensor]


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1)


def batched_ce(out: BatchedOut) -> torch.Tensor:
    return masked_mean(F.cross_entropy(out.logits, out.y, reduction="none"), out.mask)


@dataclass
class StepLoss:
    total: torch.Tensor
    extra_forward: int = 0  # samples forwarded through auxiliary (no-grad) models this step


class LocalObjective:
    """FedAvg's objective: cross-entropy only. Subclasses add their term."""

    name: ClassVar[str] = "fedavg"
    label: ClassVar[str] = "FedAvg"
    Params: ClassVar[type] = NoParams
    needs_global_model: ClassVar[bool] = False
    needs_projection: ClassVar[bool] = False
    citation: ClassVar[str] = "McMahan et al., Communication-Efficient Learning of Deep Networks from Decentralized Data, AISTATS 2017"

    def __init__(self, params: Any, ctx: ClientContext):
        self.params = params
        self.ctx = ctx

    def setup(self) -> None:
        """Called once before local training of this client in this round."""

    def extra_indices(self, step: int) -> np.ndarray | None:
        """Local indices of extra samples to forward with the CE batch of this step (or None)."""
        return None

    def loss(self, out: ForwardOut) -> StepLoss:
        return StepLoss(F.cross_entropy(out.logits, out.y))

    def teardown(self, model: torch.nn.Module) -> None:
        """Called after local training, with the trained local model."""

    def counters(self) -> dict[str, int]:
        """Per-client counts the round reports (e.g. FedQuad's fallback clients)."""
        return {}

    @classmethod
    def batched_loss(cls, run: Any, out: BatchedOut) -> torch.Tensor:
        """This objective for one client inside ``vmap``: no data-dependent Python control flow,
        padded rows masked. ``run`` is the VmapRunner (``params``, ``settings``,
        ``global_params``)."""
        return batched_ce(out)

    @classmethod
    def default_params(cls, **overrides: Any):
        return cls.Params(**overrides)

    @classmethod
    def param_fields(cls) -> list[dataclasses.Field]:
        return list(dataclasses.fields(cls.Params))


def embedding_for_loss(emb: torch.Tensor, normalize: bool) -> torch.Tensor:
    return l2_normalize(emb) if normalize else emb


def param(default: float, *, help: str, min: float | None = 0.0, max: float | None = None,
          step: float | None = None, log: bool = False, integer: bool = False, limit: float | None = None):
    """A method hyperparameter: its default plus what the CLI and the dashboard need to expose it.
    The same for integers and floats: ``min`` is a hard lower bound (a value below it is refused),
    ``max`` is where the dashboard's slider ends (a larger value is accepted), and ``limit`` is a
    hard upper bound (a value above it is refused; sizes set one because memory runs out)."""
    return field(default=default, metadata={"help": help, "min": min, "max": max, "step": step,
                                            "log": log, "integer": integer, "limit": limit})
