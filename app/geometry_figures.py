"""Views of the embedding geometry (see REFERENCE.md, "Geometry"): a 2-D projection coloured by
class, the class-pair CDNV matrix (Galanti et al.), the sorted covariance spectrum (FedDecorr,
Shi et al. 2023) and the per-class spread.

The 2-D scatter is only a picture: its coordinates carry no units, so it has no ticks; the
numbers live in the other three views, computed in the original feature space.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app.theme import apply_theme, class_colors

CDNV_LOG_RANGE = (-3.0, 2.0)  # log10 CDNV shown between 0.001 and 100; beyond is clipped


def _names(n: int, class_names) -> list[str]:
    return [str(c) for c in class_names] if class_names is not None else [str(i) for i in range(n)]


def embedding_scatter(xy, labels, class_names=None, *, title: str = "", talk: bool = False) -> go.Figure:
    """One marker trace per class (legend = class names), equal aspect, no axis ticks."""
    xy, labels = np.asarray(xy, dtype=float), np.asarray(labels).ravel()
    if xy.ndim != 2 or xy.shape[1] != 2 or len(xy) != len(labels):
        raise ValueError(f"xy must be (n, 2) with one label per row, got {xy.shape} and {labels.shape}")
    classes = np.unique(labels)
    n_names = len(class_names) if class_names is not None else int(classes.max(initial=-1)) + 1
    names = _names(max(n_names, len(classes)), class_names)
    colors = class_colors(len(names), talk)
    trace_cls = go.Scattergl if len(xy) > 5000 else go.Scatter
    fig = go.Figure()
    for c in classes:
        sel = labels == c
        idx = int(c) if np.issubdtype(classes.dtype, np.integer) and 0 <= c < len(names) else None
        name = names[idx] if idx is not None else str(c)
        fig.add_trace(trace_cls(
            x=xy[sel, 0], y=xy[sel, 1], mode="markers", name=name,
            marker=dict(size=5, opacity=0.8, color=colors[idx] if idx is not None else None),
            hovertemplate=f"{name}<extra></extra>",
        ))
    axis = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="", title_text=None, showline=False)
    fig.update_xaxes(**axis)
    fig.update_yaxes(scaleanchor="x", scaleratio=1, **axis)
    fig.update_layout(title=title or None, legend=dict(title_text="class", itemsizing="constant"))
    return apply_theme(fig, talk)


def cdnv_heatmap(cdnv, class_names=None, *, title: str = "", talk: bool = False) -> go.Figure:
    """Class x class CDNV on a log10 colour scale (clipped to 0.001-100), diagonal left blank."""
    cdnv = np.array(cdnv, dtype=float)
    if cdnv.ndim != 2 or cdnv.shape[0] != cdnv.shape[1]:
        raise ValueError(f"cdnv must be a square class x class matrix, got {cdnv.shape}")
    np.fill_diagonal(cdnv, np.nan)
    cdnv[~(cdnv > 0)] = np.nan  # zero / negative / nan: nothing to show on a log scale
    lo, hi = CDNV_LOG_RANGE
    names = _names(len(cdnv), class_names)
    ticks = np.arange(lo, hi + 1)
    fig = go.Figure(go.Heatmap(
        z=np.clip(np.log10(cdnv), lo, hi), x=names, y=names, customdata=cdnv, zmin=lo, zmax=hi,
        colorscale="Viridis", hoverongaps=False,
        colorbar=dict(title=dict(text="CDNV"), tickvals=ticks, ticktext=[f"{10.0 ** t:g}" for t in ticks]),
        hovertemplate="%{y} vs %{x}<br>CDNV %{customdata:.3g}<extra></extra>",
    ))
    fig.update_xaxes(title_text="class", type="category", showgrid=False)
    fig.update_yaxes(title_text="class", type="category", autorange="reversed", scaleanchor="x", showgrid=False)
    fig.update_layout(title=title or None)
    return apply_theme(fig, talk)


def _series_colors(labels, colors, talk: bool) -> dict[str, str]:
    palette = class_colors(10, talk) if len(labels) <= 10 else class_colors(len(labels), talk)
    return {lab: (colors or {}).get(lab) or palette[i % len(palette)] for i, lab in enumerate(labels)}


def spectrum_figure(series: dict[str, np.ndarray], *, colors: dict[str, str] | None = None,
                    talk: bool = False) -> go.Figure:
    """Singular values of the embedding covariance, sorted descending, on a log y axis."""
    cmap = _series_colors(list(series), colors, talk)
    fig = go.Figure()
    for label, s in series.items():
        s = np.sort(np.asarray(s, dtype=float).ravel())[::-1]
        s = np.where(s > 0, s, np.nan)  # log axis: zeros cannot be drawn
        fig.add_trace(go.Scatter(
            x=np.arange(1, len(s) + 1), y=s, mode="lines", name=str(label), connectgaps=False,
            line=dict(color=cmap[label], width=2.5),
            hovertemplate=f"{label}<br>component %{{x}}<br>σ %{{y:.3g}}<extra></extra>",
        ))
    fig.update_xaxes(title_text="component (sorted)")
    fig.update_yaxes(title_text="singular value", type="log", exponentformat="power")
    return apply_theme(fig, talk)


def per_class_intra_figure(series: dict[str, np.ndarray], class_names=None, *,
                           colors: dict[str, str] | None = None, talk: bool = False) -> go.Figure:
    """Grouped bars: for each class, each series' mean distance of samples to their class mean."""
    cmap = _series_colors(list(series), colors, talk)
    n = max((len(np.ravel(v)) for v in series.values()), default=0)
    names = _names(n, class_names)
    fig = go.Figure()
    for label, values in series.items():
        values = np.asarray(values, dtype=float).ravel()
        fig.add_trace(go.Bar(
            x=names[:len(values)], y=values, name=str(label), marker_color=cmap[label],
            hovertemplate=f"{label}<br>class %{{x}}<br>%{{y:.3g}}<extra></extra>",
        ))
    fig.update_layout(barmode="group", bargap=0.2, bargroupgap=0.05)
    fig.update_xaxes(title_text="class", type="category")
    fig.update_yaxes(title_text="mean distance to class mean")
    return apply_theme(fig, talk)


__all__ = ["embedding_scatter", "cdnv_heatmap", "spectrum_figure", "per_class_intra_figure"]
