"""Each client's local model, measured where collapse starts: at every snapshot round, after local
training and before aggregation, up to K of the round's clients have their local model evaluated
on the snapshot test subset.

The clients are drawn from (seed, round) and the round's participating set only, with a random
stream of their own, so every method on the same partition and seed measures the same clients and
training's random streams are untouched. The measurement reads the ``ClientResult`` weights the
round loop holds on every execution path (sequential, parallel workers, vmap), so all three give
the same numbers.

Per client: ``local_acc_all`` (accuracy on the whole subset), ``local_acc_own`` (on the subset's
points of the classes the client holds), ``local_effective_rank`` and ``local_ratio`` (intra/inter,
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

from .geometry import effective_rank, inter_class_distance, intra_class_distance, linear_cka, singular_values

CLIENT_METRICS = ("local_acc_all", "local_acc_own", "local_effective_rank", "local_ratio", "local_cka", "update_norm")
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
def _forward(model: torch.nn.Module, x: torch.Tensor, prepare: Any, batch_size: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Predicted classes and float32 embeddings of ``x``, in one eval-mode pass."""
    model.eval()
    preds, embs = [], []
    for i in range(0, x.shape[0], batch_size):
        logits, emb = model(prepare(x[i:i + batch_size]))
        preds.append(logits.argmax(1).cpu())
        embs.append(emb.float().cpu())
    return torch.cat(preds).numpy(), torch.cat(embs).numpy()


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _geometry(z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(effective rank, intra/inter ratio) of one client's embeddings; nan when undefined."""
    if not np.isfinite(z).all():
        return float("nan"), float("nan")
    with np.errstate(all="ignore"):
        try:
            rank = effective_rank(singular_values(z))
        except np.linalg.LinAlgError:
            rank = float("nan")
        inter = inter_class_distance(z, y)
        ratio = intra_class_distance(z, y) / inter if inter > 0 else float("nan")
    return rank, ratio


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
        when no client is measured. Leaves ``model`` holding the last measured client's weights."""
        by_id = {res.client_id: res for res in results}
        ids = measured_clients(list(by_id), self.k, self.seed, round_)
        if ids.size == 0:
            return None
        labels = y.cpu().numpy()
        model.load_state_dict(start)
        _, z_start = _forward(model, x, prepare)
        names = [n for n, _ in model.named_parameters()]
        gram = update_gram([by_id[int(c)].weights for c in ids], start, names)
        norms, cos = np.sqrt(np.clip(np.diag(gram), 0, None)), cosine_matrix(gram)
        clients, embeddings = [], []
        for i, c in enumerate(ids):
            model.load_state_dict(by_id[int(c)].weights)
            pred, z = _forward(model, x, prepare)
            embeddings.append(z)
            held = np.flatnonzero(self.counts[c] > 0)
            own = np.isin(labels, held)
            rank, ratio = _geometry(z, labels)
            clients.append({"client": int(c), "classes": [int(k) for k in held], "samples": int(self.counts[c].sum()),
                            "local_acc_all": float((pred == labels).mean()),
                            "local_acc_own": float((pred[own] == labels[own]).mean()) if own.any() else None,
                            "local_effective_rank": _finite(rank), "local_ratio": _finite(ratio),
                            "local_cka": _finite(linear_cka(z, z_start)), "update_norm": _finite(float(norms[i]))})
        row: dict[str, Any] = {key: _mean([c[key] for c in clients]) for key in CLIENT_METRICS}
        pairs = cos[np.triu_indices(len(ids), k=1)]
        row["update_cosine"] = _mean(pairs.tolist())
        row["local_measured"] = len(ids)
        row["local"] = clients
        arrays = {"clients": ids.astype(np.int64), "samples": self.counts[ids].sum(1).astype(np.int64),
                  "holds": self.counts[ids] > 0, "embeddings": np.stack(embeddings).astype(np.float16),
                  "start_embeddings": z_start.astype(np.float16), "update_cosine": cos.astype(np.float32)}
        return row, arrays
