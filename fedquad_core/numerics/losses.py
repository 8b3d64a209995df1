"""Local-objective loss terms of FedQuad and its baselines; each returns a differentiable scalar.

* FedQuad (Goksu & Pugeault, arXiv 2509.04107): both hinge terms push the *anchor* away from a
  negative, ``[d(a,p) - d(a,n1) + m1]_+ + [d(a,p) - d(a,n2) + m2]_+``.
* Quadruplet loss of Chen, Chen, Zhang, Huang, "Beyond triplet loss", CVPR 2017 (QuadrupletFL):
  the second term compares with the distance *between the two negatives*, ``d(n1,n2)``.
* Triplet loss (Schroff et al., FaceNet, CVPR 2015).
* Supervised contrastive loss (Khosla et al., NeurIPS 2020), "L_out" form.
* MOON model-contrastive loss (Li, He, Song, CVPR 2021).
* FedProx proximal term (Li et al., MLSys 2020).

``d`` is the squared Euclidean distance; the metric losses do not normalise their inputs (the
methods do, with ``l2_normalize``, whose gradient stays bounded on all-zero ReLU rows).
All losses are batch means.
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.nn.functional as F

__all__ = [
    "l2_normalize",
    "squared_distance",
    "fedquad_loss",
    "chen_quadruplet_loss",
    "triplet_loss",
    "supcon_loss",
    "moon_contrastive_loss",
    "proximal_term",
]


NORM_EPS = 1e-6


def l2_normalize(z: torch.Tensor, eps: float = NORM_EPS) -> torch.Tensor:
    """Rows scaled to unit length. A row shorter than ``eps`` (an embedding that a ReLU made all
    zero, or nearly) has no direction: it becomes zero with zero gradient.

    ``F.normalize`` divides such a row by its eps (1e-12) instead, so the row's gradient is the
    upstream gradient times 1e12, and one live unit with a tiny positive value takes that step
    into its weights. Here the gradient of any row is at most ``1/eps`` times the upstream one.
    """
    norm = z.norm(dim=-1, keepdim=True)
    live = norm > eps
    safe = torch.where(live, norm, torch.ones_like(norm))
    return torch.where(live, z / safe, torch.zeros_like(z))


def squared_distance(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-wise squared Euclidean distance ``||x - y||^2`` (one value per row)."""
    return (x - y).pow(2).sum(dim=-1)


def fedquad_loss(z_a, z_p, z_n1, z_n2, m1: float, m2: float) -> torch.Tensor:
    """FedQuad's ``l_quad*``; with ``z_n2=None`` (2-class client) only the first term remains."""
    d_ap = squared_distance(z_a, z_p)
    loss = F.relu(d_ap - squared_distance(z_a, z_n1) + m1)
    if z_n2 is not None:
        loss = loss + F.relu(d_ap - squared_distance(z_a, z_n2) + m2)
    return loss.mean()


def chen_quadruplet_loss(z_a, z_p, z_n1, z_n2, m1: float, m2: float) -> torch.Tensor:
    """Chen et al. (2017): ``[d(a,p) - d(a,n1) + m1]_+ + [d(a,p) - d(n1,n2) + m2]_+``."""
    d_ap = squared_distance(z_a, z_p)
    first = F.relu(d_ap - squared_distance(z_a, z_n1) + m1)
    second = F.relu(d_ap - squared_distance(z_n1, z_n2) + m2)
    return (first + second).mean()


def triplet_loss(z_a, z_p, z_n, margin: float) -> torch.Tensor:
    """``[d(a,p) - d(a,n) + margin]_+``, batch mean."""
    return F.relu(squared_distance(z_a, z_p) - squared_distance(z_a, z_n) + margin).mean()


def supcon_loss(z: torch.Tensor, labels: torch.Tensor, tau: float) -> torch.Tensor:
    """Supervised contrastive loss on L2-normalised ``z``; anchors without a positive are skipped.

    ``L_i = -(1/|P(i)|) sum_{p in P(i)} log(e^{z_i.z_p/tau} / sum_{a != i} e^{z_i.z_a/tau})``,
    averaged over the anchors that have at least one positive. If none has, the loss is a zero
    that still carries a (zero) gradient, never NaN.
    """
    z = l2_normalize(z)
    n = z.shape[0]
    labels = labels.reshape(-1)
    sim = z @ z.T / tau
    self_mask = torch.eye(n, dtype=torch.bool, device=z.device)
    log_denominator = torch.logsumexp(sim.masked_fill(self_mask, float("-inf")), dim=1, keepdim=True)
    log_prob = sim - log_denominator
    positives = (labels[:, None] == labels[None, :]) & ~self_mask
    num_pos = positives.sum(dim=1)
    has_pos = num_pos > 0
    if not bool(has_pos.any()):
        return z.sum() * 0.0
    pos_log_prob = torch.where(positives, log_prob, torch.zeros_like(log_prob)).sum(dim=1)
    per_anchor = -pos_log_prob[has_pos] / num_pos[has_pos]
    return per_anchor.mean()


def masked_supcon_loss(emb: torch.Tensor, labels: torch.Tensor, valid: torch.Tensor, tau: float) -> torch.Tensor:
    """``supcon_loss`` of a padded batch: the rows where ``valid`` is true only (same anchors,
    positives and skips), for the vectorised client runner."""
    z = l2_normalize(emb)
    n = z.shape[0]
    sim = z @ z.T / tau
    cols = valid[None, :] & ~torch.eye(n, dtype=torch.bool, device=z.device)
    log_prob = sim - torch.logsumexp(sim.masked_fill(~cols, -1e9), dim=1, keepdim=True)
    positives = (labels[:, None] == labels[None, :]) & cols & valid[:, None]
    num_pos = positives.sum(dim=1)
    has_pos = num_pos > 0
    per_anchor = -torch.where(positives, log_prob, torch.zeros_like(log_prob)).sum(dim=1) / num_pos.clamp(min=1)
    return torch.where(has_pos, per_anchor, torch.zeros_like(per_anchor)).sum() / has_pos.sum().clamp(min=1)


def moon_contrastive_loss(z, z_glob, z_prev, tau: float) -> torch.Tensor:
    """MOON: ``-log(e^{cos(z,zg)/tau} / (e^{cos(z,zg)/tau} + e^{cos(z,zprev)/tau}))``, batch mean."""
    logits = torch.stack(
        (F.cosine_similarity(z, z_glob, dim=-1), F.cosine_similarity(z, z_prev, dim=-1)), dim=1
    ) / tau
    target = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)
    return F.cross_entropy(logits, target)


def proximal_term(params: Iterable[torch.Tensor], global_params: Iterable[torch.Tensor], mu: float) -> torch.Tensor:
    """FedProx: ``(mu/2) * sum ||w - w_g||^2`` over all parameters; ``w_g`` is a constant.

    With ``mu == 0`` the result is an exact zero with no graph, so the objective equals FedAvg's.
    """
    params, global_params = list(params), list(global_params)
    if len(params) != len(global_params):
        raise ValueError(f"{len(params)} parameters but {len(global_params)} global parameters")
    if not params:
        raise ValueError("proximal_term needs at least one parameter")
    for w, w_g in zip(params, global_params):
        if w.shape != w_g.shape:
            raise ValueError(f"parameter shape {tuple(w.shape)} != global shape {tuple(w_g.shape)}")
    if mu == 0:
        return torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    total = sum((w - w_g.detach()).pow(2).sum() for w, w_g in zip(params, global_params))
    return 0.5 * mu * total
