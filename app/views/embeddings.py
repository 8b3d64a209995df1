"""Embeddings: two runs side by side, the global model's test embeddings per snapshot round."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app import service, state
from app.export.widgets import show_figure
from app.figures import charts as figures
from app.presenter import fit as projector
from app.projection import cache as projection
from app.projection.frames import class_names, frames, pca_frames, projected_before, shown_round, umap_state

talk = state.talk()
st.title("Embeddings")
CAPTION = ("Each point is a test image, placed by the global model's embedding and coloured by its class. "
           "Collapse shows as classes smearing into each other. Note: distances in a UMAP picture are not "
           "meaningful; the intra/inter ratios are computed in the original embedding space.")
# on a projector (talk mode) the two pictures come first, whole on the first screen; the controls
# and the notes under them
figure_area = st.container() if talk else None
if not talk:
    st.caption(CAPTION)

table, skipped = service.without_damaged(service.runs_table())
if skipped:
    st.caption(skipped)
table = table[[bool(service.snapshot_rounds(r)) for r in table["run_id"]]] if not table.empty else table
damaged = service.snapshot_notice(table["run_id"]) if not table.empty else None
if damaged:
    st.warning(damaged)
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
# UMAP by default when the projection worker runs (pictures follow each snapshot within seconds)
state.init("e_proj", "UMAP" if projection.worker_alive(service.runs_dir()) else "PCA", str, ["PCA", "UMAP"])
if not state.presenter():
    a, b, c = st.columns([2, 2, 1])
    a.selectbox("Left run", ids, key="e_left", format_func=labels.get)
    b.selectbox("Right run", ids, key="e_right", format_func=labels.get)
    c.segmented_control("Projection", ["PCA", "UMAP"], key="e_proj")
state.publish("e_left", "e_right", "e_proj")
runs = [st.session_state.e_left, st.session_state.e_right]
if service.showing_pair(runs):
    st.caption(service.pair_note())
use_umap = st.session_state.e_proj == "UMAP"
rounds = sorted(set(service.snapshot_rounds(runs[0])) | set(service.snapshot_rounds(runs[1])))


PLAY_S = 0.8   # one frame per this many seconds while playing
POLL_S = 1.0   # while a run trains or a UMAP computes, the page looks for new pictures this often

if "e_play" not in st.session_state:
    st.session_state.e_play = False
if not state.presenter() and len(rounds) > 1:
    if st.button("⏸ Pause" if st.session_state.e_play else "▶ Play", key="e_play_btn"):
        st.session_state.e_play = not st.session_state.e_play
        if st.session_state.e_play and st.session_state.get("e_round") == rounds[-1]:
            st.session_state.e_round = rounds[0]
        st.rerun()
following = st.session_state.get("e_round") == st.session_state.get("_e_latest")  # was at the latest round
if st.session_state.get("e_round") not in rounds or (following and not st.session_state.e_play):
    st.session_state.e_round = rounds[-1]
st.session_state._e_latest = rounds[-1]


def panel(side: int, run_id: str, chosen: int) -> None:
    """One run's projection at the snapshot round ``chosen`` (or its latest one before it). In
    UMAP mode a round not projected yet shows the latest projected round meanwhile (PCA only
    when no round is projected yet)."""
    own = service.snapshot_rounds(run_id)
    r = shown_round(run_id, chosen)
    status = umap_state(run_id, r) if use_umap else "pca"
    shown = r if status in ("ready", "pca") else (projected_before(run_id, r) if use_umap else None)
    kind = "UMAP" if use_umap and shown is not None else "PCA"
    shown = r if shown is None else shown
    xy = (pca_frames if kind == "PCA" else frames)(run_id, tuple(own), kind == "UMAP").get(shown)
    if xy is None:  # a stored layout that does not fit its snapshot (damaged): PCA instead
        kind, xy = "PCA", pca_frames(run_id, tuple(own), False)[shown]
    snap = service.read_snapshot(run_id, shown)
    y = snap["labels"]
    names = class_names(run_id, int(y.max()) + 1 if y.size else 0)
    fig = figures.embedding_scatter(xy, y, names, title=f"{labels[run_id]}, round {shown} ({kind})", talk=talk)
    if talk:  # its class legend beside it: whole on the projector's first screen
        fig = projector.side_legend(projector.fit(fig, 2))
    df = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": y, "index": snap["indices"]})
    show_figure(fig, f"emb_{side}", df, f"embedding_{run_id}_r{shown}_{kind}")
    meanwhile = f"round {shown}'s UMAP" if kind == "UMAP" else "PCA"
    if status == "pending":
        st.info(f"Round {r}: projecting… (UMAP in the background, cached next to the run); {meanwhile} "
                "meanwhile.", icon=":material/hourglass_top:")
    elif status == "unavailable":
        st.caption("This recorded snapshot has no stored UMAP layout (recorded runs are read-only): PCA.")
    elif status == "failed":
        st.warning(f"UMAP could not be computed for round {r} (see the .umap log in the run's embeddings "
                   f"folder); showing {meanwhile}.")


def signature() -> tuple:
    """What the page shows that the background can change: snapshot rounds, projected rounds,
    pending projections."""
    out = []
    for run_id in runs:
        path, own = service.run_path(run_id), tuple(service.snapshot_rounds(run_id))
        if use_umap:
            own = own, tuple(q for q in own if projection.umap_ready(path, q)), projection.umap_pending(path, shown_round(run_id, st.session_state.e_round))
        out.append(own)
    return tuple(out)


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
    if len(rounds) > 1 and not state.presenter():
        st.select_slider("Snapshot round", rounds, key="e_round")
    chosen = st.session_state.e_round
    with figure_area or st.container():
        for side, (col, run_id) in enumerate(zip(st.columns(2), runs)):
            with col:
                panel(side, run_id, chosen)
    if talk:
        st.caption(CAPTION)
    pending = use_umap and any(projection.umap_pending(service.run_path(r), shown_round(r, chosen)) for r in runs)
    if pending or service.any_active(runs):
        seen = signature()

        @st.fragment(run_every=POLL_S)
        def watch() -> None:
            """Redraw the page when a new snapshot or picture arrives (the run trains, or the worker
            finished a projection)."""
            if signature() != seen:
                st.rerun()

        watch()
