"""Embeddings: two runs side by side, the global model's test embeddings per snapshot round."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import figures, projection, service, state
from app.export import show_figure

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


PLAY_S = 0.8   # one frame per this many seconds while playing
POLL_S = 2.5   # while a UMAP computes, its panel (only) looks for the result this often

if "e_play" not in st.session_state:
    st.session_state.e_play = False
if not state.presenter() and len(rounds) > 1:
    if st.button("⏸ Pause" if st.session_state.e_play else "▶ Play", key="e_play_btn"):
        st.session_state.e_play = not st.session_state.e_play
        if st.session_state.e_play and st.session_state.get("e_round") == rounds[-1]:
            st.session_state.e_round = rounds[0]
        st.rerun()
if st.session_state.get("e_round") not in rounds:
    st.session_state.e_round = rounds[-1]


def shown_round(run_id: str, chosen: int) -> int:
    own = service.snapshot_rounds(run_id)
    return ([r for r in own if r <= chosen] or own)[-1]


def umap_state(run_id: str, r: int) -> str:
    """The snapshot's UMAP: ready, pending (computing in the background; started here if never
    tried) or failed."""
    path = service.run_path(run_id)
    if projection.umap_cached(path, r) is not None:
        return "ready"
    if projection.umap_pending(path, r):
        return "pending"
    if service.is_recorded(run_id):
        return "unavailable"  # a recorded run is read-only: no UMAP job writes into it
    tried = st.session_state.setdefault("_umap_tried", set())
    if (run_id, r) not in tried:
        tried.add((run_id, r))
        projection.request_umap(path, r)
        return "pending"
    return "failed"


def panel(side: int, run_id: str, chosen: int, waiting: bool = False) -> None:
    """One run's projection at the snapshot round ``chosen`` (or its latest one before it)."""
    own = service.snapshot_rounds(run_id)
    r = shown_round(run_id, chosen)
    status = umap_state(run_id, r) if use_umap else "pca"
    if waiting and status != "pending":
        st.rerun()  # the UMAP is ready (or failed): redraw the page once, which stops this polling
    kind = "UMAP" if status == "ready" else "PCA"
    xy = (pca_frames if kind == "PCA" else frames)(run_id, tuple(own), kind == "UMAP")[r]
    snap = service.read_snapshot(run_id, r)
    y = snap["labels"]
    names = class_names(run_id, int(y.max()) + 1 if y.size else 0)
    fig = figures.embedding_scatter(xy, y, names, title=f"{labels[run_id]}, round {r} ({kind})", talk=talk)
    df = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": y, "index": snap["indices"]})
    show_figure(fig, f"emb_{side}", df, f"embedding_{run_id}_r{r}_{kind}")
    if status == "pending":
        st.info("computing UMAP… (in the background, cached next to the run); PCA meanwhile.",
                icon=":material/hourglass_top:")
    elif status == "unavailable":
        st.caption("This recorded snapshot has no stored UMAP layout (recorded runs are read-only): PCA.")
    elif status == "failed":
        st.warning("UMAP could not be computed for this snapshot (see the .umap log in the run's "
                   "embeddings folder); showing PCA.")


if st.session_state.e_play:
    @st.fragment(run_every=PLAY_S)
    def player() -> None:
        i = rounds.index(st.session_state.e_round)
        st.session_state.e_round = rounds[min(i + 1, len(rounds) - 1)]
        st.select_slider("Snapshot round", rounds, key="e_round")
        for side, (col, run_id) in enumerate(zip(st.columns(2), runs)):
            with col:
                panel(side, run_id, st.session_state.e_round)
        if i + 2 >= len(rounds):  # the last frame is drawn: stop
            st.session_state.e_play = False
            st.rerun()

    player()
else:
    if len(rounds) > 1:
        st.select_slider("Snapshot round", rounds, key="e_round")
    chosen = st.session_state.e_round
    for side, (col, run_id) in enumerate(zip(st.columns(2), runs)):
        with col:
            if use_umap and umap_state(run_id, shown_round(run_id, chosen)) == "pending":
                st.fragment(run_every=POLL_S)(panel)(side, run_id, chosen, True)
            else:
                panel(side, run_id, chosen)
