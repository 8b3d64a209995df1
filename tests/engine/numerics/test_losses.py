"""Loss terms checked against numbers computed by hand on 2-4 tiny vectors."""
import math

import pytest
import torch

from fedquad_core.numerics.losses import (
    chen_quadruplet_loss,
    fedquad_loss,
    moon_contrastive_loss,
    proximal_term,
    supcon_loss,
    triplet_loss,
)


def t(rows, grad=False):
    return torch.tensor(rows, dtype=torch.float64, requires_grad=grad)


# Two quadruplets, m1 = 1, m2 = 0.5.
# row 0: a=(0,0) p=(1,0) n1=(2,0) n2=(0,3): d(a,p)=1 d(a,n1)=4 d(a,n2)=9 d(n1,n2)=4+9=13
#        FedQuad [1-4+1]+ + [1-9+.5]+ = 0 + 0 ; Chen [1-4+1]+ + [1-13+.5]+ = 0 + 0  (inactive)
# row 1: a=(0,0) p=(2,0) n1=(1,1) n2=(1,2): d(a,p)=4 d(a,n1)=2 d(a,n2)=5 d(n1,n2)=1
#        FedQuad [4-2+1]+ + [4-5+.5]+ = 3 + 0 = 3 ; Chen [4-2+1]+ + [4-1+.5]+ = 3 + 3.5 = 6.5
A, P, N1, N2 = [[0, 0], [0, 0]], [[1, 0], [2, 0]], [[2, 0], [1, 1]], [[0, 3], [1, 2]]


def test_fedquad_vs_chen_on_the_same_input():
    args = (t(A), t(P), t(N1), t(N2), 1.0, 0.5)
    assert fedquad_loss(*args).item() == 1.5  # (0 + 3) / 2
    assert chen_quadruplet_loss(*args).item() == 3.25  # (0 + 6.5) / 2


def test_all_hinges_inactive_gives_zero():
    # only row 0 above: every term is negative before the hinge
    args = (t(A[:1]), t(P[:1]), t(N1[:1]), t(N2[:1]), 1.0, 0.5)
    assert fedquad_loss(*args).item() == 0.0
    assert chen_quadruplet_loss(*args).item() == 0.0


def test_both_terms_active():
    # a=(0,0) p=(1,1) n1=(1,0) n2=(0,1): d(a,p)=2 d(a,n1)=1 d(a,n2)=1 d(n1,n2)=2
    # FedQuad [2-1+1]+ + [2-1+.5]+ = 2 + 1.5 = 3.5 ; Chen [2-1+1]+ + [2-2+.5]+ = 2 + 0.5 = 2.5
    args = (t([[0, 0]]), t([[1, 1]]), t([[1, 0]]), t([[0, 1]]), 1.0, 0.5)
    assert fedquad_loss(*args).item() == 3.5
    assert chen_quadruplet_loss(*args).item() == 2.5


def test_fedquad_two_class_fallback_keeps_only_first_term():
    # first terms of rows 0 and 1: (0 + 3) / 2; m2 is ignored
    assert fedquad_loss(t(A), t(P), t(N1), None, 1.0, 123.0).item() == 1.5


def test_triplet_by_hand():
    # row 0: a=(0,0) p=(1,0) n=(0,2): [1-4+.5]+ = 0 ; row 1: a=(1,1) p=(1,3) n=(2,1): [4-1+.5]+ = 3.5
    a, p, n = t([[0, 0], [1, 1]]), t([[1, 0], [1, 3]]), t([[0, 2], [2, 1]])
    assert triplet_loss(a, p, n, 0.5).item() == 1.75
    assert triplet_loss(a[:1], p[:1], n[:1], 4.0).item() == 1.0  # [1-4+4]+


E2 = math.exp(-2.0)


def test_supcon_only_some_anchors_have_positives():
    # z (before normalising) = (3,0) (0,2) (-1,0), labels 0 0 1, tau 0.5 -> dots/tau:
    # anchor 0: positive 1 (0/.5=0), other 2 (-1/.5=-2): L0 = -log(1/(1+e^-2)) = log(1+e^-2)
    # anchor 1: positive 0 (0), other 2 (0):            L1 = -log(1/2) = log 2
    # anchor 2: no positive -> skipped.                 loss = (L0 + L1) / 2
    z = t([[3, 0], [0, 2], [-1, 0]])
    expected = (math.log(1 + E2) + math.log(2)) / 2
    assert supcon_loss(z, torch.tensor([0, 0, 1]), 0.5).item() == pytest.approx(expected, abs=1e-12)


