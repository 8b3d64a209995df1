"""Each client's local model, measured where collapse starts: at every snapshot round, after local
training and before aggregation, up to K of the round's clients have their local model evaluated
on the snapshot test subset.

The clients are drawn from (seed, round) and the round's participating set only, with a random
stream of their own, so every method on the same partition and seed measures the same clients and
training's random streams are untouched. The measurement reads the ``ClientResult`` weights the
round loop holds on every execution path (sequential, parallel workers, vmap), so all three give
the same numbers.

Per client: ``local_acc_all`` (accuracy on the whole subset), ``local_acc_own`` (on the subset's
points of the classes the client holds: a class is held from a fifth of an even share of the
client's training samples, ``count * classes * HOLD_OF_EVEN >= samples``: 2 % with 10 classes,
0.2 % with 100, so a class it has a stray sample of is not counted as its own),
``local_acc_own_any`` (the same with every class it has one sample of or more), ``local_effective_rank`` and ``local_ratio`` (intra/inter,
as in ``geometry``) of its embeddings, ``local_cka`` (linear CKA between its embeddings and the
round's starting global model's of the same points) and ``update_norm`` (L2 norm of its weight
update, trainable parameters flattened). Over the measured clients: the mean of each, and
``update_cosine``, the mean pairwise cosine of their updates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from ..numerics.geometry import effective_rank

CLIENT_METRICS = ("local_acc_all", "local_acc_own", "local_acc_own_any", "local_effective_rank", "local_ratio",
                  "local_cka", "update_norm")
HOLD_OF_EVEN = 5  # a class is the client's own from 1/5 of an even share of its samples (2 % of 10 classes)
ROW_METRICS = CLIENT_METRICS + ("update_cosine",)
_STREAM = 0x10CA1  # this module's own random stream, next to the run seed and round


def measured_clients(chosen: Sequence[int], k: int, seed: int, round_: int) -> np.ndarray:
    """Up to ``k`` of the round's clients ``chosen`` (sorted), all of them when there are no more."""
    chosen = np.sort(np.asarray(chosen, dtype=np.int64))
    if k <= 0:
        return chosen[:0]
    if len(chosen) <= k:
        return chosen
    return np.sort(np.random.default_rng([seed, round_, _STREAM]).choice(chosen, size=k, replace=False))


@torch.no_grad()
def _forward(model: torch.nn.Module, weights: dict[str, torch.Tensor], inputs: Sequence[torch.Tensor]
             ) -> tuple[np.ndarray, np.ndarray]:
    """Predicted classes and float32 embeddings of the prepared batches ``inputs`` under
    ``weights`` (eval mode; ``model``'s own weights are not touched: no state-dict copies)."""
    model.eval()
    preds, embs = [], []
    for batch in inputs:
        logits, emb = torch.func.functional_call(model, weights, (batch,))
        preds.append(logits.argmax(1).cpu())
        embs.append(emb.float().cpu())
    return torch.cat(preds).numpy(), torch.cat(embs).numpy()


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


