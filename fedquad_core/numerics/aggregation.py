"""FedAvg aggregation as a pure function of ``(state, num_examples)`` pairs.

McMahan et al., "Communication-Efficient Learning of Deep Networks from Decentralized Data",
AISTATS 2017: the global model is the average of the client models weighted by their numbers of
training samples; the same function (Flower's ``aggregate``) serves FedAvg, FedProx, MOON,
SupConFL, TripletFL, QuadrupletFL and FedQuad, which differ only in the local objective.

* Floating-point (and complex) entries are averaged with weights ``w_k / sum w``, computed in
  float64 and cast back to the entry's dtype.
* Integer and boolean entries (e.g. BatchNorm's ``num_batches_tracked``) are counters or flags,
  not parameters: averaging them is meaningless, so they are copied from the FIRST state.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

__all__ = ["weighted_average"]


def _check(states: Sequence[Mapping[str, torch.Tensor]], weights: Sequence[float]) -> list[float]:
    if len(states) == 0:
        raise ValueError("weighted_average needs at least one client state")
    if len(states) != len(weights):
        raise ValueError(f"{len(states)} states but {len(weights)} weights")
    weights = [float(w) for w in weights]
    if any(not math.isfinite(w) or w < 0 for w in weights):
        raise ValueError(f"weights must be finite and >= 0, got {weights}")
    if sum(weights) <= 0:
        raise ValueError("the total weight (number of examples) must be > 0")
    keys = set(states[0])
    for k, state in enumerate(states[1:], start=1):
        if set(state) != keys:
            raise ValueError(f"state {k} has keys {sorted(set(state) ^ keys)} that state 0 does not match")
        for name in keys:
            if state[name].shape != states[0][name].shape:
                raise ValueError(f"'{name}': shape {tuple(state[name].shape)} in state {k}"
                                 f" != {tuple(states[0][name].shape)} in state 0")
    return weights


def weighted_average(
    states: Sequence[Mapping[str, torch.Tensor]], weights: Sequence[float]
) -> dict[str, torch.Tensor]:
    """Sample-weighted average of client state dicts; returns new detached tensors.

    ``weights`` are the clients' numbers of examples (any non-negative numbers; normalised here).
    """
    weights = _check(states, weights)
    total = sum(weights)
    out: dict[str, torch.Tensor] = {}
    for name, first in states[0].items():
        if not (first.is_floating_point() or first.is_complex()):
            out[name] = first.detach().clone()
            continue
        wide = torch.complex128 if first.is_complex() else torch.float64
        acc = torch.zeros(first.shape, dtype=wide, device=first.device)
        for state, w in zip(states, weights):
            acc += state[name].detach().to(device=first.device, dtype=wide) * (w / total)
        out[name] = acc.to(first.dtype)
    return out
