"""Explore's local-model row: for studies whose runs measured their clients' local models, one
local metric (chosen) over rounds at the slider position and against the response axis, both with
the seed bands, like the accuracy and ratio rows above it."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.export.widgets import show_figure
from app.figures import study as sf
from app.studies import catalog as studies

LABELS = {"local_acc_all": "Local accuracy, all classes", "local_acc_own": "Local accuracy, own classes",
          "local_effective_rank": "Local effective rank", "local_ratio": "Local intra / inter ratio",
          "local_cka": "Local CKA to the global model", "update_cosine": "Update cosine between clients",
          "update_norm": "Update norm"}


def has_local(points: pd.DataFrame) -> bool:
    return any(m in points and points[m].notna().any() for m in studies.LOCAL_METRICS)


def local_row(view, points: pd.DataFrame, metrics: pd.DataFrame, resp: pd.DataFrame | None, response, tag: str) -> None:
    """The row, or nothing when no run of the study measured its clients. ``response`` is the
    page's response-plot drawer (``explore_panels.response``), so the bands and marks match."""
    if not has_local(points):
        return
    st.subheader("Local models (mean over the measured clients)")
    opts = [m for m in studies.LOCAL_METRICS if m in points and points[m].notna().any()]
    state.init("x_local", opts[0], str, opts)
    if not state.presenter():
        st.segmented_control("Local metric", opts, key="x_local", format_func=LABELS.get)
    state.publish("x_local")
    metric = st.session_state.x_local or opts[0]
    left, right = st.columns(2)
    with left:
        fig = sf.band_curves_figure(metrics, metric, title=f"{LABELS[metric]} at {tag}", talk=view.talk)
        show_figure(fig, "x_local_curves", metrics[[c for c in ("run", "method", "seed", "round", metric) if c in metrics]],
                    f"{view.ref.name}_{metric}_{tag}",
                    note="Measured at snapshot rounds on each client's model after local training, before averaging. "
                         "Thick: mean over seeds; band: ± 1 std; thin: each seed.")
    if resp is not None:
        with right:
            response(view, resp, metric, f"{LABELS[metric]} against {view.resp_axis}", "x_local_resp")
