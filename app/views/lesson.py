"""Lesson: collapse vs FedQuad as a story in nine steps (``app.lesson.steps``), one step per screen,
the step number in the URL (``?step=3``), the interactive quadruplet picture on step 5, the
talk exported as slides, and "My deck" (figures collected from the other pages)."""
from __future__ import annotations

import html

from plotly.graph_objects import Figure
import streamlit as st

from app.lesson import poll as class_poll
from app import follow, service, state
from app.export import slides, widgets
from app.export.slides import Slide
from app.export.content import untagged
from app.export.widgets import show_figure
from app.figures import palette
from app.figures.fit import fit
from app.lesson import data as lesson_data
from app.lesson import demo_study
from app.lesson.confirmation import HEAD
from app.lesson import steps as lesson
from app.lesson.quadruplet_panel import quad_settings, quadruplet_step
from app.presenter import fit as projector

N = len(lesson.STEPS)
talk, presenter = state.talk(), state.presenter()
if not talk:  # on a projector the step's title heads the page: the figure keeps the first screen
    st.title("Lesson")

def demo_panel() -> None:
    """After the one-minute demo: one button that trains the missing α in the background."""
    offer = demo_study.offer()
    if offer is None:
        st.caption("Start the one-minute demo (sidebar) or runs of your own on the Launch page first.")
        return
    if offer.running:
        st.info(f"Computing the demo at more α in the background: {offer.missing} run(s) to go "
                f"(about {offer.seconds:.0f} s). Turn 'Use my runs' off and on again to look.",
                icon=":material/hourglass_empty:")
        return
    if offer.missing and service.is_presenter() and st.button(f"Compute the missing {offer.missing} runs (about {offer.seconds:.0f} s)",
                                   key="l_demo_compute", type="primary", icon=":material/play_arrow:",
                                   help="Trains the demo's setting at α = 0.1, 1 and IID (your demo runs are "
                                        "reused), in the background; the lesson uses them when they are done."):
        try:
            demo_study.start()
            st.toast("Started: the lesson fills in as the runs finish.")
            st.rerun()
        except (OSError, service.StoreError) as e:
            st.error(str(e))


# ---- where the data comes from -----------------------------------------------------------------
state.init("l_mine", False, bool)
mine_studies = lesson_data.user_study_names()


def source_controls() -> None:
    """Which runs the lesson reads: above the step on a laptop, under it in talk mode (the step's
    figure keeps the projector's first screen); none in presenter mode."""
    if presenter:
        return
    a, b = st.columns([1, 2])
    a.toggle("Use my runs", key="l_mine", help="Show your own study (or finished runs) instead of the recorded "
                                                "studies shipped with the app.")
    if st.session_state.l_mine and mine_studies:  # (l_study initialised below, before any call)
        b.selectbox("My study", mine_studies, key="l_study")


if st.session_state.l_mine and mine_studies:
    state.init("l_study", mine_studies[0], str, mine_studies)
    state.publish("l_study")
if not talk:
    source_controls()
state.publish("l_mine")
data, problem = lesson_data.load(bool(st.session_state.l_mine), st.session_state.get("l_study"))
if problem and st.session_state.l_mine:
    st.warning(problem)  # once, with the one fix: compute what is missing, in the background
    demo_panel()
    st.stop()
if problem:
    st.warning(problem)

# ---- the step, its number in the URL ------------------------------------------------------------
state.init("step", 1, int, list(range(1, N + 1)))


def go(delta: int) -> None:
    st.session_state.step = min(N, max(1, st.session_state.step + delta))


step = int(st.session_state.step)
state.publish("step")


@st.cache_resource(max_entries=64, show_spinner="Building the step…")
def cached_step(i: int, root: str, name: str, source: str, signature: tuple, talk: bool) -> Slide:
    return lesson.build_step(i, data, talk, problem)


def signature(d) -> tuple:
    """Changes when a study file or its runs change (so a regenerated study is re-read)."""
    if d is None:
        return ()
    return tuple((s.get("name"), len(s.get("points", [])), tuple(sorted(p.get("run_id") or "" for p in s.get("points", []))),
                  s.get("created")) for s in [d.study, *d.studies.values()])


def content_of(i: int) -> Slide:
    if i == 5:
        idea = lesson.step_idea(data, talk, *quad_settings())
        idea.lead = lesson.LEADS[5]  # what the figure shows (under "The numbers")
        return idea
    return cached_step(i, str(data.root) if data else "", (data.study.get("name") if data else "") or "",
                       data.source if data else "", signature(data), talk)


