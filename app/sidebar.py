"""The controls every page shares, in the sidebar: the one-click demo, talk mode, presenter mode
and About (with the methods compared and their papers)."""
from __future__ import annotations

import streamlit as st

from app import follow, presets, service, state
from app.figures.palette import page_css

QUICK_PRESET = "Collapse in one minute"


def about() -> str:
    lines = ["**FedQuad Lab** makes representational collapse in federated learning visible: under label "
             "skew each client's classes pull the shared embedding apart, and FedQuad's quadruplet term "
             "keeps classes compact and separated.", "",
             "FedQuad: Göksu & Pugeault, *FedQuad: Federated Stochastic Quadruplet Learning*, arXiv 2509.04107, 2025.",
             "", "Methods compared:"]
    for m in service.methods().values():
        lines.append(f"- **{m.label}**: {m.citation}")
    return "\n".join(lines)


def quick_start(key: str = "quick_start") -> None:
    """One click from any page: launch the collapse demo (FedAvg vs FedQuad, same partition and
    seed) in the background and go to the Live page to watch it (``key``: the sidebar's button, or
    presenter mode's page menu's)."""
    preset = presets.PRESETS[QUICK_PRESET]
    # No tooltip (``help=``): after the click the pointer still rests on the button, and its tooltip
    # lay over the Live page's accuracy chart legend. The same words sit under the button instead.
    clicked = st.button(f"▶ {QUICK_PRESET}", type="primary", use_container_width=True, key=key)
    st.caption(quick_start_note(preset))
    if not clicked:
        return
    problem = service.launch_preset(QUICK_PRESET)
    if problem:
        st.error(problem)
        return
    st.switch_page("views/live.py")


def quick_start_note(preset: dict) -> str:
    """The line under the demo button: what it trains and where it goes."""
    return (f"{' vs '.join(map(service.method_label, preset['methods']))}, trained in the background; "
            "opens the Live page.")


START_HINT = ("**Start here:** press **▶ {button}** in the sidebar to train FedAvg and FedQuad live, "
              "or move a slider below to see recorded results.")


def start_hint() -> None:
    """One line on the start page saying what to do first (not in presenter mode: no sidebar
    button there, and the audience needs no instructions; nor for a student of a class, who has
    no such button and follows the lecturer)."""
    if not state.presenter() and service.is_presenter():
        st.info(START_HINT.format(button=QUICK_PRESET), icon=":material/touch_app:")


@st.cache_resource(show_spinner=False)  # once per server process; the caches it fills show no spinner
def warm_quick_start() -> None:
    """At the end of the server's first page run (its figures are sent by then): check the demo's
    settings, which imports the engine's registry and loads the digits labels into the cache, and
    hash the engine's code for the runs' keys (1.1 s the first time a process launches a run).
    Cold, the check took 0.7 s of the click's time before the runs were started
    (benchmarks/demo_first_point.py). It runs in the script's thread: a background thread here
    imported torch while a page's script imported other native libraries, and Streamlit's caches
    are not to be called from threads of one's own."""
    preset = presets.PRESETS[QUICK_PRESET]
    try:
        service.check_configs(service.make_configs(preset["methods"], preset["config"], {}))
        service.warm_launch()
    except Exception:  # noqa: BLE001 - only a warm-up: the click checks again and says what is wrong
        pass


def _mode(key: str) -> bool:
    """Talk or presenter mode: the toggle's state, else the copy kept under a plain key (a page
    switch, as the demo's click makes, drops the toggle's state and the link's query string but
    not that copy), else the link (``?talk=1``)."""
    kept = st.session_state.get(f"_{key}_kept")
    if key not in st.session_state and isinstance(kept, bool):
        return kept
    return bool(state.value(key, False, bool))


def sidebar_collapsed() -> bool:
    """The sidebar starts collapsed in presenter and in talk mode: on a projector's 1280 px the
    figures need the width (one click on the arrow opens it)."""
    return _mode("presenter") or _mode("talk")


def presenter_requested() -> bool:
    """Presenter mode, as set in this session or asked for by the link (``?presenter=1``), known
    before the page navigation is drawn (presenter mode hides it)."""
    return _mode("presenter")


def global_controls() -> None:
    for key in ("talk", "presenter"):
        if key not in st.session_state:
            st.session_state[key] = _mode(key)
    with st.sidebar:
        if not state.presenter() and service.is_presenter():  # a student starts nothing on the lecturer's CPU
            quick_start()
        elif service.is_student():
            st.caption("You are following a class: explore, follow the lecturer and download figures.")
        st.toggle("Talk mode", key="talk", help="White background, large fonts, colour-blind-safe palette.")
        st.toggle("Presenter mode", key="presenter",
                  help="Content and the Lesson's Back / Next only: no page list, controls or download buttons.")
        follow.presenter_controls(state.talk())
        if not state.presenter():
            with st.expander("About"):
                st.markdown(about())
    for key in ("talk", "presenter"):
        st.session_state[f"_{key}_kept"] = bool(st.session_state[key])
        if st.session_state[key]:
            st.query_params[key] = "1"
        elif key in st.query_params:
            del st.query_params[key]
    css = page_css(state.talk(), state.presenter())
    if css:  # one block: each element in the page adds a gap above the content
        st.markdown("".join(css), unsafe_allow_html=True)
