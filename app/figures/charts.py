"""Figures the dashboard pages draw: learning curves here, partition and geometry views in
``partition_figures`` and ``geometry_figures`` (re-exported, so pages import from one place).

Every builder is pure (data in, ``plotly.graph_objects.Figure`` out) and takes ``talk`` for the
presentation look of ``app.figures.fit``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from fedquad_core import api as engine
from app.figures.geometry import (cdnv_heatmap, cdnv_log_range, embedding_scatter, per_class_intra_figure,
                                   spectrum_figure)
from app.figures.partition import client_sizes_figure, partition_heatmap
from app.figures.fit import fit
from app.figures.palette import DASHES, run_styles

__all__ = [
    "effective_rank_note", "curves_figure", "metrics_frame", "partition_heatmap", "client_sizes_figure", "embedding_scatter",
    "cdnv_heatmap", "cdnv_log_range", "spectrum_figure", "per_class_intra_figure", "X_TITLES", "Y_TITLES",
]

X_TITLES = {"round": "round", "samples_total": "samples processed", "elapsed": "wall time (s)"}
Y_TITLES = engine.words.metric_names("chart")  # from the one vocabulary (a chart's title says which ratio)
BASE_COLUMNS = ("run", "label", "method", "round", "samples_total", "elapsed")


def metrics_frame(rows_by_run: dict[str, list[dict]], meta: dict[str, dict]) -> pd.DataFrame:
    """Long table (one row per run and round) from the metrics.jsonl rows of several runs.

    ``meta[run]`` gives ``label`` and ``method``; missing metrics become NaN.
    """
    records = []
    for run, rows in rows_by_run.items():
        info = meta.get(run, {})
        ident = {"run": run, "label": info.get("label") or run, "method": info.get("method") or "unknown"}
        # a row's per-client list ("local") is no per-round number: it stays out of the table
        records.extend({**{k: v for k, v in row.items() if k != "local"}, **ident} for row in rows)
    df = pd.DataFrame.from_records(records)
    for col in BASE_COLUMNS:
        if col not in df.columns:
            df[col] = pd.Series(dtype=object if col in ("run", "label", "method") else float)
    for col in df.columns:
        if col not in ("run", "label", "method") and df[col].dtype == object:
            converted = pd.to_numeric(df[col], errors="coerce")
            if converted.notna().sum() == df[col].notna().sum():
                df[col] = converted
    return df[list(BASE_COLUMNS) + [c for c in df.columns if c not in BASE_COLUMNS]]


def curves_figure(df: pd.DataFrame, y: str, x: str = "round", *, title: str = "", talk: bool = False,
                  height: int | None = None) -> go.Figure:
    """One line per run, coloured by its method (runs sharing a method differ in dash); ``height``:
    the figure's, else the look's default."""
    if x not in X_TITLES:
        raise ValueError(f"x must be one of {sorted(X_TITLES)}, got {x!r}")
    fig = go.Figure()
    percent = y == "test_accuracy" and _is_fraction(df.get(y))
    groups = list(df.groupby("run", sort=False))
    styles = run_styles([str(part["method"].iloc[0]) for _, part in groups], talk)
    for (run, part), (color, variant) in zip(groups, styles):
        method = str(part["method"].iloc[0])
        dash = DASHES[variant % len(DASHES)]
        values = part[y] if y in part else pd.Series(np.nan, index=part.index)
        pts = pd.DataFrame({"x": pd.to_numeric(part[x], errors="coerce"),
                            "y": pd.to_numeric(values, errors="coerce")}).dropna().sort_values("x")
        fig.add_trace(go.Scatter(
            x=pts["x"].to_numpy(), y=pts["y"].to_numpy(), name=str(part["label"].iloc[0]),
            mode="lines+markers" if len(pts) <= 40 else "lines", connectgaps=True, legendgroup=method,
            line=dict(color=color, dash=dash, width=2.5), marker=dict(size=5),
            meta=[str(run), method],
            hovertemplate=f"%{{fullData.name}}<br>{X_TITLES[x]} %{{x}}<br>{_y_title(y)} "
                          f"%{{y:{'.1%' if percent else '.4g'}}}<extra></extra>",
        ))
    fig.update_layout(title=title or None, hovermode="closest", height=height)
    fig.update_xaxes(title_text=X_TITLES[x])
    fig.update_yaxes(title_text=_y_title(y) + (" (%)" if y == "test_accuracy" and not percent else ""))
    if percent:
        fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    return fit(fig, talk)


def _y_title(y: str) -> str:
    return Y_TITLES.get(y, y.replace("_", " "))


def _is_fraction(values) -> bool:
    if values is None:
        return True
    v = pd.to_numeric(values, errors="coerce").dropna()
    return v.empty or float(v.max()) <= 1.0


def effective_rank_note(spectra: dict[str, np.ndarray]) -> str:
    """Both effective ranks of each snapshot spectrum (the covariance eigenvalues σ² the engine
    stores): the project's, exp of the entropy of the normalised σ², and Roy & Vetterli's (2007),
    of the normalised singular values σ = sqrt(σ²)."""
    parts = [f"{name} {engine.stats.effective_rank(v):.2f} (entropy of σ², the measure every figure uses) and "
             f"{engine.stats.effective_rank(np.sqrt(np.abs(np.asarray(v, dtype=float)))):.2f} (entropy of σ, Roy & Vetterli 2007)"
             for name, v in spectra.items()]
    return "Effective rank of this snapshot: " + "; ".join(parts) + "."
