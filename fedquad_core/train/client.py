"""Local training of one client: everything it needs arrives in a ``ClientJob`` plus the shared
training data, so the same function serves the sequential loop and parallel workers."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ..methods import ClientContext, ForwardOut, LocalObjective


@dataclass(frozen=True)
class TrainSettings:
    local_epochs: int
    batch_size: int
    lr: float
    momentum: float
    weight_decay: float
    augment: bool
    normalize_embeddings: bool


def train_settings(cfg: Any, augment: bool) -> TrainSettings:
    """A RunConfig's local-training settings, data set defaults filled in."""
    c = cfg.with_dataset_defaults()
    return TrainSettings(c.local_epochs, c.batch_size, c.lr, c.momentum, c.weight_decay, augment,
                         c.normalize_embeddings)


@dataclass
class ClientJob:
    client_id: int
    round: int
    indices: np.ndarray  # global indices into the training set
    seed: tuple[int, ...]  # (run seed, round, client id): the client's own random stream
    state: dict[str, Any] = field(default_factory=dict)  # the client's persistent state (MOON)


@dataclass
class ClientResult:
    client_id: int
    weights: dict[str, torch.Tensor]
    num_samples: int
    loss_sum: float
    steps: int
    samples_processed: int
    counters: dict[str, int]
    state: dict[str, Any]
    diverged: bool = False


@dataclass
class TrainData:
    """The training set on the device where clients train, and how to turn it into model input."""

    x: torch.Tensor
    y: torch.Tensor
    prepare: Any  # Dataset.prepare(x, augment=..., generator=...)
    labels_np: np.ndarray
    num_classes: int


def client_generators(seed: tuple[int, ...], device: torch.device) -> tuple[np.random.Generator, torch.Generator]:
    rng = np.random.default_rng(list(seed))
    gen = torch.Generator(device=device)
    gen.manual_seed(int(rng.integers(2**62)))
    return rng, gen


def frozen_copy(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> torch.nn.Module:
    """An eval-mode copy of ``model`` holding ``state``, without gradients (the round's global
    model, for methods that compare against it)."""
    frozen = copy.deepcopy(model).eval()
    frozen.load_state_dict(state)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen


def train_client(model: torch.nn.Module, global_state: dict[str, torch.Tensor], job: ClientJob, *,
                 data: TrainData, method: type[LocalObjective], params: Any, settings: TrainSettings,
                 global_model: torch.nn.Module | None = None) -> ClientResult:
    """Run ``settings.local_epochs`` of SGD on one client starting from ``global_state``.
    ``global_model``: the round's frozen global model when the caller already built it (one copy
    serves all clients of a round); made here when the method needs it and none is given."""
    device = data.x.device
    model.load_state_dict(global_state)
    model.train()
    rng, gen = client_generators(job.seed, device)
    if method.needs_global_model and global_model is None:
        global_model = frozen_copy(model, global_state)
    elif not method.needs_global_model:
        global_model = None
    n, bsz = len(job.indices), settings.batch_size
    steps_per_epoch = math.ceil(n / bsz)
    state = dict(job.state)
    ctx = ClientContext(client_id=job.client_id, round=job.round, labels=data.labels_np[job.indices],
                        num_classes=data.num_classes, rng=rng, global_model=global_model, state=state,
                        num_steps=settings.local_epochs * steps_per_epoch,
                        normalize_embeddings=settings.normalize_embeddings)
    objective = method(params, ctx)
    objective.setup()
    opt = torch.optim.SGD(model.parameters(), lr=settings.lr, momentum=settings.momentum,
                          weight_decay=settings.weight_decay)
    idx_dev = torch.as_tensor(job.indices, device=device)
    loss_sum, processed, step = 0.0, 0, 0
    for _ in range(settings.local_epochs):
        order = torch.as_tensor(rng.permutation(n), device=device)
        for b in range(steps_per_epoch):
            batch = idx_dev[order[b * bsz:(b + 1) * bsz]]
            extra = objective.extra_indices(step)
            rows = batch if extra is None else torch.cat([batch, idx_dev[torch.as_tensor(extra, device=device)]])
            x = data.prepare(data.x[rows], augment=settings.augment, generator=gen)
            logits, emb = model(x)
            nb = batch.shape[0]
            out = ForwardOut(x=x[:nb], y=data.y[batch], logits=logits[:nb], emb=emb[:nb],
                             extra_x=x[nb:] if extra is not None else None,
                             extra_emb=emb[nb:] if extra is not None else None, model=model)
            step_loss = objective.loss(out)
            value = step_loss.total.item()
            if not math.isfinite(value):
                return ClientResult(job.client_id, {}, n, value, step + 1, processed, objective.counters(), state, True)
            opt.zero_grad(set_to_none=True)
            step_loss.total.backward()
            opt.step()
            loss_sum += value
            processed += rows.shape[0] + step_loss.extra_forward
            step += 1
    objective.teardown(model)
    weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return ClientResult(job.client_id, weights, n, loss_sum, step, processed, objective.counters(), state)


@torch.no_grad()
def evaluate(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, prepare: Any, *, batch_size: int = 1024,
             want_embeddings: bool = False) -> tuple[float, torch.Tensor | None]:
    """Test accuracy of ``model`` (and the embeddings, when asked)."""
    model.eval()
    correct, embs = 0, []
    for i in range(0, x.shape[0], batch_size):
        logits, emb = model(prepare(x[i:i + batch_size]))
        correct += int((logits.argmax(1) == y[i:i + batch_size]).sum())
        if want_embeddings:
            embs.append(emb.float().cpu())
    acc = correct / max(1, x.shape[0])
    return acc, (torch.cat(embs) if want_embeddings else None)

