"""Geometry: the numbers behind 'collapse', measured in the original embedding space."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import figures, service, state
from app.export import render_downloads

talk = state.talk()
st.title("Geometry")
st.caption("All measures use the global model's embeddings of a fixed test subset, on snapshot rounds.")

table = service.runs_table()
if table.empty:
    st.info("No runs yet: start some on the Launch page.")
    st.stop()
labels = dict(zip(table["run_id"], table["label"]))
ids = table["run_id"].tolist()
state.init("g_runs", service.latest_group(table), state.LIST, ids)
if not state.presenter():
    st.multiselect("Runs", ids, key="g_runs", format_func=labels.get)
state.publish("g_runs")
selected = list(st.session_state.g_runs)
if not selected:
    st.info("Select one or more runs.")
    st.stop()
df = service.metrics_frame(selected, labels)


def curve(y: str, title: str, key: str, text: str) -> None:
    st.markdown(text)
    rows = df.dropna(subset=[y]) if y in df else df.iloc[0:0]
    if rows.empty:
        st.caption("No snapshot data yet.")
        return
    fig = figures.curves_figure(rows, y, "round", title=title, talk=talk)
    st.plotly_chart(fig, key=key)
    render_downloads(fig, rows[["run", "label", "method", "round", y]], f"{y}_vs_round", key=f"dl_{key}")


st.header("Compactness vs separation")
a, b = st.columns(2)
with a:
    curve("ratio", "Intra / inter ratio (raw)", "g_ratio",
          "**Intra / inter ratio.** Average distance of a point to its class centre, divided by the average "
          "distance between class centres. Lower means tight, well-separated classes; collapse pushes it up.")
with b:
    curve("ratio_l2", "Intra / inter ratio (L2-normalised)", "g_ratio_l2",
          "**Same, on unit-length embeddings.** Removes the effect of the embeddings simply growing or shrinking, "
          "so only the angles between points count.")
a, b = st.columns(2)
with a:
    curve("nc1", "NC1 (within / between class covariance)", "g_nc1",
          "**NC1** (Papyan et al. 2020) compares the spread inside classes with the spread between class centres, "
          "over all directions at once. It goes to 0 when every class shrinks to a point.")
with b:
    curve("effective_rank", "Effective rank of the embeddings", "g_erank",
          "**Effective rank** counts how many directions the embeddings really use. Dimensional collapse "
          "(FedDecorr, Shi et al. 2023) shows as this number dropping.")

st.header("One snapshot in detail")
common = sorted(set.intersection(*(set(service.snapshot_rounds(r)) for r in selected)))
if not common:
    st.info("The selected runs have no snapshot round in common yet.")
    st.stop()
state.init("g_round", common[-1], int, common)
state.init("g_cdnv", selected[-1], str, selected)
if not state.presenter():
    a, b = st.columns(2)
    if len(common) > 1:
        a.select_slider("Snapshot round", common, key="g_round")
    b.selectbox("CDNV matrix of", selected, key="g_cdnv", format_func=labels.get)
state.publish("g_round", "g_cdnv")
rnd = int(st.session_state.g_round)
snaps = {r: service.read_snapshot(r, rnd) for r in selected}
part = service.read_partition(selected[0]) or {}
n_cls = len(next(iter(snaps.values()))["per_class_intra"])
names = list(part.get("class_names") or [str(i) for i in range(n_cls)])[:n_cls]

a, b = st.columns(2)
with a:
    st.markdown("**Per-class intra distance.** How spread out each class is around its own centre. "
                "Rare classes on skewed clients tend to spread most.")
    series = {labels[r]: np.asarray(s["per_class_intra"]) for r, s in snaps.items()}
    fig = figures.per_class_intra_figure(series, names, talk=talk)
    st.plotly_chart(fig, key="g_pci")
    render_downloads(fig, pd.DataFrame(series, index=names).rename_axis("class").reset_index(),
                     f"per_class_intra_r{rnd}", key="dl_g_pci")
with b:
    st.markdown("**Singular-value spectrum** of the embedding covariance (log scale). A spectrum that "
                "falls off a cliff means many directions are unused: dimensional collapse.")
    series = {labels[r]: np.asarray(s["singular_values"]) for r, s in snaps.items()}
    fig = figures.spectrum_figure(series, talk=talk)
    st.plotly_chart(fig, key="g_spec")
    longest = max(len(v) for v in series.values())
    spec = pd.DataFrame({k: np.pad(v.astype(float), (0, longest - len(v)), constant_values=np.nan) for k, v in series.items()})
    render_downloads(fig, spec.rename_axis("k").reset_index(), f"spectrum_r{rnd}", key="dl_g_spec")

run = st.session_state.g_cdnv
st.markdown("**CDNV** (class-distance normalised variance, Galanti et al.) for every pair of classes: the two "
            "classes' variance divided by the squared distance between their centres. Small = easy to "
            "tell apart; a large value marks a pair of classes that overlap.")
cdnv = np.asarray(snaps[run]["cdnv"])
fig = figures.cdnv_heatmap(cdnv, names, title=f"CDNV, {labels[run]}, round {rnd}", talk=talk)
st.plotly_chart(fig, key="g_cdnv_fig")
render_downloads(fig, pd.DataFrame(cdnv, index=names, columns=names).rename_axis("class").reset_index(),
                 f"cdnv_{run}_r{rnd}", key="dl_g_cdnv")
