"""FedQuad Lab: entry point. Only routes: the pages (``app/views/``, one file each), the shared
sidebar (``app.sidebar``, with the one-minute demo's warm-up at the end of the first page run)
and the projection worker's keep-alive. Start with ``bash scripts/start.sh``."""
from __future__ import annotations

import gc
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import follow, service, sidebar, state  # noqa: E402
from app import presenter as presenter_bar  # noqa: E402
from app.service import roles  # noqa: E402
from app.studies import catalog  # noqa: E402

PAGES = [
    ("views/explore.py", "Explore", ":material/tune:"),
    ("views/partitions.py", "Partitions", ":material/grid_on:"),
    ("views/launch.py", "Launch", ":material/rocket_launch:"),
    ("views/live.py", "Live", ":material/monitoring:"),
    ("views/embeddings.py", "Embeddings", ":material/scatter_plot:"),
    ("views/geometry.py", "Geometry", ":material/insights:"),
    ("views/clients.py", "Clients", ":material/groups:"),
    ("views/runs.py", "Runs", ":material/folder_open:"),
    ("views/lesson.py", "Lesson", ":material/school:"),
]

# The tab's icon: a file shipped with the app (Streamlit sends it inline; a Material icon name here
# made every page fetch the icon from an outside font host)
FAVICON = str(Path(__file__).resolve().parent / "favicon.svg")

PRESENTER_PAGES = {"views/launch.py"}  # not offered to a student's session in a class


def default_page() -> str:
    """Explore when recorded studies ship with this copy (a fresh clone opens on results), else
    Partitions."""
    try:
        recorded = any(r.source == "recorded" for r in catalog.study_refs())
    except (OSError, ValueError, ImportError):
        recorded = False
    return "views/explore.py" if recorded else "views/partitions.py"


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
    roles.enter_session()  # a presenter's link (?token=...) is taken out of the URL first
    presenter = sidebar.presenter_requested()
    st.set_page_config(page_title="FedQuad Lab", page_icon=FAVICON, layout="wide",
                       initial_sidebar_state="collapsed" if sidebar.sidebar_collapsed() else "auto")
    if not roles.admitted():  # a class at its cap: a clear page, no work on the lecturer's laptop
        st.title("The class is full")
        st.info(f"This class server takes {roles.max_sessions()} browsers at once and all places are taken. "
                "Close another tab of it, or ask the lecturer; reload this page when a place is free.")
        st.stop()
    service.keep_projection_worker()
    start = default_page()
    shown = [p for p in PAGES if roles.is_presenter() or p[0] not in PRESENTER_PAGES]
    pages = [st.Page(path, title=title, icon=icon, default=(path == start)) for path, title, icon in shown]
    nav = st.navigation(pages, position="hidden" if presenter else "sidebar")
    current = next((path for (path, _, _), page in zip(shown, pages) if page.url_path == nav.url_path), start)
    st.session_state[follow.PAGE_KEY] = current
    follow.take_over([path for path, _, _ in shown], current)  # a student: the lecturer's page and settings
    sidebar.global_controls()
    if state.presenter():  # the page menu, the demo and the way out, in the top bar; the clicker's keys
        presenter_bar.bar(shown, current)
    follow.banner()
    try:
        nav.run()
    finally:  # (also when the page stops or reruns)
        follow.share(current)  # a presenter who shares: this run's position, for the students
        _freeze_startup_heap()
        sidebar.warm_quick_start()
        service.keep_warm_server()


if __name__ == "__main__":  # Streamlit runs this file as __main__; a process spawned by multiprocessing
    main()                  # imports its parent's __main__ as __mp_main__, and must not run the dashboard
