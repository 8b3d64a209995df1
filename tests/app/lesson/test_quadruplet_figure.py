"""The quadruplet picture's numbers equal the engine's losses (fedquad_core.numerics.losses) and their
autograd gradients on the same points; the rings sit where each term turns zero."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from app.lesson import quadruplet as quad
from fedquad_core.numerics.losses import chen_quadruplet_loss, fedquad_loss, squared_distance
from fedquad_core.methods.fedquad import FedQuadParams

ENGINE = {"fedquad": fedquad_loss, "chen": chen_quadruplet_loss}


def _engine_terms(points, m1, m2, form):
    """Each term separately: the engine loss with the other margin making that term vanish is not
    possible in general, so compute term 1 as the triplet part and term 2 as loss - term 1."""
    t = {k: torch.tensor([points[k]], dtype=torch.float64, requires_grad=True) for k in quad.POINTS}
    loss = ENGINE[form](t["a"], t["p"], t["n1"], t["n2"], m1, m2)
    loss.backward()
    term1 = torch.relu(squared_distance(t["a"], t["p"]) - squared_distance(t["a"], t["n1"]) + m1).item()
    return term1, loss.item() - term1, {k: t[k].grad[0].numpy() for k in quad.POINTS}


CASES = [(dict(quad.PRESETS[name]), m1, m2) for name in quad.PRESETS for m1, m2 in ((1.0, 0.5), (0.2, 2.5), (0, 0))]
rng = np.random.default_rng(0)
CASES += [({k: tuple(rng.normal(size=2) * 1.5) for k in quad.POINTS}, float(rng.uniform(0, 3)), float(rng.uniform(0, 3)))
          for _ in range(40)]


@pytest.mark.parametrize("form", ["fedquad", "chen"])
@pytest.mark.parametrize("points,m1,m2", CASES)
def test_terms_and_gradients_equal_the_engine(points, m1, m2, form):
    q = quad.quadruplet(points, m1, m2, form)
    t1, t2, grads = _engine_terms(points, m1, m2, form)
    assert q.terms == pytest.approx((t1, t2), abs=1e-9)
    assert q.loss == pytest.approx(t1 + t2, abs=1e-9)
    for k in quad.POINTS:
        np.testing.assert_allclose(q.grads[k], grads[k], atol=1e-9)


def test_the_two_forms_differ_where_the_second_term_does():
    points = quad.PRESETS["Both terms active"]
    fq, chen = quad.quadruplet(points, 1.0, 0.5, "fedquad"), quad.quadruplet(points, 1.0, 0.5, "chen")
    assert fq.terms[0] == chen.terms[0] and fq.terms[1] > 0 and chen.terms[1] == 0
    assert not np.allclose(fq.grads["a"], chen.grads["a"])
    assert fq.ring_centres == ("a", "a") and chen.ring_centres == ("a", "n1")


def test_a_negative_on_its_ring_makes_its_term_zero():
    points = dict(quad.PRESETS["Collapsed (all close)"])
    q = quad.quadruplet(points, 1.0, 0.5)
    for i, who in ((0, "n1"), (1, "n2")):
        moved = dict(points)
        moved[who] = (q.radii[i] * 1.0001, 0.0)  # on the ring around the anchor at the origin, just outside
        assert quad.quadruplet(moved, 1.0, 0.5).terms[i] == 0.0
        moved[who] = (q.radii[i] * 0.99, 0.0)
        assert quad.quadruplet(moved, 1.0, 0.5).terms[i] > 0.0


def test_default_margins_are_fedquads():
    p = FedQuadParams()
    assert (quad.DEFAULT_M1, quad.DEFAULT_M2) == (p.m1, p.m2)


def test_figure_draws_rings_points_and_arrows():
    fig = quad.quadruplet_figure(quad.PRESETS["Both terms active"], 1.0, 0.5, "chen")
    assert len(fig.data) == 6  # two rings, four points
    assert len(fig.layout.annotations) == 3  # Chen's term 2 is zero here: n2 gets no push
    fig = quad.quadruplet_figure(quad.PRESETS["Both terms active"], 1.0, 0.5, "fedquad")
    assert len(fig.layout.annotations) == 4  # FedQuad's term 2 is active: n2 pushed away from the anchor
    sentences = quad.term_sentences(quad.quadruplet(quad.PRESETS["Both terms active"], 1.0, 0.5, "chen"), 1.0, 0.5)
    assert "term 2 = [d(a,p) − d(n1,n2) + 0.5]₊ = 0.000" in sentences[0]


def test_the_app_module_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, app.lesson.quadruplet; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
