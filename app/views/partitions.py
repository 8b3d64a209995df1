"""Partitions: how a Dirichlet label-skew split deals the classes over clients, before training."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import service, state
from app.figures import charts as figures
from app.export.widgets import show_figure
from app.service.catalog import ALPHAS, BOUNDS, SKEW_ALPHA

talk = state.talk()

st.title("Partitions")
CAPTION = ("Small α: each client sees few classes (strong skew). Large α: close to IID. Clients with fewer "
           "than 3 classes are marked — FedQuad cannot form a quadruplet (anchor, positive, two negatives "
           "of two other classes) there and falls back to a triplet term (2 classes) or plain CE (1 class).")
# on a projector (talk mode) the figure comes first, whole on the first screen, the controls under it
figure_area = st.container() if talk else None
if not talk:
    st.caption(CAPTION)
TALK_HEIGHT = 430  # px: the heatmap under the page's title, its tabs and its one line, inside 720 px

state.init("p_ds", "digits", str, list(service.DATASET_NAMES))
state.init("p_clients", 50, int, lo=BOUNDS["num_clients"][0], hi=BOUNDS["num_clients"][1])
state.init("p_alpha", SKEW_ALPHA, float, ALPHAS)
state.init("p_iid", False, bool)
state.init("p_seed", 0, int, lo=BOUNDS["seed"][0], hi=BOUNDS["seed"][1])
state.init("p_min", 10, int, lo=BOUNDS["min_size"][0], hi=BOUNDS["min_size"][1])
state.init("p_cmp", [], state.LIST, ALPHAS, item=float)
KEYS = ("p_ds", "p_clients", "p_alpha", "p_iid", "p_seed", "p_min", "p_cmp")

if not state.presenter():
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    c1.selectbox("Dataset", service.DATASET_NAMES, key="p_ds")
    c2.number_input("Clients", *BOUNDS["num_clients"], key="p_clients")  # the bounds given to state.init above
    c3.number_input("Seed", *BOUNDS["seed"], key="p_seed")
    c4.number_input("Min samples per client", *BOUNDS["min_size"], key="p_min")
    c5, c6 = st.columns([4, 1])
    c5.select_slider("Dirichlet α (log scale)", ALPHAS, key="p_alpha", disabled=st.session_state.p_iid)
    c6.checkbox("IID", key="p_iid")
    st.multiselect("Compare with α =", ALPHAS, key="p_cmp", help="Shown side by side, same dataset, clients and seed.")
state.publish(*KEYS)

dataset, seed = st.session_state.p_ds, int(st.session_state.p_seed)
clients, min_size = int(st.session_state.p_clients), int(st.session_state.p_min)
alpha = None if st.session_state.p_iid else float(st.session_state.p_alpha)

problem = service.data_problem(dataset)
if problem:
    st.error(problem)
    st.stop()


def split(a):
    try:
        counts = service.partition_counts(dataset, clients, a, seed, min_size)
    except (*service.USER_ERRORS, ValueError) as e:  # an impossible split, the data, ...: one line
        st.error(str(e))
        return None
    return counts


def draw(a, counts, key):
    _, names = service.dataset_labels(dataset, None, seed)
    mask = service.lt3_mask(counts)
    n_one = int(((counts > 0).sum(axis=1) == 1).sum())
    name = service.alpha_text(a, "label")
    st.markdown(f"**{name}** — {int(mask.sum())} of {clients} clients have < 3 classes ({n_one} with a single class)")
    fig = figures.partition_heatmap(counts, class_names=list(names), lt3_mask=mask,
                                    title=f"{dataset}, {clients} clients, {name}", talk=talk)
    if talk and (fig.layout.height or 0) > TALK_HEIGHT:
        fig.update_layout(height=TALK_HEIGHT)
    df = pd.DataFrame(counts, columns=list(names)).rename_axis("client").reset_index()
    df["fewer_than_3_classes"] = mask
    show_figure(fig, f"heat_{key}", df, f"partition_{dataset}_{clients}c_{name.replace(' ', '').replace('α=', 'alpha')}")
    return mask


counts = split(alpha)
if counts is None:
    st.stop()
with figure_area or st.container():
    tab_main, tab_sizes = st.tabs(["Classes per client", "Client sizes"])
    with tab_main:
        mask = draw(alpha, counts, "main")
    with tab_sizes:
        fig = figures.client_sizes_figure(counts, mask, talk=talk)
        if talk and (fig.layout.height or 0) > TALK_HEIGHT:
            fig.update_layout(height=TALK_HEIGHT)
        sizes = pd.DataFrame({"client": np.arange(clients), "samples": counts.sum(axis=1), "fewer_than_3_classes": mask})
        show_figure(fig, "sizes", sizes, f"client_sizes_{dataset}_{clients}c")
if talk:
    st.caption(CAPTION)

others = [a for a in st.session_state.p_cmp if a != alpha]
if others:
    st.subheader("Side by side")
    cols = st.columns(min(len(others), 3))
    for i, a in enumerate(others):
        with cols[i % len(cols)]:
            c = split(a)
            if c is not None:
                draw(a, c, f"cmp{i}")