class _Reference:
    """What every measured client is compared with, worked out once a snapshot for all K: the
    points' classes (class means then are one matrix product) and the round's starting global
    model's centred embeddings (for CKA). ``geometry`` computes the same quantities one call each;
    here all K at once, and one centred Gram matrix serves the spectrum and CKA's norm alike."""

    def __init__(self, y: np.ndarray, start: np.ndarray):
        classes, self.inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
        self.average = np.zeros((classes.size, y.size), dtype=np.float32)
        self.average[self.inverse, np.arange(y.size)] = 1.0
        self.average /= counts[:, None]
        self.pairs = np.triu_indices(classes.size, k=1)
        self.b = start.astype(np.float32) - start.astype(np.float32).mean(axis=0)
        with np.errstate(all="ignore"):
            self.norm_b = np.linalg.norm(self.b.T @ self.b) if np.isfinite(self.b).all() else float("nan")

    def geometry(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per client of the float32 ``[K, n, d]`` embeddings ``zs``, all K in one batch: effective
        rank, intra/inter ratio and linear CKA to the start, as ``geometry.effective_rank(
        singular_values(z))``, ``geometry_summary``'s ``ratio`` and ``geometry.linear_cka(z, start)``;
        nan where undefined (a client with non-finite embeddings: all three). In float32, which
        halves the cost; the values agree with ``geometry``'s float64 ones to about 1e-6."""
        finite = np.isfinite(zs).all(axis=(1, 2))
        zs = np.where(finite[:, None, None], zs, np.float32(0.0)).astype(np.float32, copy=False)
        with np.errstate(all="ignore"):
            a = zs - zs.mean(axis=1, keepdims=True)
            gram = np.matmul(a.transpose(0, 2, 1), a)  # [K, d, d]
            spectrum = np.abs(np.linalg.eigvalsh(gram / zs.shape[1]))  # the covariance's, as singular_values
            total = spectrum.sum(axis=1, keepdims=True)
            p = np.divide(spectrum, total, out=np.zeros_like(spectrum), where=total > 0)
            entropy = -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
            rank = np.where(total[:, 0] > 0, np.exp(entropy), 0.0)
            means = np.matmul(self.average, zs)  # [K, C, d]
            intra = np.linalg.norm(zs - means[:, self.inverse], axis=2).mean(axis=1)
            if self.pairs[0].size:
                inter = np.linalg.norm(means[:, self.pairs[0]] - means[:, self.pairs[1]], axis=2).mean(axis=1)
            else:
                inter = np.full(len(zs), np.nan)
            ratio = np.where(inter > 0, intra / np.where(inter > 0, inter, 1.0), np.nan)
            norm = np.linalg.norm(gram, axis=(1, 2)) * self.norm_b
            cross = np.linalg.norm(np.matmul(a.transpose(0, 2, 1), self.b), axis=(1, 2)) ** 2
            cka = np.where((norm > 0) & np.isfinite(norm), cross / np.where(norm > 0, norm, 1.0), np.nan)
        nan = np.where(finite, 0.0, np.nan)  # adding nan marks the non-finite clients
        return rank + nan, ratio + nan, cka + nan


def update_gram(weights: Sequence[dict[str, torch.Tensor]], start: dict[str, torch.Tensor],
                names: Sequence[str]) -> np.ndarray:
    """``[K, K]`` dot products of the clients' weight updates (weights minus the round's start,
    entries ``names`` flattened), summed entry by entry in float64: never more than one entry of
    all K updates in memory at once (a ResNet's K flattened updates would be gigabytes)."""
    gram = None
    for n in names:
        u = torch.stack([w[n].detach().double() - start[n].detach().double().to(w[n].device) for w in weights])
        u = u.reshape(len(weights), -1)
        part = (u @ u.T).cpu()
        gram = part if gram is None else gram + part
    return gram.numpy() if gram is not None else np.zeros((len(weights), len(weights)))


def cosine_matrix(gram: np.ndarray) -> np.ndarray:
    """Cosines from a Gram matrix of updates; a zero update's cosines are nan."""
    norms = np.sqrt(np.clip(np.diag(gram), 0, None))
    with np.errstate(all="ignore"):
        out = gram / np.outer(norms, norms)
    zero = ~(norms > 0)
    out[zero, :], out[:, zero] = np.nan, np.nan
    return out


def hold_share(n_classes: int) -> float:
    """The share of a client's samples from which a class is its own: 0.02 with 10 classes."""
    return 1.0 / (HOLD_OF_EVEN * n_classes)


def held_classes(counts: np.ndarray) -> np.ndarray:
    """``[K, C]`` bool: which classes each row of training ``counts`` holds: at least one sample and
    a fifth of an even share (``HOLD_OF_EVEN``), in integers so the bound is exact."""
    counts = np.asarray(counts, dtype=np.int64)
    return (counts > 0) & (counts * counts.shape[-1] * HOLD_OF_EVEN >= counts.sum(axis=-1, keepdims=True))


def _accuracy_on(pred: np.ndarray, labels: np.ndarray, classes: np.ndarray) -> float | None:
    """Accuracy on the points of ``classes``; None when there are none."""
    own = np.isin(labels, classes)
    return float((pred[own] == labels[own]).mean()) if own.any() else None


def _mean(values: Sequence[float | None]) -> float | None:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(finite)) if finite else None


@dataclass
class LocalProbe:
    """What the round loop needs to measure local models: how many, the run seed, and the
    clients-by-classes training counts (which classes each client holds, how many samples)."""

    k: int
    seed: int
    counts: np.ndarray

    def measure(self, model: torch.nn.Module, results: Sequence[Any], start: dict[str, torch.Tensor],
                x: torch.Tensor, y: torch.Tensor, prepare: Any, round_: int
                ) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
        """The snapshot row's local fields and the arrays of ``local_round_NNNN.npz``, or None
        when no client is measured. ``model``'s weights are left as they were."""
        by_id = {res.client_id: res for res in results}
        ids = measured_clients(list(by_id), self.k, self.seed, round_)
        if ids.size == 0:
            return None
        labels = y.cpu().numpy()
        inputs = [prepare(x[i:i + 1024]) for i in range(0, x.shape[0], 1024)]  # once for the K + 1 models
        _, z_start = _forward(model, start, inputs)
        ref = _Reference(labels, z_start)
        names = [n for n, _ in model.named_parameters()]
        gram = update_gram([by_id[int(c)].weights for c in ids], start, names)
        norms, cos = np.sqrt(np.clip(np.diag(gram), 0, None)), cosine_matrix(gram)
        preds, embeddings = zip(*(_forward(model, by_id[int(c)].weights, inputs) for c in ids))
        embeddings = np.stack(embeddings)
        ranks, ratios, ckas = ref.geometry(embeddings)
        holds = held_classes(self.counts[ids])
        clients = []
        for i, c in enumerate(ids):
            pred, held, held_any = preds[i], np.flatnonzero(holds[i]), np.flatnonzero(self.counts[c] > 0)
            clients.append({"client": int(c), "classes": [int(k) for k in held],
                            "classes_any": [int(k) for k in held_any], "samples": int(self.counts[c].sum()),
                            "local_acc_all": float((pred == labels).mean()),
                            "local_acc_own": _accuracy_on(pred, labels, held),
                            "local_acc_own_any": _accuracy_on(pred, labels, held_any),
                            "local_effective_rank": _finite(float(ranks[i])), "local_ratio": _finite(float(ratios[i])),
                            "local_cka": _finite(float(ckas[i])), "update_norm": _finite(float(norms[i]))})
        row: dict[str, Any] = {key: _mean([c[key] for c in clients]) for key in CLIENT_METRICS}
        pairs = cos[np.triu_indices(len(ids), k=1)]
        row["update_cosine"] = _mean(pairs.tolist())
        row["local_measured"] = len(ids)
        row["local"] = clients
        arrays = {"clients": ids.astype(np.int64), "samples": self.counts[ids].sum(1).astype(np.int64),
                  "holds": holds, "embeddings": embeddings.astype(np.float16),
                  "start_embeddings": z_start.astype(np.float16), "update_cosine": cos.astype(np.float32)}
        return row, arrays
