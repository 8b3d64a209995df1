"""The tuple methods' L2 normalisation on embeddings that a ReLU made (nearly) all zero.

Found while tracing why FedQuad/TripletFL diverged on Fashion-MNIST at lr 0.05, momentum 0.9:
as the simple CNN's ReLUs die, tuple rows reach norm 0 and ``F.normalize`` (which divides a row
shorter than its eps = 1e-12 by that eps) hands them a gradient 1e12 times the upstream one
(measured: 5e11 on a real run). A live unit with a tiny positive value passes that straight into
its weights. ``l2_normalize`` gives such rows zero output and zero gradient instead."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from fedquad_core.numerics.losses import fedquad_loss, l2_normalize, supcon_loss
from fedquad_core.methods.base import embedding_for_loss


def _relu_embedding(normalize):
    """One quadruplet through Linear(2, 3) + ReLU; the anchor's row is all zero except one unit
    at 1e-13 (a dying ReLU), the other rows are ordinary."""
    layer = torch.nn.Linear(2, 3, bias=True)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        layer.bias.copy_(torch.tensor([-0.5, -0.5, 0.0]))
    x = torch.tensor([[0.0, 1e-13], [1.0, 0.5], [0.2, 2.0], [0.3, 0.1]])  # anchor, positive, n1, n2
    z = normalize(torch.relu(layer(x)))
    loss = fedquad_loss(z[:1], z[1:2], z[2:3], z[3:4], 1.0, 0.5)
    loss.backward()
    return layer


def test_dying_relu_row_gets_a_bounded_gradient():
    layer = _relu_embedding(lambda e: embedding_for_loss(e, True))
    assert torch.isfinite(layer.bias.grad).all() and layer.bias.grad.abs().max() < 10
    # the same tensor through F.normalize: the failure mode this guards against
    ref = _relu_embedding(lambda e: F.normalize(e, dim=1))
    assert ref.bias.grad.abs().max() > 1e10


def test_one_sgd_step_keeps_weights_finite_and_small():
    layer = _relu_embedding(lambda e: embedding_for_loss(e, True))
    torch.optim.SGD(layer.parameters(), lr=0.01, momentum=0.9).step()
    assert layer.bias.abs().max() < 10


def test_zero_row_value_and_gradient():
    z = torch.tensor([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], requires_grad=True)
    out = l2_normalize(z)
    assert torch.equal(out[0], torch.zeros(3))
    assert torch.allclose(out[1], torch.tensor([0.6, 0.8, 0.0]))
    out.sum().backward()
    assert torch.equal(z.grad[0], torch.zeros(3))
    assert torch.isfinite(z.grad).all()


def test_matches_f_normalize_on_ordinary_rows():
    z = torch.randn(16, 8, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(l2_normalize(z), F.normalize(z, dim=1), atol=1e-7)


def test_supcon_on_a_zero_row_has_bounded_gradient():
    z = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
    supcon_loss(z, torch.tensor([0, 0, 1, 1]), 0.1).backward()
    assert torch.isfinite(z.grad).all() and z.grad.abs().max() < 100
