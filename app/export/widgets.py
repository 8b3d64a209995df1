"""The export widgets: under each figure a "Download" menu (PNG, SVG, PDF, HTML, CSV, made by
``app.export.files``) and "Add to my deck" (``app.export.deck``); the slide files of the lesson
and of "My deck" (``app.export.slides``)."""
from __future__ import annotations

import time

import plotly.graph_objects as go
import streamlit as st

from app import state
from app.service import roles
from app.export import deck, slides
from app.export.files import IMAGE_FORMATS, MIME, csv_bytes, export_available, figure_bytes
from app.figures import captions

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
    mode) appends the figure, its data and ``caption`` to the deck of ``app.export.deck``. In
    presenter mode neither is shown.
    """
    if state.presenter():
        return  # presenter mode shows the content only
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
    row.button("Add to my deck", icon=":material/playlist_add:", key=f"deck-{key}", on_click=deck.add,
               args=(fig, data, name, caption, f"deck-{key}"),
               help=f"Collect this figure for slides (listed and exported on the Lesson page; kept while this tab "
                    f"is open; at most {deck.MAX_FIGURES} figures)")
    refused = deck.refusal(f"deck-{key}")
    if refused:
        st.warning(refused, icon=":material/playlist_remove:")


def show_figure(fig: go.Figure, key: str, data, name: str, *, note: str | None = None, fig_fn=None,
                data_fn=None) -> None:
    """The chart as the theme drew it (``theme=None``: Streamlit's own theme would restyle fonts,
    colours and legends), its Download menu right under it, then its caption: the plain sentence
    for students (``app.figures.captions``) and the page's ``note``."""
    note = captions.with_plain(key, note)
    st.plotly_chart(fig, key=key, theme=None)
    render_downloads(fig_fn or fig, data_fn or data, name, key=f"dl_{key}", caption=note)
    if note:  # under the menu, so the menus of two charts side by side stay level
        st.caption(note)


# ---- slides: the lesson's and my deck's -----------------------------------------------------
SLIDE_FORMATS = {"pdf": "PDF deck", "pptx": "PowerPoint", "zip": "Figures (SVG + PDF + CSV)"}
SLIDE_FILES = {"pdf": "fedquad-lesson.pdf", "pptx": "fedquad-lesson.pptx", "zip": "fedquad-lesson-figures.zip"}


def slides_block(key: str, build_slides, stem: str) -> None:
    """Pick the files (PDF, PowerPoint, figures zip), build them from ``build_slides()`` (a list
    of ``Slide``; the figures are rendered once for all the files) and offer them for download."""
    ok, why = export_available()
    if not ok:
        st.caption(f"Slides need figure export: {why}.")
        return
    if roles.is_student():  # a deck renders every figure: the lecturer's CPU is the class's
        st.caption("In a class the presenter builds the slides; each figure's own download works here.")
        return
    formats = st.pills("Files", list(SLIDE_FORMATS), format_func=SLIDE_FORMATS.get, selection_mode="multi",
                       default=list(SLIDE_FORMATS), key=f"{key}_formats",
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
            name = SLIDE_FILES[fmt].replace("fedquad-lesson", stem)
            row.download_button(SLIDE_FORMATS[fmt], payload, file_name=name, mime=slides.EXPORTS[fmt][1],
                                key=f"{key}_dl_{fmt}", on_click="ignore")


def deck_block() -> None:
    """"My deck": the collected figures, reorderable and removable, and its export as slides."""
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
            slides_block("deck_export", lambda: deck.as_slides(deck.items()), "my-deck")
