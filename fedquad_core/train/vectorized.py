"""All sampled clients of a round trained together: one batched computation over clients.

The clients' parameters are stacked along a leading client axis and each local step runs
``torch.func.functional_call`` under ``vmap(grad_and_value(...))`` over clients, then one SGD
update (momentum, weight decay: torch.optim.SGD's arithmetic) for all of them. Meant for CUDA;
it runs on CPU too, which is how it is tested against ``SequentialRunner``.

Unequal clients: client c takes ``T_c = epochs * ceil(n_c / B)`` steps; at step s the clients
with ``s >= T_c`` are inactive (their update is dropped by a mask), and the short last batch of an
epoch is padded to B rows with a row mask. Clients are sorted by size and trained in chunks
(``chunk`` clients at a time, default from the model size or ``$FEDQUAD_VMAP_CHUNK``) to bound
memory; only sampled clients are ever stacked (MOON's previous models included).

Everything random stays per client and in the sequential order: each client's generators,
its method's ``setup`` (offline tuple sampling), its epoch permutations, and its augmentation.
What changes is only the floating-point summation order, so results equal the sequential path's
within floating-point tolerance, not bit for bit.

The method seam: each method's class gives its local loss in a masked per-client form
(``LocalObjective.batched_loss``, next to its sequential ``loss``), vmappable because it has no
data-dependent Python control flow. SupCon's positive/anchor
selection and the tuple methods' fallbacks (two-class clients, one-class clients) become masks
and 0/1 flags; tuple sampling itself happens offline in ``setup``, outside the batched step.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch.func import functional_call, grad_and_value, vmap

from .client import ClientJob, ClientResult, TrainData, client_generators, frozen_copy, train_settings
from ..methods import ClientContext, LocalObjective, get_method
from ..methods.base import BatchedOut
from ..methods.tuples import TupleObjective


def default_chunk(model: torch.nn.Module) -> int:
    env = os.environ.get("FEDQUAD_VMAP_CHUNK")
    if env:
        return max(1, int(env))
    n = sum(p.numel() for p in model.parameters())
    return max(1, min(256, int(2e8 // max(1, n))))


@dataclass
class _Client:
    job: ClientJob
    obj: LocalObjective
    gen: torch.Generator
    perms: list[np.ndarray]
    spe: int  # steps per epoch
    steps: int
    loss_sum: float = 0.0
    processed: int = 0
    done: int = 0
    diverged: bool = False


class VmapRunner:
    """``ClientRunner`` that trains the sampled clients together, ``chunk`` at a time."""

    def __init__(self, model: torch.nn.Module, data: TrainData, cfg, augment: bool, *, chunk: int | None = None):
        self.model, self.data = model, data
        self.method, self.params = get_method(cfg.method), cfg.params()
        self.loss_fn = self.method.batched_loss
        self.settings = train_settings(cfg, augment)
        self.chunk = chunk or default_chunk(model)
        self.slots = self.method.members * int(self.params.tuples_per_batch) if issubclass(self.method, TupleObjective) else 0

    def run(self, jobs: Sequence[ClientJob], global_state: dict[str, torch.Tensor]) -> list[ClientResult]:
        order = sorted(range(len(jobs)), key=lambda i: len(jobs[i].indices))  # similar sizes share a chunk
        results: list[ClientResult | None] = [None] * len(jobs)
        for start in range(0, len(order), self.chunk):
            part = order[start:start + self.chunk]
            for i, res in zip(part, self._train_chunk([jobs[i] for i in part], global_state)):
                results[i] = res
        self.model.load_state_dict(global_state)
        return list(results)  # type: ignore[arg-type]

    # ---- one chunk ---------------------------------------------------------------------------
    def _clients(self, jobs: Sequence[ClientJob], global_model) -> list[_Client]:
        s, data, out = self.settings, self.data, []
        for job in jobs:
            rng, gen = client_generators(job.seed, data.x.device)
            n = len(job.indices)
            spe = math.ceil(n / s.batch_size)
            ctx = ClientContext(client_id=job.client_id, round=job.round, labels=data.labels_np[job.indices],
                                num_classes=data.num_classes, rng=rng, global_model=global_model, state=dict(job.state),
                                num_steps=s.local_epochs * spe, normalize_embeddings=s.normalize_embeddings)
            obj = self.method(self.params, ctx)
            obj.setup()
            perms = [rng.permutation(n) for _ in range(s.local_epochs)]  # the sequential loop's draws, in order
            out.append(_Client(job, obj, gen, perms, spe, s.local_epochs * spe))
        return out

    def _step_rows(self, c: _Client, step: int) -> tuple[np.ndarray, np.ndarray, int, int, int]:
        """Global rows to forward for this client (real rows) and the slot -> real-row map."""
        bsz, idx = self.settings.batch_size, c.job.indices
        epoch, b = divmod(step, c.spe)
        batch = idx[c.perms[epoch][b * bsz:(b + 1) * bsz]]
        extra = c.obj.extra_indices(step)
        extra = np.empty(0, dtype=np.int64) if extra is None else idx[np.asarray(extra)]
        rows = np.concatenate([batch, extra])
        nb = len(batch)
        slot = np.zeros(bsz + self.slots, dtype=np.int64)
        slot[:nb] = np.arange(nb)
        ncols = len(extra) // self.params.tuples_per_batch if self.slots and len(extra) else 0
        if ncols:
            k = int(self.params.tuples_per_batch)
            cols = [nb + np.arange(j * k, (j + 1) * k) for j in range(ncols)]
            cols += [cols[2]] * (self.method.members - ncols)  # missing n2: filled, switched off by has_n2
            slot[bsz:] = np.concatenate(cols)
        return rows, slot, nb, ncols, len(rows)

    def _train_chunk(self, jobs: Sequence[ClientJob], global_state: dict[str, torch.Tensor]) -> list[ClientResult]:
        model, data, s = self.model, self.data, self.settings
        dev = data.x.device
        model.load_state_dict(global_state)
        model.train()
        global_model = frozen_copy(model, global_state) if self.method.needs_global_model else None
        self.global_params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v for k, v in model.named_buffers()}
        clients = self._clients(jobs, global_model)
        C = len(clients)
        params = {k: v.detach().unsqueeze(0).repeat(C, *([1] * v.dim())) for k, v in self.global_params.items()}
        prev = self._prev_params(clients) if self.method.name == "moon" else None
        bufs: dict[str, torch.Tensor] | None = None
        bsz = s.batch_size

        def per_client(p, x, y, mask, has_t, has_n2, aux):
            logits, emb = functional_call(model, (p, buffers), (x,))
            out = BatchedOut(x[:bsz], y, mask, logits[:bsz], emb[:bsz], emb[bsz:], has_t, has_n2, p, aux)
            return self.loss_fn(self, out)

        step_fn = vmap(grad_and_value(per_client))
        for step in range(max(c.steps for c in clients)):
            active = [not c.diverged and step < c.steps for c in clients]
            x, y, mask, has_t, has_n2, info = self._batch(clients, active, step)
            aux = self._moon_aux(global_model, prev, x[:, :bsz]) if prev is not None else {}
            grads, losses = step_fn(params, x, y, mask, has_t, has_n2, aux)
            values = losses.tolist()
            for c, on, v, (rows, nb) in zip(clients, active, values, info):
                if not on:
                    continue
                if not math.isfinite(v):
                    c.diverged, c.loss_sum, c.done = True, v, step + 1
                    continue
                c.loss_sum += v
                c.processed += rows + (2 * nb if self.method.name == "moon" else 0)
                c.done = step + 1
            act = torch.tensor([on and not c.diverged for c, on in zip(clients, active)], device=dev)
            params, bufs = self._sgd(params, grads, bufs, act)
        return [self._result(c, params, i, buffers) for i, c in enumerate(clients)]

    def _batch(self, clients: list[_Client], active: list[bool], step: int):
        s, data = self.settings, self.data
        bsz, R = s.batch_size, s.batch_size + self.slots
        dev = data.x.device
        rows_all, xs, info = [], [], []
        mask = np.zeros((len(clients), bsz), dtype=np.float32)
        has_t = np.zeros(len(clients), dtype=np.float32)
        has_n2 = np.zeros(len(clients), dtype=np.float32)
        for i, (c, on) in enumerate(zip(clients, active)):
            if not on:
                rows_all.append(np.full(R, c.job.indices[0]))
                info.append((0, 0))
                xs.append(None)
                continue
            rows, slot, nb, ncols, nrows = self._step_rows(c, step)
            mask[i, :nb] = 1
            has_t[i] = float(ncols > 0)
            has_n2[i] = float(ncols == 4)
            rows_all.append(rows[slot])
            info.append((nrows, nb))
            if s.augment:  # the client's own generator, on its real rows, in its own order
                xs.append(data.prepare(data.x[torch.as_tensor(rows, device=dev)], augment=True, generator=c.gen)[torch.as_tensor(slot, device=dev)])
            else:
                xs.append(None)
        idx = torch.as_tensor(np.stack(rows_all), device=dev)
        if s.augment:
            plain = data.prepare(data.x[idx.reshape(-1)]).view(len(clients), R, *data.x.shape[1:])
            x = torch.stack([plain[i] if xi is None else xi for i, xi in enumerate(xs)])
        else:
            x = data.prepare(data.x[idx.reshape(-1)]).view(len(clients), R, *data.x.shape[1:])
        y = data.y[idx[:, :bsz]]
        t = lambda a: torch.as_tensor(a, device=dev)  # noqa: E731
        return x, y, t(mask), t(has_t), t(has_n2), info

    def _sgd(self, params, grads, bufs, act):
        s = self.settings
        new_params, new_bufs = {}, {}
        for k, p in params.items():
            g = grads[k]
            if s.weight_decay:
                g = g.add(p, alpha=s.weight_decay)
            keep = act.view(-1, *([1] * (p.dim() - 1)))
            if s.momentum:
                buf = g.clone() if bufs is None else bufs[k] * s.momentum + g
                if bufs is not None:
                    buf = torch.where(keep, buf, bufs[k])
                new_bufs[k] = buf
                g = buf
            new_params[k] = torch.where(keep, p.add(g, alpha=-s.lr), p)
        return new_params, (new_bufs if s.momentum else None)

    # ---- MOON: previous local models, only for the sampled clients of this chunk --------------
    def _prev_params(self, clients: list[_Client]) -> dict[str, torch.Tensor]:
        dev = self.data.x.device
        out = {}
        for k, g in self.global_params.items():
            out[k] = torch.stack([c.job.state["prev_model"][k].to(dev) if "prev_model" in c.job.state else g
                                  for c in clients])
        return out

    @torch.no_grad()
    def _moon_aux(self, global_model, prev, x):
        C, B = x.shape[:2]
        flat = x.reshape(C * B, *x.shape[2:])
        z_glob = global_model(flat)[1].view(C, B, -1)

        def one(p, xc):
            return functional_call(self.model, p, (xc,))[1]

        return {"z_glob": z_glob, "z_prev": vmap(one)(prev, x)}

    def _result(self, c: _Client, params, i: int, buffers) -> ClientResult:
        job, n = c.job, len(c.job.indices)
        state = c.obj.ctx.state
        if c.diverged:
            return ClientResult(job.client_id, {}, n, c.loss_sum, c.done, c.processed, c.obj.counters(), state, True)
        own = {k: v[i].detach().clone() for k, v in params.items()}
        weights = {k: own[k] if k in own else buffers[k].detach().clone() for k in self.model.state_dict()}
        if type(c.obj).teardown is not LocalObjective.teardown:
            self.model.load_state_dict(weights)
            c.obj.teardown(self.model)
        return ClientResult(job.client_id, weights, n, c.loss_sum, c.done, c.processed, c.obj.counters(), state)
