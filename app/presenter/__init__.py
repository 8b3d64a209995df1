"""Presenter mode's way out and way around: a small bar in the page's top right corner (fixed, over
no content) with a page menu (every page this session may open, and for the presenter the
one-minute demo) and "Exit presenter"; and the keys a lecturer's clicker sends (``keys.js``, one
listener in the page itself): PageDown / ArrowRight / ArrowDown / Space step the Lesson on,
PageUp / ArrowLeft / ArrowUp back, Escape or P leave presenter mode.

Presenter mode hides Streamlit's toolbar and with it the button that reopens the sidebar, where
the toggle is: without this bar the only way out was to reopen a link."""
from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

from app import service, sidebar

KEY = "fq_presenter"            # the bar's container (its class ``st-key-fq_presenter``: keys.js acts while it is there)
EXIT_KEY = "fq_exit_presenter"  # the Exit button (keys.js clicks it on Escape / P)
DEMO_KEY = "quick_start_presenter"
JS = Path(__file__).with_name("keys.js")
KEYS_HELP = ("Keys: PageDown, →, ↓ or Space: next step; PageUp, ← or ↑: back (a clicker's keys); "
             "Esc or P: leave presenter mode.")

BAR_CSS = """<style>
.st-key-fq_presenter {position: fixed; top: 8px; right: 12px; z-index: 999990; width: auto !important;
  background: #ffffffee; border: 1px solid #d0d7de; border-radius: 8px; padding: 2px 6px; gap: 0.25rem !important;}
.st-key-fq_presenter p {font-size: 0.95rem !important; margin: 0; white-space: nowrap;}
.st-key-fq_presenter button {min-height: 2rem; padding: 0 0.6rem;}
.st-key-fq_presenter .st-key-fq_presenter_keys {display: none;}
.stApp [data-testid="stMainBlockContainer"] {padding-top: 0.5rem !important;}
</style>"""  # (the bar floats at the top right, over no content: the page starts at the top, its figures higher)


def _exit() -> None:
    st.session_state["presenter"] = False  # the sidebar toggle's key (a callback runs before it is drawn)


@functools.cache
def _keys_component():
    return st.components.v2.component("fedquad_presenter_keys", js=JS.read_text(), isolate_styles=False)


def bar(pages: list[tuple[str, str, str]], current: str) -> None:
    """The bar, in presenter mode: ``pages`` as ``app.main`` lists them for this session (path,
    title, icon), ``current`` the page shown."""
    st.markdown(BAR_CSS, unsafe_allow_html=True)
    with st.container(key=KEY, horizontal=True, vertical_alignment="center", width="content"):
        # one menu per page (its key): the bar stays on the screen across a page switch, and a menu
        # opened on the last page would stay open over this one's figures
        with st.popover("Pages", icon=":material/menu:", key=f"fq_pages_{Path(current).stem}"):
            for path, title, icon in pages:
                st.page_link(path, label=title, icon=icon)
            if service.is_presenter():  # a student starts nothing on the lecturer's CPU
                st.divider()
                sidebar.quick_start(key=DEMO_KEY)
        st.button("Exit presenter", key=EXIT_KEY, on_click=_exit, icon=":material/close_fullscreen:",
                  help=KEYS_HELP)
        _keys_component()(key="fq_presenter_keys", data={})
