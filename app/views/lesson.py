"""Lesson: collapse vs FedQuad as a story in seven steps (``app.lesson``), one step per screen,
the step number in the URL (``?step=3``), the interactive quadruplet picture on step 5, the
talk exported as slides, and "My deck" (figures collected from the other pages)."""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from app import deck, lesson, lesson_data, slides, state
from app import quadruplet_figure as quad
from app.export import export_available, show_figure

N = len(lesson.STEPS)
talk, presenter = state.talk(), state.presenter()
st.title("Lesson")

# ---- where the data comes from -----------------------------------------------------------------
state.init("l_mine", False, bool)
mine_studies = lesson_data.user_study_names()
if not presenter:
    a, b = st.columns([1, 2])
    a.toggle("Use my runs", key="l_mine", help="Show your own study (or finished runs) instead of the recorded "
                                                "studies shipped with the app.")
    if st.session_state.l_mine and mine_studies:
        state.init("l_study", mine_studies[0], str, mine_studies)
        b.selectbox("My study", mine_studies, key="l_study")
        state.publish("l_study")
state.publish("l_mine")
data, problem = lesson_data.load(bool(st.session_state.l_mine), st.session_state.get("l_study"))
if problem:
    st.warning(problem)

# ---- the step, its number in the URL ------------------------------------------------------------
state.init("step", 1, int, list(range(1, N + 1)))


def go(delta: int) -> None:
    st.session_state.step = min(N, max(1, st.session_state.step + delta))


step = int(st.session_state.step)
state.publish("step")
QUAD_KEYS = ("q_m1", "q_m2", "q_preset", "q_chen")


@st.cache_resource(max_entries=64, show_spinner="Building the step…")
def cached_step(i: int, root: str, name: str, source: str, signature: tuple, talk: bool) -> lesson.StepContent:
    return lesson.build_step(i, data, talk, problem)


def signature(d) -> tuple:
    """Changes when the study file or its runs change (so a regenerated study is re-read)."""
    if d is None:
        return ()
    return (len(d.study.get("points", [])), tuple(sorted(p.get("run_id") or "" for p in d.study.get("points", []))),
            d.study.get("created"))


def content_of(i: int) -> lesson.StepContent:
    if i == 5:
        return lesson.step_idea(data, talk, *quad_settings())
    return cached_step(i, str(data.root) if data else "", (data.study.get("name") if data else "") or "",
                       data.source if data else "", signature(data), talk)


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


nav = st.columns([1, 6, 1])
nav[0].button("← Back", key="l_back", on_click=go, args=(-1,), disabled=step == 1, width="stretch")
nav[2].button("Next →", key="l_next", on_click=go, args=(1,), disabled=step == N, width="stretch")
nav[1].progress(step / N, text=f"Step {step} of {N}: {lesson.STEPS[step - 1][0]}")


def draw_figures(content: lesson.StepContent, prefix: str) -> None:
    cols = st.columns(len(content.figures)) if content.figures else []
    for j, (col, item) in enumerate(zip(cols, content.figures)):
        with col:
            show_figure(item.fig, f"{prefix}_{j}", item.data, item.name, note=item.caption or None)


@st.fragment
def quadruplet_step() -> None:
    """Step 5: sliders and presets redraw only this fragment (instant)."""
    for k, v in zip(QUAD_KEYS, (quad.DEFAULT_M1, quad.DEFAULT_M2, quad.DEFAULT_PRESET, True)):
        st.session_state.setdefault(k, v)
    for k, (x, y) in quad.PRESETS[st.session_state.q_preset].items():
        st.session_state.setdefault(f"q_{k}_x", x)
        st.session_state.setdefault(f"q_{k}_y", y)
    if not presenter:
        c = st.columns([1, 1, 2, 1])
        c[0].slider("m1", 0.0, 4.0, step=0.05, key="q_m1", help="margin of the first term (anchor vs n1)")
        c[1].slider("m2", 0.0, 4.0, step=0.05, key="q_m2", help="margin of the second term")
        c[2].selectbox("Point positions", list(quad.PRESETS), key="q_preset", on_change=apply_preset)
        c[3].toggle("Chen et al. 2017 beside", key="q_chen")
        with st.expander("Move the points"):
            for col, k in zip(st.columns(4), quad.POINTS):
                col.slider(f"{quad.NAMES[k]} x", -2.5, 2.5, step=0.05, key=f"q_{k}_x")
                col.slider(f"{quad.NAMES[k]} y", -2.5, 2.5, step=0.05, key=f"q_{k}_y")
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


