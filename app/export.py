"""Downloads: figures as PNG / SVG / PDF (kaleido 1.x driving a headless Chrome/Chromium), as
self-contained HTML (plotly.js embedded, so it opens offline), tables as CSV, and a zip per run.

Finding the browser: ``$BROWSER_PATH`` if set, else choreographer's own search (a Chrome that
``kaleido.get_chrome`` downloaded, then chrome / chromium on ``$PATH``, then typical install
paths), which finds Debian's /usr/bin/chromium. The path found is passed to kaleido explicitly.
One kaleido browser is kept open per process (its first figure pays ~3 s to start it; later ones
~0.2 s) and is used by one caller at a time.
"""
from __future__ import annotations

import functools
import io
import json
import os
import threading
import zipfile

import pandas as pd
import plotly.graph_objects as go

IMAGE_FORMATS = ("png", "svg", "pdf")
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html", "csv": "text/csv"}
DEFAULT_SIZE = (1000, 600)
_lock = threading.Lock()


class ExportUnavailable(RuntimeError):
    """Static image export needs kaleido and a Chrome/Chromium; this machine lacks one of them."""


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido will drive, or None."""
    env = os.environ.get("BROWSER_PATH")
    if env:
        return env if os.access(env, os.X_OK) else None
    try:
        from choreographer.browsers.chromium import Chromium

        return Chromium.find_browser(skip_local=False)
    except Exception:  # noqa: BLE001 - any failure to search means "not found"
        return None


@functools.lru_cache(maxsize=1)
def export_available() -> tuple[bool, str]:
    """(True, browser path) when PNG/SVG/PDF export can work, else (False, why not)."""
    try:
        import kaleido  # noqa: F401
        from plotly.io._kaleido import kaleido_available
    except ImportError:
        return False, "kaleido is not installed (pip install 'kaleido>=1')"
    if not kaleido_available():
        return False, "plotly needs kaleido >= 1 for image export"
    path = browser_path()
    if not path:
        return False, "no Chrome/Chromium found (install chromium or set BROWSER_PATH)"
    return True, path


def figure_bytes(fig: go.Figure, fmt: str) -> bytes:
    """The figure as a file: "png" | "svg" | "pdf" (kaleido) or "html" (plotly.js embedded)."""
    fmt = fmt.lower()
    if fmt == "html":
        return fig.to_html(include_plotlyjs=True, full_html=True).encode()
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use png, svg, pdf or html")
    ok, why = export_available()
    if not ok:
        raise ExportUnavailable(why)
    width = fig.layout.width or DEFAULT_SIZE[0]
    height = fig.layout.height or DEFAULT_SIZE[1]
    opts = {"format": fmt, "width": width, "height": height, "scale": 2 if fmt == "png" else 1}
    return _render(fig, opts, why)


def _render(fig: go.Figure, opts: dict, path: str) -> bytes:
    import kaleido

    with _lock:  # kaleido's sync server pairs requests and answers through one queue
        kaleido.start_sync_server(path=path, mathjax=False, silence_warnings=True)
        try:
            return kaleido.calc_fig_sync(fig, opts=opts)
        except Exception:  # noqa: BLE001 - the browser may have died: start afresh once
            kaleido.stop_sync_server(silence_warnings=True)
            return kaleido.calc_fig_sync(fig, opts=opts, kopts={"path": path, "mathjax": False})


def _csv_bytes(data) -> bytes:
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    return frame.to_csv(index=False).encode()


FORMAT_HELP = {"png": "image, 2x resolution", "svg": "vector, for slides", "pdf": "vector, for papers",
               "html": "interactive, opens offline", "csv": "the plotted numbers"}


def _figure_payload(fig, fmt: str):
    """Deferred bytes of the figure (``fig`` may be a zero-argument callable that builds it then)."""
    return lambda: figure_bytes(fig() if callable(fig) else fig, fmt)


def _csv_payload(data):
    if callable(data):
        return lambda: _csv_bytes(data())
    return _csv_bytes(data)  # small: made now, so a click survives the page re-running meanwhile


def render_downloads(fig, data, name: str, key: str, caption: str | None = None) -> None:
    """One compact "Download" menu for one figure (PNG, SVG, PDF, HTML, CSV inside), to be placed
    directly under its chart.

    ``fig`` is a Figure or a zero-argument callable returning one; ``data`` is a DataFrame, a
    zero-argument callable returning one, or None (no CSV). With callables, the files hold the data
    as it is when the button is clicked (the Live page uses this, so its menus need not be redrawn
    on every refresh). Figure files are made only when clicked (Streamlit's deferred ``data``);
    the CSV of a DataFrame is small and made at once. The menu's key is ``key`` and each button's
    ``{key}-{fmt}``. Beside the menu, "Add to my deck" (key ``deck-{key}``, hidden in presenter
    mode) appends the figure, its data and ``caption`` to the deck of ``app.deck``.
    """
    import streamlit as st

    from app import deck, state

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
    import streamlit as st

    st.plotly_chart(fig, key=key, theme=None)
    render_downloads(fig_fn or fig, data_fn or data, name, key=f"dl_{key}", caption=note)
    if note:  # under the menu, so the menus of two charts side by side stay level
        st.caption(note)


def run_bundle(store, run_id: str) -> bytes:
    """A zip of one run: config.json, status.json, metrics.csv, partition.csv and its curves
    (figures/*.html always, figures/*.svg when image export works)."""
    from app.figures import curves_figure, metrics_frame

    config, status, rows = store.read_config(run_id), store.read_status(run_id), store.read_metrics(run_id)
    df = metrics_frame({run_id: rows}, {run_id: {"label": config.get("label") or run_id,
                                                 "method": config.get("method", "unknown")}})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("config.json", json.dumps(config, indent=2, sort_keys=True))
        zf.writestr("status.json", json.dumps(status, indent=2, sort_keys=True))
        zf.writestr("metrics.csv", df.to_csv(index=False))
        zf.writestr("partition.csv", _partition_csv(store.read_partition(run_id)))
        for metric, stem in (("test_accuracy", "accuracy"), ("ratio", "ratio")):
            fig = curves_figure(df, metric, title=f"{run_id}: {stem}")
            zf.writestr(f"figures/{stem}.html", figure_bytes(fig, "html"))
            if export_available()[0]:
                zf.writestr(f"figures/{stem}.svg", figure_bytes(fig, "svg"))
    return buf.getvalue()


def _partition_csv(partition: dict | None) -> str:
    if not partition or "counts" not in partition:
        return "client\n"
    counts = pd.DataFrame(partition["counts"])
    names = partition.get("class_names") or list(counts.columns)
    counts.columns = [str(c) for c in names][: counts.shape[1]]
    present = (counts > 0).sum(axis=1)
    counts.insert(0, "client", range(len(counts)))
    counts["size"], counts["classes"] = counts.iloc[:, 1:].sum(axis=1), present
    return counts.to_csv(index=False)
