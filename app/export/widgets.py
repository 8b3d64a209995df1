"""The download widgets under each figure: a "Download" menu (PNG, SVG, PDF, HTML, CSV, made by
``app.export.files``) and "Add to my deck" (``app.export.deck``)."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app import state
from app.export import deck
from app.export.files import IMAGE_FORMATS, MIME, csv_bytes, export_available, figure_bytes

FORMAT_HELP = {"png": "image, 2x resolution", "svg": "vector, for slides", "pdf": "vector, for papers",
               "html": "interactive, opens offline", "csv": "the plotted numbers"}


def _figure_payload(fig, fmt: str):
    """Deferred bytes of the figure (``fig`` may be a zero-argument callable that builds it then)."""
    return lambda: figure_bytes(fig() if callable(fig) else fig, fmt)


def _csv_payload(data):
    if callable(data):
        return lambda: csv_bytes(data())
    return csv_bytes(data)  # small: made now, so a click survives the page re-running meanwhile


def render_downloads(fig, data, name: str, key: str, caption: str | None = None) -> None:
    """One compact "Download" menu for one figure (PNG, SVG, PDF, HTML, CSV inside), to be placed
    directly under its chart.

    ``fig`` is a Figure or a zero-argument callable returning one; ``data`` is a DataFrame, a
    zero-argument callable returning one, or None (no CSV). With callables, the files hold the data
    as it is when the button is clicked (the Live page uses this, so its menus need not be redrawn
    on every refresh). Figure files are made only when clicked (Streamlit's deferred ``data``);
    the CSV of a DataFrame is small and made at once. The menu's key is ``key`` and each button's
    ``{key}-{fmt}``. Beside the menu, "Add to my deck" (key ``deck-{key}``, hidden in presenter
    mode) appends the figure, its data and ``caption`` to the deck of ``app.export.deck``.
    """
    ok, why = export_available()
    formats = (list(IMAGE_FORMATS) if ok else []) + ["html"] + (["csv"] if data is not None else [])
    row = st.container(horizontal=True, gap="small")
    with row.popover("Download", icon=":material/download:", key=key, help=f"Download {name} as a file"):
        for fmt in formats:
            payload = _csv_payload(data) if fmt == "csv" else _figure_payload(fig, fmt)
            st.download_button(f"{fmt.upper()} — {FORMAT_HELP[fmt]}", data=payload, file_name=f"{name}.{fmt}",
                               mime=MIME[fmt], key=f"{key}-{fmt}", on_click="ignore", width="stretch")
        if not ok:
            st.caption(f"PNG/SVG/PDF export is off: {why}. The chart toolbar's camera icon saves a PNG.")
    if not state.presenter():
        row.button("Add to my deck", icon=":material/playlist_add:", key=f"deck-{key}", on_click=deck.add,
                   args=(fig, data, name, caption), help="Collect this figure for slides (listed and exported "
                                                         "on the Lesson page; kept while this tab is open)")


def show_figure(fig: go.Figure, key: str, data, name: str, *, note: str | None = None, fig_fn=None,
                data_fn=None) -> None:
    """The chart as the theme drew it (``theme=None``: Streamlit's own theme would restyle fonts,
    colours and legends), its Download menu right under it, then an optional caption."""
    st.plotly_chart(fig, key=key, theme=None)
    render_downloads(fig_fn or fig, data_fn or data, name, key=f"dl_{key}", caption=note)
    if note:  # under the menu, so the menus of two charts side by side stay level
        st.caption(note)
