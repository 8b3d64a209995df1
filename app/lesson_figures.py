"""The one figure the lesson needs beyond the other pages' (``figures``, ``study_figures``): a
class-coloured embedding animated over snapshot rounds (play button and round slider)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app.geometry_figures import embedding_scatter


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
                      currentvalue=dict(prefix="round ", xanchor="right"),
                      steps=[dict(label=str(r), method="animate", args=[[str(r)], step]) for r in rounds])],
    )
    fig.update_layout(margin=dict(b=90))
    return fig
