"""One quadruplet in 2-D: anchor a, positive p, negatives n1 and n2 of two other classes, the
margin rings, each hinge term's value and the push (minus the gradient) it puts on each point.

Distances are squared Euclidean, as in ``fedquad_core.numerics.losses`` (the numbers here are tested to
equal ``fedquad_loss`` / ``chen_quadruplet_loss`` and their autograd gradients):

* FedQuad (Göksu & Pugeault 2025):  [d(a,p) - d(a,n1) + m1]_+  +  [d(a,p) - d(a,n2) + m2]_+
* Chen et al. 2017 ("Beyond triplet loss"): the second term is [d(a,p) - d(n1,n2) + m2]_+

A term is zero once its negative lies outside a ring of radius sqrt(d(a,p) + m) — around the
anchor for FedQuad's two terms and Chen's first, around n1 for Chen's second. Pure numpy/plotly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from app.figures.fit import fit
from app.figures.palette import class_colors

POINTS = ("a", "p", "n1", "n2")
NAMES = {"a": "anchor", "p": "positive", "n1": "negative 1", "n2": "negative 2"}
FORMS = {"fedquad": "FedQuad", "chen": "Chen et al. 2017"}
# Presets of point positions: each shows a different state of the two hinge terms at m1=1, m2=0.5.
PRESETS: dict[str, dict[str, tuple[float, float]]] = {
    "Both terms active": {"a": (0.0, 0.0), "p": (0.9, 0.4), "n1": (-0.6, 0.7), "n2": (0.3, -0.9)},
    "Collapsed (all close)": {"a": (0.0, 0.0), "p": (0.3, 0.1), "n1": (0.2, 0.3), "n2": (-0.2, 0.25)},
    "Only n2 too close": {"a": (0.0, 0.0), "p": (0.5, 0.0), "n1": (-1.6, 0.4), "n2": (0.2, -0.7)},
    "Separated (loss zero)": {"a": (0.0, 0.0), "p": (0.4, 0.2), "n1": (-1.5, 0.6), "n2": (0.9, -1.4)},
}
DEFAULT_PRESET = "Both terms active"
DEFAULT_M1, DEFAULT_M2 = 1.0, 0.5  # FedQuadParams' defaults (a test keeps them equal)


def d2(x, y) -> float:
    """Squared Euclidean distance, as ``losses.squared_distance``."""
    diff = np.asarray(x, float) - np.asarray(y, float)
    return float(diff @ diff)


@dataclass(frozen=True)
class Quadruplet:
    """Term values, the ring radii and the gradient of the whole loss on each point."""
    form: str
    terms: tuple[float, float]
    radii: tuple[float, float]            # where n1 / n2 must lie (in distance) for term 1 / 2 to be 0
    ring_centres: tuple[str, str]         # the point each ring is centred on
    grads: dict[str, np.ndarray]          # d loss / d point

    @property
    def loss(self) -> float:
        return self.terms[0] + self.terms[1]


def quadruplet(points: dict, m1: float, m2: float, form: str = "fedquad") -> Quadruplet:
    """Evaluate one quadruplet (``points`` maps a, p, n1, n2 to 2-D positions)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {sorted(FORMS)}, got {form!r}")
    a, p, n1, n2 = (np.asarray(points[k], float) for k in POINTS)
    d_ap = d2(a, p)
    h1 = d_ap - d2(a, n1) + m1
    second_ref = a if form == "fedquad" else n1
    h2 = d_ap - d2(second_ref, n2) + m2
    g = {k: np.zeros(2) for k in POINTS}
    if h1 > 0:  # d/d. of d(a,p) - d(a,n1); relu'(0) = 0 as in torch
        g["a"] += 2 * (a - p) - 2 * (a - n1)
        g["p"] += 2 * (p - a)
        g["n1"] += 2 * (a - n1)
    if h2 > 0:
        g["a"] += 2 * (a - p)
        g["p"] += 2 * (p - a)
        if form == "fedquad":  # - d(a, n2)
            g["a"] -= 2 * (a - n2)
            g["n2"] += 2 * (a - n2)
        else:                  # - d(n1, n2)
            g["n1"] -= 2 * (n1 - n2)
            g["n2"] += 2 * (n1 - n2)
    radii = (float(np.sqrt(max(d_ap + m1, 0.0))), float(np.sqrt(max(d_ap + m2, 0.0))))
    return Quadruplet(form, (max(h1, 0.0), max(h2, 0.0)), radii, ("a", "a" if form == "fedquad" else "n1"), g)


