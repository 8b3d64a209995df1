"""Step 5 of the Lesson page: the quadruplet picture with its margin and point sliders (a fragment:
moving one redraws only this part), drawn from ``app.lesson.quadruplet``."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.export.widgets import show_figure
from app.lesson import quadruplet as quad

QUAD_KEYS = ("q_m1", "q_m2", "q_preset", "q_chen")


def quad_settings() -> tuple[float, float, dict]:
    """m1, m2 and the four points as the step-5 controls have them (the preset's until moved)."""
    ss = st.session_state
    preset = quad.PRESETS[ss.get("q_preset", quad.DEFAULT_PRESET)]
    points = {k: (float(ss.get(f"q_{k}_x", preset[k][0])), float(ss.get(f"q_{k}_y", preset[k][1])))
              for k in quad.POINTS}
    return float(ss.get("q_m1", quad.DEFAULT_M1)), float(ss.get("q_m2", quad.DEFAULT_M2)), points


def apply_preset() -> None:
    """The preset box moved: put the points where the preset has them."""
    for k, (x, y) in quad.PRESETS[st.session_state.q_preset].items():
        st.session_state[f"q_{k}_x"], st.session_state[f"q_{k}_y"] = x, y


@st.fragment
def quadruplet_step(talk: bool) -> None:
    """Step 5: sliders and presets redraw only this fragment (instant); in presenter mode too."""
    for k, v in zip(QUAD_KEYS, (quad.DEFAULT_M1, quad.DEFAULT_M2, quad.DEFAULT_PRESET, True)):
        st.session_state.setdefault(k, v)
    for k, (x, y) in quad.PRESETS[st.session_state.q_preset].items():
        st.session_state.setdefault(f"q_{k}_x", x)
        st.session_state.setdefault(f"q_{k}_y", y)
    controls = st.container()  # on a laptop above the figures; in talk mode under them (the projector's first screen)
    figures = st.container()
    if talk:
        controls, figures = figures, controls
    with controls:  # presenter mode too: moving m1 / m2 in front of the room is what this step is for
        _controls()
    with figures:
        _figures(talk)


def _controls() -> None:
    c = st.columns([1, 1, 2, 1])
    c[0].slider("m1", 0.0, 4.0, step=0.05, key="q_m1", help="margin of the first term (anchor vs n1)")
    c[1].slider("m2", 0.0, 4.0, step=0.05, key="q_m2", help="margin of the second term")
    c[2].selectbox("Point positions", list(quad.PRESETS), key="q_preset", on_change=apply_preset)
    c[3].toggle("Chen et al. 2017 beside", key="q_chen")
    with st.expander("Move the points"):
        for col, k in zip(st.columns(4), quad.POINTS):
            col.slider(f"{quad.NAMES[k]} x", -2.5, 2.5, step=0.05, key=f"q_{k}_x")
            col.slider(f"{quad.NAMES[k]} y", -2.5, 2.5, step=0.05, key=f"q_{k}_y")


def _figures(talk: bool) -> None:
    m1, m2, points = quad_settings()
    forms = ["fedquad", "chen"] if st.session_state.q_chen else ["fedquad"]
    cols = st.columns(2)
    for col, form in zip(cols, forms):
        q = quad.quadruplet(points, m1, m2, form)
        with col:
            fig = quad.quadruplet_figure(points, m1, m2, form, talk=talk)
            show_figure(fig, f"quad_{form}", pd.DataFrame(quad.quadruplet_table(points, m1, m2, form)),
                        f"quadruplet_{form}")
            t = st.columns(3)
            t[0].metric("term 1", f"{q.terms[0]:.3f}")
            t[1].metric("term 2", f"{q.terms[1]:.3f}")
            t[2].metric("loss", f"{q.loss:.3f}")
            for sentence in quad.term_sentences(q, m1, m2)[1:]:
                st.markdown(sentence)
    st.caption("Dashed rings: a negative outside its ring makes that term zero (radius √(d(a,p) + m), squared "
               "distances). Arrows: the push each point gets from the loss (minus its gradient).")