content = content_of(step)
class_poll.controls(step, data)  # class mode, the presenter: ask the class / the live count, reveal, clear
asked, _, _ = class_poll.on_step(step)  # a question the class is asked on this step: beside the figures
nav = st.columns([1, 6, 1], vertical_alignment="center")
nav[0].button("← Back", key="l_back", on_click=go, args=(-1,), disabled=step == 1, width="stretch")
nav[2].button("Next →", key="l_next", on_click=go, args=(1,), disabled=step == N, width="stretch")
if talk:  # one row: Back, the step's title over a thin progress bar, Next
    nav[1].markdown(f"<div class='fq-step-title'>{html.escape(content.title)} "
                    f"<span class='fq-step-of'>· {step} / {N}</span></div>", unsafe_allow_html=True)
    nav[1].progress(step / N)
else:
    nav[1].progress(step / N, text=f"Step {step} of {N}: {lesson.STEPS[step - 1][0]}")


# A row of three figures at 1280 px beside the open sidebar is about 280 px a figure (talk mode's
# collapsed sidebar leaves about 390: its own look's width holds)
ROW_OF_THREE = 270


def draw_figures(content: Slide, prefix: str) -> None:
    shown = [f for f in content.figures if not f.deck_only]
    n = len(shown)
    if asked is not None and n:
        # a question the class is asked on this step: one more column of the figures' row, beside
        # them, and the figures laid out again for the narrower columns (a row of three in talk mode
        # would otherwise wrap, its last figure off the first screen)
        with st.container(key=class_poll.ROW_KEY):
            st.markdown(class_poll.ROW_CSS, unsafe_allow_html=True)
            cols = st.columns([1] * n + [class_poll.SIDE])
            with cols[-1]:
                class_poll.panel(step)
            width = class_poll.figure_width(n, talk)
            for j, (col, item) in enumerate(zip(cols, shown)):
                fig = fit(Figure(item.fig), talk, width=width) if width < (palette.TALK_WIDTH if talk else palette.ASSUMED_WIDTH) \
                    else item.fig
                with col:
                    show_figure(fig, f"{prefix}_{j}", item.data, item.name, note=item.caption or None)
        return
    long_tables = [f for f in shown if talk and is_long_table(f.fig)]
    shown = [f for f in shown if f not in long_tables]
    n = len(shown)
    cols = st.columns(n) if n else []
    for j, (col, item) in enumerate(zip(cols, shown)):
        if talk:
            fig = projector.fit(item.fig, n, ROOM)
        else:
            fig = fit(Figure(item.fig), False, width=ROW_OF_THREE) if len(cols) >= 3 else item.fig
        with col:
            show_figure(fig, f"{prefix}_{j}", item.data, item.name, note=item.caption or None)
    for j, item in enumerate(long_tables):  # on the projector: one click away, paging in its own box
        with st.expander(f"Every row ({item.name.replace('_', ' ')})", expanded=False):
            show_figure(go_height(item.fig, TABLE_BOX), f"{prefix}_t{j}", item.data, item.name,
                        note=item.caption or None)


# On the projector (1280x720): a step's figures start under its title row and takeaway, about 160 px
# down in presenter mode and 172 in talk mode, so a figure of the step keeps to ``ROOM`` px to be
# whole on the first screen (tests/e2e/test_talk_layout.py measures it); each is laid out for its
# column (``app.presenter.fit``)
ROOM = 540
TABLE_BOX = 620  # a long table's box: it pages inside it (plotly's table scrolls its rows)
# The line under the takeaway that says what fresh seeds found: one line on the projector (its
# 0.95 rem at about 6.5 px a character over 1216 px: about 185 characters), the claims' tags left
# out where they would wrap it (every tag: step 9 and "The numbers")
CONFIRMED_CHARS = 185


def confirmed_line(content: Slide) -> str:
    if not content.confirmed:
        return ""
    line = "Confirmed on fresh seeds? " + " · ".join(content.confirmed)
    return line if len(line) <= CONFIRMED_CHARS else "Confirmed on fresh seeds? " + " · ".join(untagged(content.confirmed))


def is_long_table(fig) -> bool:
    """A table figure (every trace a table) taller than a step's room: the full claims table."""
    return bool(fig.data) and all(t.type == "table" for t in fig.data) and (fig.layout.height or 0) > ROOM