def term_sentences(q: Quadruplet, m1: float, m2: float) -> list[str]:
    """What the picture says, computed from the evaluated quadruplet."""
    second = "d(a,n2)" if q.form == "fedquad" else "d(n1,n2)"
    out = [f"{FORMS[q.form]}: term 1 = [d(a,p) − d(a,n1) + {m1:g}]₊ = {q.terms[0]:.3f}, "
           f"term 2 = [d(a,p) − {second} + {m2:g}]₊ = {q.terms[1]:.3f}, loss = {q.loss:.3f}."]
    for i, (t, who) in enumerate(zip(q.terms, ("n1", "n2")), start=1):
        centre = NAMES[q.ring_centres[i - 1]]
        if t > 0:
            out.append(f"Term {i} is active: {NAMES[who]} lies inside the ring of radius {q.radii[i - 1]:.2f} "
                       f"around the {centre}, so the loss pushes it out.")
        else:
            out.append(f"Term {i} is zero: {NAMES[who]} is outside its ring (radius {q.radii[i - 1]:.2f} "
                       f"around the {centre}).")
    return out


def _ring(centre, r: float, n: int = 121) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(0, 2 * np.pi, n)
    return centre[0] + r * np.cos(t), centre[1] + r * np.sin(t)


HEIGHT = 460  # px, before the look adds room for the title and legend


def quadruplet_figure(points: dict, m1: float, m2: float, form: str = "fedquad", *, title: str | None = None,
                      arrow_scale: float = 0.15, talk: bool = False) -> go.Figure:
    """The picture: the four points, the two margin rings (dashed), the push arrows (−gradient)."""
    q = quadruplet(points, m1, m2, form)
    pts = {k: np.asarray(points[k], float) for k in POINTS}
    colors = dict(zip(("a", "n1", "n2"), class_colors(3, talk)))
    colors["p"] = colors["a"]  # same class as the anchor
    fig = go.Figure()
    for i, (r, centre) in enumerate(zip(q.radii, q.ring_centres), start=1):
        x, y = _ring(pts[centre], r)
        who = "n1" if i == 1 else "n2"
        # talk mode: the ring's colour names its negative (a shorter legend keeps the plot on a projector's first screen)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"term {i} = 0 outside" + ("" if talk else f" ({NAMES[who]})"),
                                 line=dict(color=colors[who], dash="dash", width=2), hoverinfo="skip"))
    for k in POINTS:
        fig.add_trace(go.Scatter(
            x=[pts[k][0]], y=[pts[k][1]], mode="markers+text", name=NAMES[k], text=[k], textposition="top center",
            marker=dict(size=16, color=colors[k], symbol="star" if k == "a" else "circle",
                        line=dict(color="#000", width=1)), showlegend=False,
            hovertemplate=f"{NAMES[k]} (%{{x:.2f}}, %{{y:.2f}})<extra></extra>"))
    for k in POINTS:
        push = -q.grads[k] * arrow_scale
        if np.linalg.norm(push) < 1e-9:
            continue
        fig.add_annotation(x=pts[k][0] + push[0], y=pts[k][1] + push[1], ax=pts[k][0], ay=pts[k][1],
                           xref="x", yref="y", axref="x", ayref="y", showarrow=True, arrowhead=3,
                           arrowwidth=3 if talk else 2, arrowcolor="#333", text="")
    second = "d(a,n2)" if form == "fedquad" else "d(n1,n2)"
    # talk mode: the terms' values stand under the figure (term 1, term 2, loss) and need no title
    full = (f"{FORMS[form]} (2nd term: {second})" if talk else
            f"{FORMS[form]}: term 1 {q.terms[0]:.2f}, term 2 {q.terms[1]:.2f} (2nd term uses {second})")
    fig.update_layout(title=title or full, height=HEIGHT, showlegend=True)
    span = max(2.2, max(float(np.abs(v).max()) for v in pts.values()) + max(q.radii) * 0.3)
    fig.update_xaxes(range=[-span, span], zeroline=False)
    fig.update_yaxes(range=[-span, span], scaleanchor="x", scaleratio=1, zeroline=False)
    return fit(fig, talk)


def quadruplet_table(points: dict, m1: float, m2: float, form: str = "fedquad") -> list[dict]:
    """The figure's numbers as rows (point, x, y, gradient), for the CSV."""
    q = quadruplet(points, m1, m2, form)
    return [{"point": k, "x": float(points[k][0]), "y": float(points[k][1]), "grad_x": float(q.grads[k][0]),
             "grad_y": float(q.grads[k][1]), "term1": q.terms[0], "term2": q.terms[1], "m1": m1, "m2": m2,
             "form": form} for k in POINTS]
