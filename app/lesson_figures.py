"""Figures the lesson needs beyond the pages' own: a metric against alpha per method with a
mean ± std band over seeds, and a class-coloured embedding animated over snapshot rounds.

(Interim: the Explore page's ``app/study_figures.py`` owns response plots with seed bands; until
it is on this branch the lesson uses these, written in the same spirit: pure data in, figure out.)
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures import Y_TITLES
from app.geometry_figures import embedding_scatter
from app.theme import method_color, apply_theme


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def response_figure(table: pd.DataFrame, metric: str, *, labels: dict[str, str] | None = None, title: str = "",
                    talk: bool = False) -> go.Figure:
    """``table``: rows (method, x, mean, std, n) in x order; one line per method, band = mean ± std."""
    fig = go.Figure()
    for method, part in table.groupby("method", sort=False):
        color = method_color(method, talk)
        x, mean, std = part["x"].tolist(), part["mean"].to_numpy(float), np.nan_to_num(part["std"].to_numpy(float))
        name = (labels or {}).get(method, method)
        fig.add_trace(go.Scatter(x=x + x[::-1], y=np.concatenate([mean + std, (mean - std)[::-1]]), fill="toself",
                                 fillcolor=_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, legendgroup=method, name=f"{name} ± std"))
        fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=name, legendgroup=method,
                                 line=dict(color=color, width=2.5), marker=dict(size=7),
                                 customdata=np.stack([std, part["n"].to_numpy(float)], axis=1),
                                 hovertemplate="%{x}: %{y:.4g} ± %{customdata[0]:.2g} (n=%{customdata[1]})"
                                               "<extra>" + name + "</extra>"))
    fig.update_layout(title=title or None)
    fig.update_xaxes(title_text="label skew (Dirichlet α; smaller = stronger skew)", type="category")
    fig.update_yaxes(title_text=Y_TITLES.get(metric, metric.replace("_", " ")))
    if metric in ("test_accuracy", "final_acc"):
        fig.update_yaxes(tickformat=".0%")
    return apply_theme(fig, talk)


def animated_embedding(frames: dict[int, np.ndarray], labels, class_names=None, *, title: str = "",
                       talk: bool = False) -> go.Figure:
    """The last round's picture, with a play button and a round slider stepping through ``frames``
    (positions per snapshot round, already aligned so points do not jump)."""
    rounds = sorted(frames)
    labels = np.asarray(labels).ravel()
    fig = embedding_scatter(frames[rounds[-1]], labels, class_names, title=title, talk=talk)
    if len(rounds) < 2:
        return fig
    classes = np.unique(labels)
    all_xy = np.concatenate([frames[r] for r in rounds])
    pad = 0.05 * (all_xy.max(axis=0) - all_xy.min(axis=0) + 1e-9)
    fig.update_xaxes(range=[all_xy[:, 0].min() - pad[0], all_xy[:, 0].max() + pad[0]], autorange=False)
    fig.update_yaxes(range=[all_xy[:, 1].min() - pad[1], all_xy[:, 1].max() + pad[1]], autorange=False)
    fig.frames = [go.Frame(name=str(r), data=[go.Scatter(x=frames[r][labels == c, 0], y=frames[r][labels == c, 1])
                                              for c in classes]) for r in rounds]
    step = dict(frame=dict(duration=700, redraw=True), transition=dict(duration=300), mode="immediate")
    fig.update_layout(
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.02, xanchor="left", yanchor="top",
                          buttons=[dict(label="▶ play", method="animate", args=[None, {**step, "fromcurrent": False}])])],
        sliders=[dict(active=len(rounds) - 1, x=0.12, y=-0.02, len=0.88, yanchor="top",
                      currentvalue=dict(prefix="round "),
                      steps=[dict(label=str(r), method="animate", args=[[str(r)], step]) for r in rounds])],
    )
    fig.update_layout(margin=dict(b=90))
    return fig
