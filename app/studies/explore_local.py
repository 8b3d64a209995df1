"""Explore's local-model row: for studies whose runs measured their clients' local models, one
local metric (chosen) over rounds at the slider position and against the response axis, both with
the seed bands, like the accuracy and ratio rows above it (panels for ``app.switcher``)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state, switcher
from app.figures import captions
from app.figures import study as sf
from app.studies import catalog as studies

LABELS = {"local_acc_all": "Local accuracy, all classes", "local_acc_own": "Local accuracy, own classes (each ≥ ⅕ of an even share: 2 % of 10)",
          "local_acc_own_any": "Local accuracy, every class it has a sample of",
          "local_effective_rank": "Local effective rank (σ² entropy)", "local_ratio": "Local intra / inter ratio",
          "local_cka": "Local CKA to the global model", "update_cosine": "Update cosine between clients",
          "update_norm": "Update norm"}


def local_options(points: pd.DataFrame) -> list[str]:
    """The local metrics some run of the study measured, in the engine's order."""
    return [m for m in studies.LOCAL_METRICS if m in points and points[m].notna().any()]


def has_local(points: pd.DataFrame) -> bool:
    return bool(local_options(points))


HEADING = "Local models (mean over the measured clients)"


def local_metric(points: pd.DataFrame) -> str | None:
    """The control above the figures: which local metric the row shows (None: no local metrics)."""
    opts = local_options(points)
    if not opts:
        return None
    state.init("x_local", opts[0], str, opts)
    if not state.presenter():
        st.segmented_control("Local metric", opts, key="x_local", format_func=LABELS.get)
    state.publish("x_local")
    return st.session_state.x_local or opts[0]


def local_panels(view, points: pd.DataFrame, metrics: pd.DataFrame, resp: pd.DataFrame | None, response, tag: str) -> list:
    """The row's two panels, or none when no run of the study measured its clients. ``response``
    is the page's response-plot builder (``explore_figures.response``), so the bands and marks match."""
    opts = local_options(points)
    if not opts:
        return []
    metric = st.session_state.get("x_local") if st.session_state.get("x_local") in opts else opts[0]
    fig = sf.band_curves_figure(metrics, metric, title=f"{LABELS[metric]} at {tag}", talk=view.talk)
    note = captions.with_plain("x_local", "Measured at snapshot rounds on each client's model after local training, "
                                          "before averaging. Thick: mean over seeds; band: ± 1 std; thin: each seed.")
    out = [switcher.Panel("local", fig, note, metrics[[c for c in ("run", "method", "seed", "round", metric) if c in metrics]],
                          f"{view.ref.name}_{metric}_{tag}", LABELS[metric])]
    if resp is not None:
        out.append(response(view, resp, metric, f"{LABELS[metric]} against {sf.axis_name(view.resp_axis)}", "local_resp"))
    return out
