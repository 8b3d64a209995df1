"""A plotly figure that a refreshing page updates in place: the Live page's charts while runs train.

``st.plotly_chart`` gives its element an id that hashes the figure itself (Streamlit 1.67, even
with a ``key``), and the browser keys the chart by that id: every figure with a new point is a new
chart, mounted afresh (``Plotly.newPlot`` into a new, empty element). On the Live page, refreshing
every second while the demo trained, each chart blanked for 0.1-0.8 s at each new point and the
browser's main thread was busy most of the time (``benchmarks/live_refresh.py``).

Here the element's identity is its ``key`` (an ``st.components.v2`` component, drawn in the page
itself, ``livechart.js``), and each new figure is drawn into the chart already there with
``Plotly.react``: the same element, no blank frame, only what changed redrawn. Zoom and pan survive
the refreshes (``uirevision``) until the page's view changes (``view``: e.g. the x axis).

plotly.js is loaded once per browser tab, on the first chart, and shared by every chart: the one
Streamlit's own charts use when a page has shown one (it sets ``window.Plotly``), else Streamlit's
chart code itself (the chunk ``st.plotly_chart`` loads, which evaluates in a fraction of the time
of the plotly package's ``plotly.min.js``: 0.3-0.7 s against 2.5-5.2 s on this busy machine), else
that ``plotly.min.js``, which Streamlit serves as the file of a v1 component declared for that only
(the plotly package's ``package_data`` folder; never drawn). One frame per chart, each loading
plotly.min.js, stalled the browser 10 s on a busy machine.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import plotly
import plotly.io as pio
import streamlit as st
import streamlit.components.v1 as components

JS = Path(__file__).with_name("livechart.js")
NAME = "fedquad_livechart"


@functools.cache
def plotly_js_urls() -> tuple[str, ...]:
    """Where the browser gets plotly.js, in the order tried, relative to the page (as Streamlit's own
    files are): Streamlit's chart chunk (when exactly one is found), then plotly.min.js."""
    chunks = sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    served = components.declare_component("fedquad_plotly_js", path=str(Path(plotly.__file__).parent / "package_data"))
    own = [f"static/js/{chunks[0].name}"] if len(chunks) == 1 else []
    return (*own, f"component/{served.name}/plotly.min.js")


@functools.cache
def _component():
    return st.components.v2.component(NAME, js=JS.read_text(), isolate_styles=False)


def chart(fig, key: str, view: str = "") -> None:
    """Draw ``fig`` under ``key``; a later call with the same key updates that chart in place.
    ``view`` names what the figure shows (a change resets the user's zoom)."""
    spec = pio.to_json(fig, validate=False)
    rev = hashlib.sha1(spec.encode()).hexdigest()[:16]  # the browser skips a render of the same figure
    _component()(key=key, data={"spec": spec, "rev": rev, "view": f"{key}|{view}",
                                "plotly": list(plotly_js_urls())})
