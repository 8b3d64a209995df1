"""Embeddings: two runs side by side, the global model's test embeddings per snapshot round."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import figures, projection, service, state
from app.export import render_downloads

talk = state.talk()
st.title("Embeddings")
st.caption("Each point is a test image, placed by the global model's embedding and coloured by its class. "
           "Collapse shows as classes smearing into each other. Note: distances in a UMAP picture are not "
           "meaningful; the intra/inter ratios are computed in the original embedding space.")

table = service.runs_table()
table = table[[bool(service.snapshot_rounds(r)) for r in table["run_id"]]] if not table.empty else table
if table.empty:
    st.info("No run has an embedding snapshot yet: start runs on the Launch page.")
    st.stop()
labels = dict(zip(table["run_id"], table["label"]))
ids = table["run_id"].tolist()
group = service.latest_group(service.runs_table())
by_method = {service.read_config(r).get("method"): r for r in group if r in labels}
left0 = by_method.get("fedavg") or (group[0] if group and group[0] in labels else ids[0])
right0 = by_method.get("fedquad") or next((r for r in group if r in labels and r != left0), ids[min(1, len(ids) - 1)])

state.init("e_left", left0, str, ids)
state.init("e_right", right0, str, ids)
state.init("e_proj", "PCA", str, ["PCA", "UMAP"])
if not state.presenter():
    a, b, c = st.columns([2, 2, 1])
    a.selectbox("Left run", ids, key="e_left", format_func=labels.get)
    b.selectbox("Right run", ids, key="e_right", format_func=labels.get)
    c.segmented_control("Projection", ["PCA", "UMAP"], key="e_proj")
state.publish("e_left", "e_right", "e_proj")
runs = [st.session_state.e_left, st.session_state.e_right]
use_umap = st.session_state.e_proj == "UMAP"
rounds = sorted(set(service.snapshot_rounds(runs[0])) | set(service.snapshot_rounds(runs[1])))


def frames(run_id: str, snap_rounds: tuple[int, ...], umap: bool) -> dict[int, np.ndarray]:
    """2-D positions per round, each Procrustes-aligned to the previous frame so points do not jump."""
    path, out, prev, prev_idx = service.run_path(run_id), {}, None, None
    for r in snap_rounds:
        snap = service.read_snapshot(run_id, r)
        xy = projection.umap_cached(path, r) if umap else projection.pca_2d(snap["embeddings"])
        if xy is None:
            continue
        if prev is not None and np.array_equal(prev_idx, snap["indices"]):
            xy = projection.procrustes_align(xy, prev)
        out[r], prev, prev_idx = xy, xy, snap["indices"]
    return out


pca_frames = st.cache_data(max_entries=64, show_spinner=False)(frames)


def class_names(run_id: str, n: int) -> list[str]:
    part = service.read_partition(run_id) or {}
    names = part.get("class_names") or []
    return list(names) if len(names) >= n else [str(i) for i in range(n)]


if "e_play" not in st.session_state:
    st.session_state.e_play = False
if not state.presenter() and len(rounds) > 1:
    if st.button("⏸ Pause" if st.session_state.e_play else "▶ Play", key="e_play_btn"):
        st.session_state.e_play = not st.session_state.e_play
        if st.session_state.e_play and st.session_state.get("e_round") == rounds[-1]:
            st.session_state.e_round = rounds[0]
        st.rerun()
pending = use_umap and any(projection.umap_pending(service.run_path(r), rr)
                           for r in runs for rr in service.snapshot_rounds(r))


@st.fragment(run_every=0.8 if (st.session_state.e_play or pending) else None)
def view() -> None:
    if st.session_state.get("e_round") not in rounds:
        st.session_state.e_round = rounds[-1]
    if st.session_state.e_play:
        i = rounds.index(st.session_state.e_round)
        st.session_state.e_round = rounds[min(i + 1, len(rounds) - 1)]
        if i + 2 >= len(rounds):
            st.session_state.e_play = False
            st.session_state._e_stopped = True
    if len(rounds) > 1:
        st.select_slider("Snapshot round", rounds, key="e_round")
    chosen = st.session_state.e_round
    still_pending = False
    for col, run_id in zip(st.columns(2), runs):
        with col:
            own = service.snapshot_rounds(run_id)
            have = [r for r in own if r <= chosen] or own
            r = have[-1]
            kind = st.session_state.e_proj
            if use_umap and projection.umap_cached(service.run_path(run_id), r) is None:
                kind = "PCA"
                tried = st.session_state.setdefault("_umap_tried", set())
                if projection.umap_pending(service.run_path(run_id), r):
                    still_pending = True
                    st.info("computing UMAP… (in the background, cached next to the run); PCA meanwhile.",
                            icon=":material/hourglass_top:")
                elif (run_id, r) not in tried:
                    tried.add((run_id, r))
                    projection.request_umap(service.run_path(run_id), r)
                    still_pending = True
                    st.info("computing UMAP…; PCA meanwhile.", icon=":material/hourglass_top:")
                else:
                    st.warning("UMAP could not be computed for this snapshot (see the .umap log in the run's "
                               "embeddings folder); showing PCA.")
            xy = (pca_frames if kind == "PCA" else frames)(run_id, tuple(own), kind == "UMAP")[r]
            snap = service.read_snapshot(run_id, r)
            y = snap["labels"]
            names = class_names(run_id, int(y.max()) + 1 if y.size else 0)
            fig = figures.embedding_scatter(xy, y, names, title=f"{labels[run_id]}, round {r} ({kind})", talk=talk)
            st.plotly_chart(fig, key=f"emb_{run_id}")
            df = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": y, "index": snap["indices"]})
            render_downloads(fig, df, f"embedding_{run_id}_r{r}_{kind}", key=f"dl_emb_{run_id}")
    started = still_pending and not pending  # refresh the page so this view polls for the result
    if st.session_state.pop("_e_stopped", False) or started or (pending and not still_pending and not st.session_state.e_play):
        st.rerun()


view()
