"""Figures of the Clients page (each client's local model, docs/clients.md): the measured clients
as points (classes held against a local metric), one client's class histogram and its metrics
over rounds, its local embeddings next to the global model's, and the update-cosine matrix.
Pure builders: pandas / numpy in, a themed ``plotly`` Figure out."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.colors as pc
import plotly.graph_objects as go

from fedquad_core import api as engine
from app.figures.geometry import embedding_scatter, tick_angle
from app.figures.fit import fit, percent_format
from app.figures.palette import method_color

TITLES = engine.words.metric_names("title")  # the local measures' names here, from the one vocabulary
VIEWS = {"accuracy": ("local_acc_all", "local_acc_own"), "rank": ("local_effective_rank",),
         "cka": ("local_cka",), "ratio": ("local_ratio",)}
VIEW_LABELS = {"accuracy": "Accuracy", "rank": "Effective rank", "cka": "CKA to global", "ratio": "Intra / inter"}
COSINE_SCALE = pc.get_colorscale("RdBu_r")  # written out: plotly.js knows no "_r" names, and the figure is unvalidated
SYMBOLS = {"local_acc_all": "circle", "local_acc_own": "diamond-open"}


def _label(method: str) -> str:
    return engine.words.method_label(method)  # the method's own file's label (an unknown name as it is)


def value_range(values, top: float | None = None) -> list[float] | None:
    """The y range shared by the population figures: the values padded by 8 % of their span, but
    never past ``top`` (accuracy: 1.0, so the axis does not read "102%"; the figure draws its
    markers unclipped, so a client at 100 % still shows whole)."""
    v = np.asarray(pd.to_numeric(pd.Series(list(values)), errors="coerce").dropna(), dtype=float)
    if not v.size:
        return None
    lo, hi = float(v.min()), float(v.max())
    pad = max((hi - lo) * 0.08, 0.02 * max(abs(hi), 1e-9))
    return [lo - pad, hi + pad if top is None else max(min(hi + pad, top), lo)]


def population_figure(df: pd.DataFrame, method: str, view: str, *, yrange=None, n_classes: int = 10,
                      round_: int | None = None, talk: bool = False) -> go.Figure:
    """One point per measured client of ``method``: classes held (x, jittered a little) against
    the metrics of ``view`` (accuracy: all classes filled, own classes open)."""
    rows = df[df["method"] == method]
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.12, 0.12, len(rows))
    traces = []
    for metric in VIEWS[view]:
        opacity = 1.0 if metric != "local_acc_own" else 0.9
        traces.append(dict(type="scatter", mode="markers", name=TITLES[metric], x=rows["classes"].to_numpy(dtype=float) + jitter,
                           y=rows[metric].to_numpy(dtype=float),
                           customdata=np.stack([rows["client"].to_numpy(), rows["samples"].to_numpy()], axis=1),
                           cliponaxis=False,  # a client at the range's edge (100 %) drawn whole
                           marker=dict(size=11, symbol=SYMBOLS.get(metric, "circle"), opacity=opacity,
                                       color=method_color(method, talk), line=dict(width=1.5)),
                           hovertemplate="client %{customdata[0]} (%{customdata[1]} samples)<br>"
                                         f"{TITLES[metric]}: %{{y:{'.1%' if metric.startswith('local_acc') else '.3g'}}}<extra></extra>"))
    y_title = "local accuracy" if view == "accuracy" else TITLES[VIEWS[view][0]]
    when = f", round {round_}" if round_ is not None else ""
    layout = dict(title=dict(text=f"{_label(method)}{when}: clients"),
                  xaxis=dict(title=dict(text=f"classes held (each ≥ {100 * engine.stats.hold_share(n_classes):.3g} % of its data)"), range=[0.5, n_classes + 0.5], dtick=1),
                  yaxis=dict(title=dict(text=y_title), **({"range": yrange} if yrange else {}),
                             **({"tickformat": percent_format(traces, yrange)} if view == "accuracy" else {})),
                  showlegend=view == "accuracy")
    return fit((traces, layout), talk)


def class_histogram(counts, class_names, client: int, *, talk: bool = False) -> go.Figure:
    counts = np.asarray(counts, dtype=int)
    trace = dict(type="bar", x=list(class_names), y=counts.tolist(), marker=dict(color="#7F7F7F"),
                 hovertemplate="class %{x}: %{y} samples<extra></extra>")
    layout = dict(title=dict(text=f"Client {client}: its training samples per class"),
                  xaxis=dict(title=dict(text="class"), type="category", tickangle=tick_angle(list(class_names))),
                  yaxis=dict(title=dict(text="samples")))
    return fit(([trace], layout), talk)


def embedding_panel(xy, labels, class_names, *, title: str, ranges, talk: bool = False) -> go.Figure:
    """``embedding_scatter`` with fixed axis ranges, so the global and the local panels share one frame."""
    fig = embedding_scatter(xy, labels, class_names, title=title, talk=talk)
    fig.update_layout(xaxis_range=ranges[0], yaxis_range=ranges[1])
    return fig


def frame_ranges(*xys) -> tuple[list[float], list[float]]:
    both = np.concatenate([np.asarray(xy, dtype=float) for xy in xys])
    lo, hi = both.min(axis=0), both.max(axis=0)
    pad = (hi - lo) * 0.05 + 1e-9
    return [float(lo[0] - pad[0]), float(hi[0] + pad[0])], [float(lo[1] - pad[1]), float(hi[1] + pad[1])]


def client_history_figure(hist: pd.DataFrame, metric: str, client: int, *, talk: bool = False) -> go.Figure:
    """The client's ``metric`` at the rounds it was measured (solid, per method) and the mean over
    the measured clients of those rounds (dotted)."""
    traces = []
    for method, rows in hist.groupby("method", sort=False):
        rows = rows.sort_values("round")
        color = method_color(method, talk)
        traces.append(dict(type="scatter", mode="lines+markers", name=f"{_label(method)}, client {client}",
                           x=rows["round"].to_numpy(), y=rows[metric].to_numpy(dtype=float), line=dict(color=color),
                           marker=dict(size=9, color=color)))
        traces.append(dict(type="scatter", mode="lines", name=f"{_label(method)}, mean of measured",
                           x=rows["round"].to_numpy(), y=rows[f"mean_{metric}"].to_numpy(dtype=float),
                           line=dict(color=color, dash="dot")))
    layout = dict(title=dict(text=f"Client {client}: {TITLES[metric]} over rounds"),
                  xaxis=dict(title=dict(text="round")),
                  yaxis=dict(title=dict(text=TITLES[metric]),
                             **({"tickformat": percent_format(traces)} if metric.startswith("local_acc") else {})))
    return fit((traces, layout), talk)


def cosine_heatmap(matrix, clients, method: str, round_: int, *, talk: bool = False) -> go.Figure:
    """Cosine between every two measured clients' weight updates of one round, on -1 … 1."""
    names = [str(c) for c in clients]
    trace = dict(type="heatmap", z=np.asarray(matrix, dtype=float), x=names, y=names, zmin=-1, zmax=1,
                 colorscale=COSINE_SCALE, zmid=0, colorbar=dict(title=dict(text="cosine")),
                 hovertemplate="clients %{y} and %{x}: %{z:.2f}<extra></extra>")
    layout = dict(title=dict(text=f"{_label(method)}: update cosines"),
                  xaxis=dict(title=dict(text="client"), type="category"),
                  yaxis=dict(title=dict(text="client"), type="category", autorange="reversed", scaleanchor="x"))
    return fit(([trace], layout), talk)
