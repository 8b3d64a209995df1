"""How the data is split over clients: the clients x classes count heatmap and client sizes.

Clients holding fewer than three classes are marked in both, since FedQuad's quadruplets need
three distinct classes and such clients fall back to a simpler local objective.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app.figures.fit import fit
from app.figures.palette import DEFAULT_HEIGHT

LT3_COLOR = "#D62728"
LT3_COLUMN = "< 3 classes"
LT3_TICK = "<3"  # the flag column's tick label (the legend entry says what it flags)
# White for an absent class only, so "how many classes does a client hold" reads at a glance; the
# fewest samples a client has of a class it holds start at a blue a projector still shows (the
# scale's range is 0 to the largest count, both set: plotly ignores a zmin set alone and started the
# scale at the smallest count, drawn white, so an IID partition's lowest cell looked empty).
COUNT_SCALE = [[0.0, "#FFFFFF"], [1e-9, "#C6DBEF"], [0.35, "#6BAED6"], [1.0, "#08306B"]]


def lt3_clients(counts: np.ndarray) -> np.ndarray:
    """Boolean mask of clients holding samples of fewer than three classes."""
    return (np.asarray(counts) > 0).sum(axis=1) < 3


def _mask(counts: np.ndarray, lt3_mask) -> np.ndarray:
    mask = lt3_clients(counts) if lt3_mask is None else np.asarray(lt3_mask, dtype=bool)
    if mask.shape != (counts.shape[0],):
        raise ValueError(f"lt3_mask has shape {mask.shape}, expected ({counts.shape[0]},)")
    return mask


def partition_heatmap(counts, *, class_names=None, lt3_mask=None, title: str = "", talk: bool = False) -> go.Figure:
    """Clients (rows, client 0 on top) x classes (columns); a red square column marks <3-class clients."""
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError(f"counts must be clients x classes, got shape {counts.shape}")
    n_clients, n_classes = counts.shape
    names = [str(c) for c in (class_names if class_names is not None else range(n_classes))]
    mask = _mask(counts, lt3_mask)
    fig = go.Figure(go.Heatmap(
        z=counts, x=names, y=np.arange(n_clients), colorscale=COUNT_SCALE, zmin=0,
        zmax=max(float(counts.max()) if counts.size else 1.0, 1.0),
        colorbar=dict(title=dict(text="samples", side="right"), thickness=14, nticks=4), xgap=0, ygap=0,
        hovertemplate="client %{y}<br>class %{x}<br>%{z} samples<extra></extra>", name="counts",
    ))
    flagged = np.flatnonzero(mask)
    fig.add_trace(go.Scatter(
        x=[LT3_COLUMN] * len(flagged), y=flagged, mode="markers", name=f"client with < 3 classes ({len(flagged)})",
        marker=dict(symbol="square", color=LT3_COLOR, size=max(4, min(12, 600 // max(n_clients, 1)))),
        customdata=(counts[flagged] > 0).sum(axis=1),
        hovertemplate="client %{y}: only %{customdata} class(es)<extra></extra>",
    ))
    fig.update_xaxes(title_text="class", type="category", categoryorder="array",
                     categoryarray=names + [LT3_COLUMN], showgrid=False,  # the flag column's tick short: "<3"
                     tickmode="array", tickvals=names + [LT3_COLUMN], ticktext=names + [LT3_TICK],
                     # on the projector a column of two figures with the sidebar open gives ten classes
                     # about 20 px each: talk's 20 px ticks would touch, 15 px ones keep apart upright
                     tickfont=dict(size=15) if talk and n_classes >= 8 else None)
    fig.update_yaxes(title_text="client", autorange="reversed", showgrid=False, zeroline=False)
    # on the projector at least a talk figure's height: the title, ticks and axis titles take their
    # room first, and 10 clients' rows would get under 100 px of the 320 (no legend is drawn or kept
    # room for: a heatmap is no legend entry, and the flag trace alone gets none)
    fig.update_layout(title=title or None, height=int(np.clip(8 * n_clients + 160, DEFAULT_HEIGHT[True] if talk else 320, 900)))
    return fit(fig, talk)


def client_sizes_figure(counts, lt3_mask=None, *, talk: bool = False) -> go.Figure:
    """Sample count per client; clients with fewer than three classes in red with their own legend entry.

    ``counts`` is clients x classes (or a 1-D array of sizes, then ``lt3_mask`` is needed to mark clients).
    """
    counts = np.asarray(counts)
    if counts.ndim == 1:
        sizes, n_cls = counts, np.full(counts.shape, -1)
        mask = np.zeros(counts.shape, bool) if lt3_mask is None else np.asarray(lt3_mask, dtype=bool)
    else:
        sizes, n_cls, mask = counts.sum(axis=1), (counts > 0).sum(axis=1), _mask(counts, lt3_mask)
    clients = np.arange(len(sizes))
    fig = go.Figure()
    for name, sel, color in (("≥ 3 classes", ~mask, "#7F8C9A"), ("< 3 classes", mask, LT3_COLOR)):
        fig.add_trace(go.Bar(
            x=clients[sel], y=sizes[sel], name=f"{name} ({int(sel.sum())})", marker_color=color,
            customdata=n_cls[sel], hovertemplate="client %{x}<br>%{y} samples<br>%{customdata} classes<extra></extra>",
        ))
    fig.update_layout(barmode="overlay", bargap=0.1)
    fig.update_xaxes(title_text="client")
    fig.update_yaxes(title_text="samples")
    return fit(fig, talk)