content = content_of(step)
st.header(content.title)
if content.problem:
    st.warning(content.problem)
for notice in content.notices:
    st.warning(notice)
if step == 5:
    st.markdown(content.sentences[0])
    quadruplet_step()
else:
    for sentence in content.sentences:
        st.markdown(sentence)
    draw_figures(content, f"l{step}")
if content.footer:
    st.caption(content.footer)

if presenter:
    st.stop()

# ---- export the talk -----------------------------------------------------------------------------
FORMAT_LABELS = {"pdf": "PDF deck", "pptx": "PowerPoint", "zip": "Figures (SVG + PDF + CSV)"}
FILE_NAMES = {"pdf": "fedquad-lesson.pdf", "pptx": "fedquad-lesson.pptx", "zip": "fedquad-lesson-figures.zip"}


def export_block(key: str, build_slides, stem: str) -> None:
    ok, why = export_available()
    if not ok:
        st.caption(f"Slides need figure export: {why}.")
        return
    formats = st.pills("Files", list(FORMAT_LABELS), format_func=FORMAT_LABELS.get, selection_mode="multi",
                       default=list(FORMAT_LABELS), key=f"{key}_formats",
                       help="PDF and PowerPoint share one PNG per figure; the zip adds SVG and PDF renders.")
    if st.button("Build slides", key=f"{key}_build", icon=":material/slideshow:", disabled=not formats):
        t0 = time.perf_counter()
        with st.spinner("Rendering the figures (once for all the files)…"):
            st.session_state[f"{key}_files"] = slides.export_all(build_slides(), tuple(formats))
        st.session_state[f"{key}_secs"] = time.perf_counter() - t0
    files = st.session_state.get(f"{key}_files")
    if files:
        st.caption(f"Built in {st.session_state[f'{key}_secs']:.1f} s.")
        row = st.container(horizontal=True)
        for fmt, payload in files.items():
            row.download_button(FORMAT_LABELS[fmt], payload, file_name=FILE_NAMES[fmt].replace("fedquad-lesson", stem),
                                mime=slides.EXPORTS[fmt][1], key=f"{key}_dl_{fmt}", on_click="ignore")


with st.expander("Export the talk as slides", icon=":material/download:"):
    names = [f"{i} · {t}" for i, (t, _) in enumerate(lesson.STEPS, start=1)]
    chosen = st.multiselect("Steps", names, default=names, key="l_export_steps")
    st.caption("One page / slide per step: title, figures, sentences, and a footer citing the data's settings. "
               "Talk mode on = talk-styled figures.")
    export_block("l_export", lambda: [slides.from_step(content_of(names.index(n) + 1)) for n in chosen], "fedquad-lesson")

n_deck = len(deck.items())
with st.expander(f"My deck ({n_deck} figure{'' if n_deck == 1 else 's'})", icon=":material/playlist_add_check:",
                 expanded=bool(deck.items())):
    items = deck.items()
    if not items:
        st.caption("Empty: \"Add to my deck\" next to any figure's Download menu collects it here.")
    for i, item in enumerate(items):
        row = st.container(horizontal=True, vertical_alignment="center")
        row.markdown(f"**{i + 1}.** {item['title']}")
        row.button("↑", key=f"deck_up_{i}", on_click=deck.move, args=(i, -1), disabled=i == 0)
        row.button("↓", key=f"deck_down_{i}", on_click=deck.move, args=(i, 1), disabled=i == len(items) - 1)
        row.button("✕", key=f"deck_rm_{i}", on_click=deck.remove, args=(i,))
    if items:
        export_block("deck_export", lambda: deck.as_slides(deck.items()), "my-deck")