def go_height(fig, height: int):
    if (fig.layout.height or 0) <= height:
        return fig
    out = type(fig)(fig)
    out.layout.height = height
    return out


if not talk:
    st.header(content.title)
if content.problem:
    st.warning(content.problem)
for notice in content.notices if not talk else ():
    st.warning(notice)
if not content.problem:
    # on top, one sentence a student can repeat (from the verdict the step rests on); the figure;
    # the numbers and p-values under it, in "The numbers"
    if content.takeaway:
        st.markdown(f"<div class='fq-takeaway'><b>{html.escape(content.takeaway)}</b></div>", unsafe_allow_html=True)
    if content.confirmed:  # what fresh seeds, judged by rules fixed before their runs, make of the claim
        st.markdown(f"<div class='fq-confirmed'>{html.escape(confirmed_line(content))}</div>", unsafe_allow_html=True)
    if step == 5:
        quadruplet_step(talk)
    else:
        draw_figures(content, f"l{step}")
    with st.expander("The numbers", expanded=False):
        if content.lead:
            st.caption(content.lead)
        for sentence in content.sentences:
            st.markdown(sentence)
        if content.confirmed_numbers:
            st.markdown(HEAD + "\n" + "".join(f"\n- {line}" for line in content.confirmed_numbers))
for notice in content.notices if talk else ():  # on a projector: under the figure
    st.warning(notice)
if content.footer:
    st.caption(content.footer)
if talk:
    source_controls()

if presenter:
    # the students follow this step: shared here, before st.stop() ends the run (measured: the
    # shared position otherwise stayed at the page before the Lesson in presenter mode)
    follow.share()
    st.stop()

# ---- export the talk -----------------------------------------------------------------------------
with st.expander("Export the talk as slides", icon=":material/download:"):
    names = [f"{i} · {t}" for i, (t, _) in enumerate(lesson.STEPS, start=1)]
    chosen = st.multiselect("Steps", names, default=names, key="l_export_steps")
    st.caption("Each step's takeaway as the slide's title, one figure large a slide (step 5's two panels side by "
               "side), the numbers and p-values in the PowerPoint file's speaker notes, and a footer citing the "
               "data's settings. "
               "Talk mode on = talk-styled figures.")
    widgets.slides_block("l_export", lambda: [slides.from_step(content_of(names.index(n) + 1)) for n in chosen],
                         "fedquad-lesson")

# ---- take it home: the Lesson and Explore as one offline HTML file ------------------------------------
def takehome_block() -> None:
    """Build the take-home file (``app.export.takehome``: Explore's first study and the Lesson's,
    every slider position, from the recorded studies) and offer it for download."""
    if service.is_student():  # it builds every position's figures: the lecturer's CPU is the class's
        st.caption("In a class the presenter builds this file and shares it (e-mail, a USB stick, the course page).")
        return
    st.caption("One .html file that opens offline from a USB stick, an e-mail or a course page: the nine steps "
               "and Explore's sliders over the recorded studies, every position, no server, no install. It cannot "
               "train new settings. (`fedquad export html` writes the same from the command line.)")
    if st.button("Build the take-home file", key="l_takehome_build", icon=":material/home:"):
        # the positions of every study (plotly, pandas, Explore's panels): only when asked
        from app.export.takehome.make import make

        saved = {k: st.session_state.pop(k) for k in ("x_local", "x_hm") if k in st.session_state}
        try:  # Explore's defaults (as on the command line), not this session's choices there
            with st.spinner("Building every slider position's figures…"):
                built = make()
        except (ValueError, OSError, service.StoreError) as e:
            st.error(str(e))
            return
        finally:
            st.session_state.update(saved)
        st.session_state["l_takehome_file"] = built.text.encode()
        st.session_state["l_takehome_note"] = (f"{len(st.session_state['l_takehome_file']) / 1e6:.1f} MB: "
                                               f"{built.positions} Explore positions, {built.figures} figures.")
    if st.session_state.get("l_takehome_file"):
        st.caption(st.session_state["l_takehome_note"])
        st.download_button("Download fedquad-takehome.html", st.session_state["l_takehome_file"],
                           file_name="fedquad-takehome.html", mime="text/html", key="l_takehome_dl", on_click="ignore",
                           icon=":material/download:")


with st.expander("Take it home: one offline HTML file", icon=":material/home:"):
    takehome_block()

widgets.deck_block()