def test_supcon_two_positives_are_averaged():
    # z = (1,0) (0,1) (-1,0) (0,-1), labels 0 0 1 0, tau 0.5; D = 2 + e^-2 for every anchor with positives
    # anchor 0: positives 1,3 (dots 0,0), other 2 (-2): L0 = log D
    # anchor 1: positives 0 (0), 3 (-2), other 2 (0):   L1 = -(1/2)(-log D + -2 - log D) = 1 + log D
    # anchor 3: positives 0 (0), 1 (-2), other 2 (0):   L3 = 1 + log D ; anchor 2 skipped
    # loss = (3 log D + 2) / 3
    z = t([[1, 0], [0, 1], [-1, 0], [0, -1]])
    expected = math.log(2 + E2) + 2 / 3
    assert supcon_loss(z, torch.tensor([0, 0, 1, 0]), 0.5).item() == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("rows, labels", [([[1, 0], [0, 1], [1, 1]], [0, 1, 2]), ([[1, 2]], [4])])
def test_supcon_no_positive_is_zero_finite_with_grad(rows, labels):
    z = t(rows, grad=True)
    loss = supcon_loss(z, torch.tensor(labels), 0.07)
    assert loss.item() == 0.0
    loss.backward()
    assert torch.isfinite(z.grad).all() and (z.grad == 0).all()


def test_moon_by_hand():
    # row 0: cos(z,zg) = cos((1,0),(1,0)) = 1, cos(z,zp) = cos((1,0),(0,1)) = 0, tau .5 -> logits 2, 0
    #        l = -log(e^2 / (e^2 + e^0)) = log(1 + e^-2)
    # row 1: cos((1,1),(1,0)) = 1/sqrt2, cos((1,1),(-1,-1)) = -1 -> logits sqrt2, -2
    #        l = log(1 + e^(-2 - sqrt2))
    z, zg, zp = t([[1, 0], [1, 1]]), t([[1, 0], [1, 0]]), t([[0, 1], [-1, -1]])
    expected = (math.log(1 + E2) + math.log(1 + math.exp(-2 - math.sqrt(2)))) / 2
    assert moon_contrastive_loss(z, zg, zp, 0.5).item() == pytest.approx(expected, abs=1e-12)


def test_moon_is_stable_for_tiny_tau():
    z, zg, zp = t([[1, 0]]), t([[-1, 0]]), t([[1, 0]])
    # logits -1/tau, 1/tau with tau 1e-3: l = 2000 + log(1 + e^-2000) = 2000
    assert moon_contrastive_loss(z, zg, zp, 1e-3).item() == pytest.approx(2000.0)


def test_proximal_term_by_hand():
    w = [t([1, 2], grad=True), t([[3]], grad=True)]
    g = [t([0, 0]), t([[1]])]
    # sum ||w - g||^2 = 1 + 4 + 4 = 9 ; (0.1 / 2) * 9 = 0.45 ; grad = mu (w - g)
    loss = proximal_term(w, g, 0.1)
    assert loss.item() == pytest.approx(0.45, abs=1e-15)
    loss.backward()
    assert w[0].grad.tolist() == pytest.approx([0.1, 0.2]) and w[1].grad.item() == pytest.approx(0.2)


def test_proximal_term_mu_zero_is_exactly_zero_contribution():
    w = [t([1.5, -2.0], grad=True)]
    base = (w[0] ** 3).sum()
    with_prox = base + proximal_term(w, [t([100.0, 100.0])], 0.0)
    assert with_prox.item() == base.item()
    (grad_base,) = torch.autograd.grad(base, w, retain_graph=True)
    (grad_prox,) = torch.autograd.grad(with_prox, w)
    assert torch.equal(grad_base, grad_prox)


def test_proximal_term_rejects_mismatch():
    with pytest.raises(ValueError):
        proximal_term([t([1.0])], [], 0.1)
    with pytest.raises(ValueError):
        proximal_term([t([1.0, 2.0])], [t([1.0])], 0.1)


def test_all_gradients_finite():
    torch.manual_seed(0)
    z = [torch.randn(6, 4, dtype=torch.float64, requires_grad=True) for _ in range(4)]
    labels = torch.tensor([0, 0, 1, 1, 2, 3])
    losses = [
        fedquad_loss(*z, 1.0, 0.5),
        fedquad_loss(z[0], z[1], z[2], None, 1.0, 0.5),
        chen_quadruplet_loss(*z, 1.0, 0.5),
        triplet_loss(z[0], z[1], z[2], 1.0),
        supcon_loss(z[0], labels, 0.07),
        moon_contrastive_loss(z[0], z[1], z[2], 0.5),
        proximal_term(z[:2], z[2:], 0.01),
    ]
    for loss in losses:
        assert loss.dim() == 0
        grads = torch.autograd.grad(loss, z, allow_unused=True)
        assert any(g is not None for g in grads)
        assert all(torch.isfinite(g).all() for g in grads if g is not None)


def test_masked_supcon_is_supcon_of_the_valid_rows():
    from fedquad_core.numerics.losses import masked_supcon_loss

    g = torch.Generator().manual_seed(0)
    z = torch.randn(7, 5, generator=g, dtype=torch.float64)
    y = torch.tensor([0, 1, 0, 2, 1, 0, 2])
    valid = torch.tensor([True, True, True, False, True, True, False])
    want = supcon_loss(z[valid], y[valid], 0.3)
    assert masked_supcon_loss(z, y, valid, 0.3).item() == pytest.approx(want.item(), abs=1e-12)
