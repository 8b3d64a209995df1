"""Views of the embedding geometry (see REFERENCE.md, "Geometry"): a 2-D projection coloured by
class, the class-pair CDNV matrix (Galanti et al.), the sorted covariance spectrum (FedDecorr,
Shi et al. 2023) and the per-class spread.

The 2-D scatter is only a picture: its coordinates carry no units, so it has no ticks; the
numbers live in the other three views, computed in the original feature space.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app.figures.fit import FIT_WIDTH, fit
from app.figures.palette import DASHES, PATTERNS, class_colors, run_styles

CDNV_LOG_RANGE = (-3.0, 2.0)  # fallback log10 range (0.001-100) when there is nothing to fit
CDNV_HEIGHT = 430


def _names(n: int, class_names) -> list[str]:
    return [str(c) for c in class_names] if class_names is not None else [str(i) for i in range(n)]


def tick_angle(names: list[str]) -> int:
    """Class names as x tick labels: upright when they are words (Fashion-MNIST's "T-shirt/top"),
    so neighbours never overlap, level for digits."""
    return -90 if max((len(n) for n in names), default=0) > 3 else 0


def embedding_scatter(xy, labels, class_names=None, *, title: str = "", talk: bool = False, legend: bool = True,
                      fit_width: int | None = None) -> go.Figure:
    """One marker trace per class (legend = class names), equal aspect, no axis ticks. In a grid
    of such panels the page shows one colour key instead (``legend=False``) and says how wide
    each panel is (``fit_width``, px) so its title is broken to fit."""
    xy, labels = np.asarray(xy, dtype=float), np.asarray(labels).ravel()
    if xy.ndim != 2 or xy.shape[1] != 2 or len(xy) != len(labels):
        raise ValueError(f"xy must be (n, 2) with one label per row, got {xy.shape} and {labels.shape}")
    classes = np.unique(labels)
    n_names = len(class_names) if class_names is not None else int(classes.max(initial=-1)) + 1
    names = _names(max(n_names, len(classes)), class_names)
    colors = class_colors(len(names), talk)
    trace_type = "scattergl" if len(xy) > 5000 else "scatter"
    traces = []
    for c in classes:
        sel = labels == c
        idx = int(c) if np.issubdtype(classes.dtype, np.integer) and 0 <= c < len(names) else None
        name = names[idx] if idx is not None else str(c)
        marker = dict(size=5, opacity=0.8, **({"color": colors[idx]} if idx is not None else {}))
        traces.append(dict(type=trace_type, x=xy[sel, 0], y=xy[sel, 1], mode="markers", name=name, marker=marker,
                           hovertemplate=f"{name}<extra></extra>"))
    axis = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="", showline=False)
    layout = dict(xaxis=dict(axis), yaxis=dict(scaleanchor="x", scaleratio=1, **axis),
                  legend=dict(title=dict(text="class"), itemsizing="constant"),
                  **({"title": {"text": title}} if title else {}), **({FIT_WIDTH: fit_width} if fit_width else {}))
    if not legend:
        layout["showlegend"] = False
        for t in traces:
            t["showlegend"] = False
    # talk mode draws ticks; a projection has no units to tick
    return fit((traces, layout), talk, overrides=dict(xaxis=axis, yaxis=axis))


def _offdiag_positive(cdnv) -> np.ndarray:
    m = np.array(cdnv, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"cdnv must be a square class x class matrix, got {m.shape}")
    v = m[~np.eye(len(m), dtype=bool)]
    return v[np.isfinite(v) & (v > 0)]


def cdnv_log_range(*matrices, lo_pct: float = 2.0, hi_pct: float = 98.0) -> tuple[float, float]:
    """log10 colour range fitted to the data: the 2nd-98th percentile of the off-diagonal finite
    positive values of all ``matrices`` together (pass every matrix shown side by side, so their
    colours compare), widened to at least half a decade. Falls back to ``CDNV_LOG_RANGE``."""
    vals = np.concatenate([_offdiag_positive(m) for m in matrices]) if matrices else np.array([])
    if vals.size == 0:
        return CDNV_LOG_RANGE
    lo, hi = np.percentile(np.log10(vals), [lo_pct, hi_pct])
    mid, half = (lo + hi) / 2, max((hi - lo) / 2, 0.25)
    return float(mid - half), float(mid + half)


def _log_ticks(lo: float, hi: float) -> np.ndarray:
    """1-2-5 tick values (log10) inside [lo, hi]; at least the two ends."""
    ticks = [np.log10(m * 10.0 ** e) for e in range(int(np.floor(lo)) - 1, int(np.ceil(hi)) + 1)
             for m in (1, 2, 5)]
    ticks = np.array([t for t in ticks if lo - 1e-9 <= t <= hi + 1e-9])
    if len(ticks) < 4:  # a narrow range: 1-1.5-2-3-5-7 steps
        ticks = [np.log10(m * 10.0 ** e) for e in range(int(np.floor(lo)) - 1, int(np.ceil(hi)) + 1)
                 for m in (1, 1.5, 2, 3, 5, 7)]
        ticks = np.array([t for t in ticks if lo - 1e-9 <= t <= hi + 1e-9])
    return ticks if len(ticks) >= 2 else np.array([lo, hi])


def cdnv_heatmap(cdnv, class_names=None, *, title: str = "", zrange: tuple[float, float] | None = None,
                 talk: bool = False) -> go.Figure:
    """Class x class CDNV on a log10 colour scale, diagonal left blank.

    The colour range is ``zrange`` (log10; pass ``cdnv_log_range(a, b)`` to compare two heatmaps on
    one scale) or else fitted to this matrix; values beyond it are clipped. Cells are square and the
    figure is sized for a half-width column.
    """
    cdnv = np.array(cdnv, dtype=float)
    _offdiag_positive(cdnv)  # shape check
    np.fill_diagonal(cdnv, np.nan)
    cdnv[~(cdnv > 0)] = np.nan  # zero / negative / nan: nothing to show on a log scale
    lo, hi = zrange if zrange is not None else cdnv_log_range(cdnv)
    names = _names(len(cdnv), class_names)
    ticks = _log_ticks(lo, hi)
    fig = go.Figure(go.Heatmap(
        z=np.clip(np.log10(cdnv), lo, hi), x=names, y=names, customdata=cdnv, zmin=lo, zmax=hi,
        colorscale="Viridis", hoverongaps=False, xgap=1, ygap=1,
        colorbar=dict(title=dict(text="CDNV"), tickvals=ticks, ticktext=[f"{10.0 ** t:.2g}" for t in ticks],
                      thickness=14, len=0.9),
        hovertemplate="%{y} vs %{x}<br>CDNV %{customdata:.3g}<extra></extra>",
    ))
    fig.update_xaxes(title_text="class", type="category", showgrid=False, constrain="domain", tickangle=tick_angle(names))
    fig.update_yaxes(title_text="class", type="category", autorange="reversed", scaleanchor="x",
                     showgrid=False, constrain="domain")
    fig.update_layout(title=title or None, height=CDNV_HEIGHT + (60 if talk else 0))
    fit(fig, talk)
    fig.update_layout(margin=dict(l=60, r=10, b=50))
    return fig


def _series_styles(labels, colors, methods, talk: bool) -> dict[str, tuple[str, int]]:
    """(colour, variant) per series: an explicit colour, else its run's method colour (variant
    counts earlier series of the same method), else a class-palette colour."""
    labels = list(labels)
    palette = class_colors(max(len(labels), 10), talk)
    methods = methods or {}
    by_method = dict(zip([lab for lab in labels if lab in methods],
                         run_styles([methods[lab] for lab in labels if lab in methods], talk)))
    out = {}
    for i, lab in enumerate(labels):
        if (colors or {}).get(lab):
            out[lab] = (colors[lab], by_method.get(lab, ("", 0))[1])
        elif lab in by_method:
            out[lab] = by_method[lab]
        else:
            out[lab] = (palette[i % len(palette)], 0)
    return out


def spectrum_figure(series: dict[str, np.ndarray], *, methods: dict[str, str] | None = None,
                    colors: dict[str, str] | None = None, title: str = "", talk: bool = False) -> go.Figure:
    """Singular values of the embedding covariance, sorted descending, on a log y axis.

    ``methods`` maps a series label to its run's method, which gives the line colour (as on every
    other page); runs sharing a method differ in dash. ``colors`` overrides per label.
    """
    styles = _series_styles(series, colors, methods, talk)
    traces = []
    for label, s in series.items():
        s = np.sort(np.asarray(s, dtype=float).ravel())[::-1]
        s = np.where(s > 0, s, np.nan)  # log axis: zeros cannot be drawn
        color, variant = styles[label]
        traces.append(dict(
            type="scatter", x=np.arange(1, len(s) + 1), y=s, mode="lines", name=str(label), connectgaps=False,
            line=dict(color=color, width=2.5, dash=DASHES[variant % len(DASHES)]),
            hovertemplate=f"{label}<br>component %{{x}}<br>σ %{{y:.3g}}<extra></extra>",
        ))
    layout = dict(xaxis=dict(title=dict(text="component (sorted)")),
                  yaxis=dict(title=dict(text="singular value"), type="log", exponentformat="power"),
                  **({"title": {"text": title}} if title else {}))
    return fit((traces, layout), talk)


def per_class_intra_figure(series: dict[str, np.ndarray], class_names=None, *,
                           methods: dict[str, str] | None = None, colors: dict[str, str] | None = None,
                           talk: bool = False) -> go.Figure:
    """Grouped bars: for each class, each series' mean distance of samples to their class mean.

    Colours as in ``spectrum_figure``; runs sharing a method differ in bar pattern.
    """
    styles = _series_styles(series, colors, methods, talk)
    n = max((len(np.ravel(v)) for v in series.values()), default=0)
    names = _names(n, class_names)
    fig = go.Figure()
    for label, values in series.items():
        values = np.asarray(values, dtype=float).ravel()
        color, variant = styles[label]
        fig.add_trace(go.Bar(
            x=names[:len(values)], y=values, name=str(label), marker_color=color,
            marker_pattern_shape=PATTERNS[variant % len(PATTERNS)],
            hovertemplate=f"{label}<br>class %{{x}}<br>%{{y:.3g}}<extra></extra>",
        ))
    fig.update_layout(barmode="group", bargap=0.2, bargroupgap=0.05)
    fig.update_xaxes(title_text="class", type="category", tickangle=tick_angle(names))
    fig.update_yaxes(title_text="mean distance to class mean")
    return fit(fig, talk)


__all__ = ["embedding_scatter", "cdnv_heatmap", "cdnv_log_range", "spectrum_figure", "per_class_intra_figure"]
