"""The bytes of downloads (no widgets; ``app.export.widgets`` draws the menus): figures as PNG /
SVG / PDF (kaleido 1.x driving a headless Chrome/Chromium), as self-contained HTML (plotly.js
embedded, so it opens offline), tables as CSV, and a zip per run.

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

from app.figures.charts import curves_figure, metrics_frame

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
        # inside the try: a missing or changed choreographer (kaleido's) reads as "no browser found"
        from choreographer.browsers.chromium import Chromium

        return Chromium.find_browser(skip_local=False)
    except Exception:  # noqa: BLE001 - any failure to search means "not found"
        return None


@functools.lru_cache(maxsize=1)
def export_available() -> tuple[bool, str]:
    """(True, browser path) when PNG/SVG/PDF export can work, else (False, why not)."""
    try:
        # inside the try: without kaleido the pages say why export is off instead of failing to import
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
    import kaleido  # may be missing: export_available() says so, and no page import fails on it

    with _lock:  # kaleido's sync server pairs requests and answers through one queue
        kaleido.start_sync_server(path=path, mathjax=False, silence_warnings=True)
        try:
            return kaleido.calc_fig_sync(fig, opts=opts)
        except Exception:  # noqa: BLE001 - the browser may have died: start afresh once
            kaleido.stop_sync_server(silence_warnings=True)
            return kaleido.calc_fig_sync(fig, opts=opts, kopts={"path": path, "mathjax": False})


def csv_bytes(data) -> bytes:
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    return frame.to_csv(index=False).encode()


def run_bundle(store, run_id: str) -> bytes:
    """A zip of one run: config.json, status.json, metrics.csv, partition.csv and its curves
    (figures/*.html always, figures/*.svg when image export works)."""
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
