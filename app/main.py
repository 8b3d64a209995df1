"""FedQuad Lab: entry point. Routes to the pages and draws the global sidebar controls
(talk mode, presenter mode, About). Start with ``bash scripts/start.sh``."""
from __future__ import annotations

import gc
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import presets, projection_worker, service, state, studies  # noqa: E402

PAGES = [
    ("views/explore.py", "Explore", ":material/tune:"),
    ("views/partitions.py", "Partitions", ":material/grid_on:"),
    ("views/launch.py", "Launch", ":material/rocket_launch:"),
    ("views/live.py", "Live", ":material/monitoring:"),
    ("views/embeddings.py", "Embeddings", ":material/scatter_plot:"),
    ("views/geometry.py", "Geometry", ":material/insights:"),
    ("views/runs.py", "Runs", ":material/folder_open:"),
    ("views/lesson.py", "Lesson", ":material/school:"),
]

TALK_CSS = """<style>
.stApp, [data-testid="stSidebar"], [data-testid="stHeader"] {background: #ffffff !important; color: #111 !important;}
.stApp p, .stApp li, .stApp label {font-size: 1.2rem;}
.stApp h1 {font-size: 2.6rem;} .stApp h2 {font-size: 2.1rem;} .stApp h3 {font-size: 1.7rem;}
</style>"""
PRESENTER_CSS = """<style>
[data-testid="stToolbar"], [data-testid="stDecoration"], footer {display: none !important;}
</style>"""


def about() -> str:
    lines = ["**FedQuad Lab** makes representational collapse in federated learning visible: under label "
             "skew each client's classes pull the shared embedding apart, and FedQuad's quadruplet term "
             "keeps classes compact and separated.", "",
             "FedQuad: Göksu & Pugeault, *FedQuad: Federated Stochastic Quadruplet Learning*, arXiv 2509.04107, 2025.",
             "", "Methods compared:"]
    for name in service.method_names():
        lines.append(f"- **{service.method_label(name)}**: {service.method_citation(name)}")
    return "\n".join(lines)


QUICK_PRESET = "Collapse in one minute"


def quick_start() -> None:
    """One click from any page: launch the collapse demo (FedAvg vs FedQuad, same partition and
    seed) in the background and go to the Live page to watch it."""
    preset = presets.PRESETS[QUICK_PRESET]
    if not st.button(f"▶ {QUICK_PRESET}", type="primary", use_container_width=True, key="quick_start",
                     help=f"{preset['note']} Starts {' vs '.join(map(service.method_label, preset['methods']))} "
                          "in the background, then opens the Live page."):
        return
    cfgs = service.make_configs(preset["methods"], preset["config"], {})
    problem = service.check_configs(cfgs)
    if problem:
        st.error(problem)
        return
    service.launch_group(cfgs)
    st.switch_page("views/live.py")


def global_controls() -> None:
    for key in ("talk", "presenter"):
        if key not in st.session_state:
            st.session_state[key] = state.value(key, False, bool)
    with st.sidebar:
        if not state.presenter():
            quick_start()
        st.toggle("Talk mode", key="talk", help="White background, large fonts, colour-blind-safe palette.")
        st.toggle("Presenter mode", key="presenter", help="Hide the controls; the view stays as set.")
        if not state.presenter():
            with st.expander("About"):
                st.markdown(about())
    for key in ("talk", "presenter"):
        if st.session_state[key]:
            st.query_params[key] = "1"
        elif key in st.query_params:
            del st.query_params[key]
    if state.talk():
        st.markdown(TALK_CSS, unsafe_allow_html=True)
    if state.presenter():
        st.markdown(PRESENTER_CSS, unsafe_allow_html=True)


def default_page() -> str:
    """Explore when recorded studies ship with this copy (a fresh clone opens on results), else
    Partitions."""
    try:
        recorded = any(r.source == "recorded" for r in studies.study_refs())
    except (OSError, ValueError, ImportError):
        recorded = False
    return "views/explore.py" if recorded else "views/partitions.py"


@st.cache_resource(show_spinner=False)
def _worker_start_lock() -> threading.Lock:
    return threading.Lock()  # one per server process: its sessions' threads start one worker


def keep_projection_worker() -> None:
    """Make sure the user store's UMAP projection worker runs (a flock check; it starts the
    detached worker only when none is alive, e.g. at the first page load or after an idle exit).
    The worker exits with this server process. FEDQUAD_PROJECTION_WORKER=0 turns it off."""
    if os.environ.get("FEDQUAD_PROJECTION_WORKER", "1") == "0":
        return
    with _worker_start_lock():
        projection_worker.ensure_worker(service.runs_dir(), parent=os.getpid())


@st.cache_resource(show_spinner=False)
def _freeze_startup_heap() -> bool:
    """Once per server process, after the first page ran: the objects alive then (the imported
    streamlit, plotly, pandas, numpy, ...: ~300k) are moved out of the garbage collector's view
    (``gc.freeze``; never freed then: mostly modules, plus the first page's own objects, once).
    Its full collections then scan only what pages made since: unfrozen, one landing on a slider
    move paused it by 100-160 ms (``benchmarks/slider_speed.py``)."""
    gc.collect()
    gc.freeze()
    return True


def main() -> None:
    st.set_page_config(page_title="FedQuad Lab", page_icon=":material/hub:", layout="wide")
    keep_projection_worker()
    start = default_page()
    nav = st.navigation([st.Page(path, title=title, icon=icon, default=(path == start))
                         for path, title, icon in PAGES])
    global_controls()
    try:
        nav.run()
    finally:  # (also when the page stops or reruns)
        _freeze_startup_heap()


main()
