"""A metric against test accuracy: the honest picture of "less trained or collapsed". Each group
(e.g. FedAvg at α 0.1 and FedAvg under IID) is a line of the mean over seeds with a ± 1 std band,
each run's snapshot curve interpolated at common accuracy levels (``engine.stats.accuracy_profile``):
at the same accuracy, a lower line uses fewer directions; a gap at the same round that closes
here was slower training, not collapse."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.colors as pc
import plotly.graph_objects as go

from app.figures.fit import fit
from app.figures.palette import DASHES, method_color


def _rgba(color: str, alpha: float) -> str:
    r, g, b = pc.hex_to_rgb(color) if color.startswith("#") else pc.unlabel_rgb(color)
    return f"rgba({int(r)},{int(g)},{int(b)},{alpha})"


def profile_frame(rows: list[dict]) -> pd.DataFrame:
    """``engine.stats.accuracy_profile`` rows as a frame (accuracy in percent), rows without a value dropped."""
    df = pd.DataFrame(rows, columns=["group", "accuracy", "mean", "std", "n"])
    df = df[df["n"] > 0].copy()
    df["accuracy"] = df["accuracy"] * 100.0
    return df


def metric_vs_accuracy_figure(df: pd.DataFrame, y_title: str, title: str, methods: dict[str, str] | None = None,
                              talk: bool = False) -> go.Figure:
    """One line (mean over seeds) and ± 1 std band per group of ``df`` (``profile_frame``) against
    test accuracy; ``methods``: group -> method name, for the method's colour (groups of one
    method differ by dash)."""
    fig = go.Figure()
    seen: dict[str, int] = {}
    for group in dict.fromkeys(df["group"]):
        g = df[df["group"] == group].sort_values("accuracy")
        method = (methods or {}).get(group, group)
        color = method_color(method, talk)
        dash = DASHES[seen.get(method, 0) % len(DASHES)]
        seen[method] = seen.get(method, 0) + 1
        x, m = g["accuracy"].to_numpy(float), g["mean"].to_numpy(float)
        sd = np.nan_to_num(g["std"].to_numpy(float))
        fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[m + sd, (m - sd)[::-1]], fill="toself", mode="lines",
                                 line=dict(width=0), fillcolor=_rgba(color, 0.18), hoverinfo="skip",
                                 showlegend=False, legendgroup=group, meta=["band", group]))
        fig.add_trace(go.Scatter(x=x, y=m, mode="lines+markers", name=f"{group} (n = {int(g['n'].min())})",
                                 line=dict(color=color, dash=dash), legendgroup=group, meta=["mean", group]))
    fig.update_layout(title=title, xaxis_title="test accuracy (%)", yaxis_title=y_title)
    return fit(fig, talk)
