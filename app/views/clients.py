"""Clients: each client's local model, where collapse starts (docs/clients.md): the measured
clients of one round, one client's classes, embeddings and numbers, and the update cosines."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.clients import data
from app.studies import catalog
from app.export.widgets import show_figure
from app.presenter import fit as projector
from app.figures import clients as cf

talk = state.talk()
st.title("Clients")
CAPTION = ("Each client's model after its local training, before the server averages it: measured at snapshot "
           "rounds on the global snapshot's test points, for up to 10 of the round's clients.")
if not talk:
    st.caption(CAPTION)
# on a projector (talk mode) the population's row comes first, whole on the first screen; the
# controls under it; every figure laid out for its column (``app.presenter.fit``)
figure_area = st.container() if talk else None


def fitted(fig, n: int):
    return projector.fit(fig, n) if talk else fig

found, skipped = data.comparisons()
if skipped:
    st.caption(skipped)
damaged_studies = catalog.damaged_note()
if damaged_studies:
    st.caption(damaged_studies)
comps = {c.id: c for c in found}
if not comps:
    st.info("No run has local-model metrics: runs measure their clients at snapshot rounds (unless started with "
            "`--local-clients 0`); runs recorded before that have none. Start one on the Launch page.")
    st.stop()
first = data.default(list(comps.values()))
state.init("c_pair", first.id, str, list(comps))
if not state.presenter():
    st.selectbox("Runs compared", list(comps), key="c_pair", format_func=lambda i: comps[i].label)
state.publish("c_pair")
comp = comps[st.session_state.c_pair]
runs = comp.methods
rounds = data.common_rounds(runs.values())
st.caption(f"Showing {comp.label}: " + ", ".join(f"{cf._label(m)} run `{r}`" for m, r in runs.items()) + ".")
if not rounds:
    st.info("These runs share no measured round.")
    st.stop()
state.init("c_round", rounds[-1], int, rounds)
state.init("c_view", "accuracy", str, list(cf.VIEWS))
if not state.presenter():
    a, b = st.columns([1, 2])
    if len(rounds) > 1:
        a.select_slider("Snapshot round", rounds, key="c_round")
    b.segmented_control("Clients by", list(cf.VIEWS), key="c_view", format_func=cf.VIEW_LABELS.get)
state.publish("c_round", "c_view")
rnd, view = int(st.session_state.c_round), st.session_state.c_view or "accuracy"
pop = data.population(runs, rnd)
counts, names = data.class_counts(next(iter(runs.values())))

if not talk:
    st.header("The population")
yr = cf.value_range(pd.concat([pop[m] for m in cf.VIEWS[view]]), top=1.0 if view == "accuracy" else None)
with figure_area or st.container():
    cols = st.columns(min(len(runs), 3))
    for i, method in enumerate(runs):
        with cols[i % len(cols)]:
            fig = cf.population_figure(pop, method, view, yrange=yr, n_classes=len(names) or 10, round_=rnd, talk=talk)
            show_figure(fitted(fig, len(cols)), f"c_pop_{method}", pop[pop["method"] == method],
                        f"clients_{method}_{view}_r{rnd}")
if talk:
    st.caption(CAPTION)
st.caption("Each point is one client's own model after its local training; with accuracy, the gap between its open "
           "marker (the classes it holds) and its filled one (all classes) is what it lost of the classes it lacks.")

st.header("One client")
clients = sorted(pop["client"].unique().tolist())
if not clients:
    st.info(f"No client was measured at round {rnd}.")
    st.stop()
state.init("c_client", clients[0], int, clients)
if not state.presenter():
    st.selectbox("Client", clients, key="c_client", format_func=lambda c: f"client {c} ("
                 f"{int(pop.loc[pop['client'] == c, 'classes'].iloc[0])} classes)")
state.publish("c_client")
client = int(st.session_state.c_client)
metric = cf.VIEWS[view][0]
left, right = st.columns(2)
with left:
    if counts is not None and client < len(counts):
        fig = fitted(cf.class_histogram(counts[client], names, client, talk=talk), 2)
        show_figure(fig, "c_hist", pd.DataFrame({"class": names, "samples": counts[client]}), f"client_{client}_classes",
                    note="The classes this client trains on: the partition gives it these and no others.")
with right:
    hist = data.history(runs, client)
    fig = fitted(cf.client_history_figure(hist, metric, client, talk=talk), 2)
    show_figure(fig, "c_hist_rounds", hist, f"client_{client}_{metric}_over_rounds",
                note="Solid: this client at the rounds it was measured (clients are drawn anew each snapshot round); "
                     "dotted: the mean over that round's measured clients.")

pics, note = data.pictures(runs, rnd)
if note:
    st.info(note, icon=":material/image_not_supported:")
frames = {m: data.client_frames(r, rnd, client) for m, r in pics.items()}
shown = {m: f for m, f in frames.items() if isinstance(f, dict)}
for problem in (f for f in frames.values() if isinstance(f, str)):
    st.caption(problem)
for method, f in shown.items():
    ranges = cf.frame_ranges(f["global_xy"], f["local_xy"])
    a, b = st.columns(2)
    for col, kind, xy in ((a, "global", f["global_xy"]), (b, "local", f["local_xy"])):
        with col:
            who = "the global model it started from" if kind == "global" else f"client {client}'s local model"
            fig = fitted(cf.embedding_panel(xy, f["labels"], names, ranges=ranges, talk=talk,
                                            title=f"{cf._label(method)}, round {rnd}: {who}"), 2)
            if talk:  # its class legend beside it: no taller than the projector's screen
                fig = projector.side_legend(fig)
            show_figure(fig, f"c_emb_{method}_{kind}", pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": f["labels"]}),
                        f"client_{client}_{method}_{kind}_r{rnd}")
if shown:
    st.caption("The same test points seen by the global model at the round's start (left) and by the client's model "
               "after local training (right), in one frame: the PCA of the global embeddings, with the local ones "
               "Procrustes-aligned to them first. Where classes the client lacks (its histogram) merge on the right, it lost them.")

st.header("Do the clients pull apart?")
cols = st.columns(min(len(pics), 3) or 1)
for i, (method, run_id) in enumerate(pics.items()):
    got = data.cosine_matrix(run_id, rnd)
    with cols[i % len(cols)]:
        if isinstance(got, str):
            st.caption(got)
            continue
        matrix, ids = got
        fig = fitted(cf.cosine_heatmap(matrix, ids, method, rnd, talk=talk), len(cols))
        show_figure(fig, f"c_cos_{method}", pd.DataFrame(matrix, index=ids, columns=ids).rename_axis("client")
                    .reset_index(), f"update_cosines_{method}_r{rnd}")
st.caption(data.mean_cosines(runs, rnd) + "How alike two clients' weight updates of this round are: near 1 they push the model the same way, "
           "near 0 or below they pull it in different directions.")
