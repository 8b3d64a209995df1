"""Geometry: the numbers behind 'collapse', measured in the original embedding space."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import service, state
from app.figures import charts as figures
from app.export.widgets import show_figure
from app.presenter import fit as projector

talk = state.talk()
st.title("Geometry")
st.caption("All measures use the global model's embeddings of a fixed test subset, on snapshot rounds.")
# on a projector (talk mode) the first row of charts comes first, whole on the first screen; the
# controls and the texts under it
figure_area = st.container() if talk else None

table, skipped = service.without_damaged(service.runs_table())
if skipped:
    st.caption(skipped)
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
if service.showing_pair(selected):
    st.caption(service.pair_note())
if not selected:
    st.info("Select one or more runs.")
    st.stop()
# on a projector the legends name the method where each selected run has its own ("FedAvg",
# "FedQuad", as on Live), else the run's label
legend = labels
if talk:
    run_methods = {r: service.read_config(r).get("method") for r in selected}
    if None not in run_methods.values() and len(set(run_methods.values())) == len(run_methods):
        legend = {**labels, **{r: service.method_label(m) for r, m in run_methods.items()}}
df = service.metrics_frame(selected, legend)


def curve(y: str, title: str, key: str) -> None:
    rows = df.dropna(subset=[y]) if y in df else df.iloc[0:0]
    if rows.empty:
        st.caption("No snapshot data yet.")
        return
    fig = figures.curves_figure(rows, y, "round", title=title, talk=talk)
    if talk:
        fig = projector.fit(fig, 2)
    show_figure(fig, key, rows[["run", "label", "method", "round", y]], f"{y}_vs_round")


if not talk:
    st.header("Compactness vs separation")
TEXTS = {
    "ratio": "**Intra / inter ratio.** Average distance of a point to its class centre, divided by the average "
             "distance between class centres. Lower means tight, well-separated classes; collapse pushes it up.",
    "ratio_l2": "**Same, on unit-length embeddings.** Removes the effect of the embeddings simply growing or "
                "shrinking, so only the angles between points count.",
    "nc1": "**NC1** (Papyan et al. 2020) compares the spread inside classes with the spread between class "
           "centres, over all directions at once. It goes to 0 when every class shrinks to a point.",
    "effective_rank": "**Effective rank** counts how many directions the embeddings really use: here the "
                      "exponential of the entropy of the normalised covariance eigenvalues (σ², as FedDecorr, "
                      "Shi et al. 2023). Dimensional collapse shows as this number dropping. Roy & Vetterli "
                      "(2007) take the entropy of the singular values σ instead: larger numbers, the same "
                      "direction (both are given for the snapshot below).",
}
for pair in ((("ratio", "Intra / inter ratio (raw)", "g_ratio"),
              ("ratio_l2", "Intra / inter ratio (L2-normalised)", "g_ratio_l2")),
             (("nc1", "NC1 (within / between class covariance)", "g_nc1"),
              ("effective_rank", "Effective rank of the embeddings", "g_erank"))):
    if not talk:
        for col, (y, _, _) in zip(st.columns(2), pair):  # texts in one row, charts in the next: they line up
            col.markdown(TEXTS[y])
    with (figure_area if talk and figure_area is not None else st.container()):
        for col, args in zip(st.columns(2), pair):
            with col:
                curve(*args)
    if talk:  # under the charts (the first row in the page's first place)
        if figure_area is not None:
            st.header("Compactness vs separation")
        for col, (y, _, _) in zip(st.columns(2), pair):
            col.markdown(TEXTS[y])
        figure_area = None

st.header("One snapshot in detail")
common = sorted(set.intersection(*(set(service.snapshot_rounds(r)) for r in selected)))
damaged = service.snapshot_notice(selected)
if damaged:
    st.warning(damaged)
if not common:
    st.info("The selected runs have no snapshot round in common yet.")
    st.stop()
state.init("g_round", common[-1], int, common)
if not state.presenter() and len(common) > 1:
    st.select_slider("Snapshot round", common, key="g_round")
state.publish("g_round")
rnd = int(st.session_state.g_round)
snaps = {r: service.read_snapshot(r, rnd) for r in selected}
part = service.read_partition(selected[0]) or {}
n_cls = len(next(iter(snaps.values()))["per_class_intra"])
names = list(part.get("class_names") or [str(i) for i in range(n_cls)])[:n_cls]
methods = {labels[r]: service.read_config(r).get("method", "unknown") for r in selected}

a, b = st.columns(2)  # texts in one row, figures in the next, so the two charts and menus line up
a.markdown("**Per-class intra distance.** How spread out each class is around its own centre. "
           "Rare classes on skewed clients tend to spread most.")
b.markdown("**Singular-value spectrum** of the embedding covariance (log scale). A spectrum that "
           "falls off a cliff means many directions are unused: dimensional collapse.")
a, b = st.columns(2)
with a:
    series = {labels[r]: np.asarray(s["per_class_intra"]) for r, s in snaps.items()}
    fig = figures.per_class_intra_figure(series, names, methods=methods, talk=talk)
    show_figure(fig, "g_pci", pd.DataFrame(series, index=names).rename_axis("class").reset_index(),
                f"per_class_intra_r{rnd}")
with b:
    series = {labels[r]: np.asarray(s["singular_values"]) for r, s in snaps.items()}
    fig = figures.spectrum_figure(series, methods=methods, talk=talk)
    longest = max(len(v) for v in series.values())
    spec = pd.DataFrame({k: np.pad(v.astype(float), (0, longest - len(v)), constant_values=np.nan) for k, v in series.items()})
    show_figure(fig, "g_spec", spec.rename_axis("k").reset_index(), f"spectrum_r{rnd}")
    st.caption(figures.effective_rank_note(series))

st.markdown("**CDNV** (class-distance normalised variance, Galanti et al.) for every pair of classes: the two "
            "classes' variance divided by the squared distance between their centres. Small = easy to "
            "tell apart; a large value marks a pair of classes that overlap. Side by side on one colour scale.")
cdnv = {r: np.asarray(snaps[r]["cdnv"]) for r in selected}
zrange = figures.cdnv_log_range(*cdnv.values())
cols = st.columns(2)
for i, r in enumerate(selected):
    with cols[i % 2]:
        fig = figures.cdnv_heatmap(cdnv[r], names, title=f"CDNV, {labels[r]}, round {rnd}", zrange=zrange, talk=talk)
        show_figure(fig, f"g_cdnv_{i}", pd.DataFrame(cdnv[r], index=names, columns=names).rename_axis("class")
                    .reset_index(), f"cdnv_{r}_r{rnd}")
if len(selected) == 1:
    with cols[1]:
        m = cdnv[selected[0]].astype(float)
        iu = np.triu_indices(len(m), 1)
        pairs = pd.DataFrame({"class a": [names[i] for i in iu[0]], "class b": [names[j] for j in iu[1]],
                              "CDNV": (m[iu] + m.T[iu]) / 2}).sort_values("CDNV", ascending=False)
        st.markdown("**Most overlapping class pairs**")
        st.dataframe(pairs.head(8), hide_index=True,
                     column_config={"CDNV": st.column_config.NumberColumn(format="%.3f")})
