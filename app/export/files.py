"""The bytes of downloads (no widgets; ``app.export.widgets`` draws the menus): figures as PNG /
SVG / PDF (kaleido 1.x driving a headless Chrome/Chromium), as self-contained HTML (plotly.js
embedded, so it opens offline), tables as CSV, and a zip per run.

Finding the browser (``browser_path``): ``$BROWSER_PATH`` if the user set it; else the system's
Chromium or Chrome (the typical install paths, then those names on ``$PATH``), which finds
Debian's /usr/bin/chromium; else a Chrome that ``kaleido.get_chrome`` downloaded into
choreographer's folder (``$XDG_DATA_HOME`` or ``~/.local/share``/choreographer/deps). Every
candidate but ``$BROWSER_PATH`` must pass ``unsafe_program``, the rule of numba's cache: the file
and every folder above it belong to this user or root and no one else can write them, so a
"chrome" planted in a folder others can write never runs. The path found is passed to kaleido
explicitly: choreographer's own finder, which takes a download from those folders unchecked and
before anything else, is never asked.
One kaleido browser is kept open per process (its first figure pays ~3 s to start it; later ones
~0.2 s) and is used by one caller at a time.
"""
from __future__ import annotations

import functools
import io
import json
import os
import shutil
import threading
import zipfile

import pandas as pd
import plotly.graph_objects as go

from app.figures.charts import curves_figure, metrics_frame
from fedquad_core.api import unsafe_program

IMAGE_FORMATS = ("png", "svg", "pdf")
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html", "csv": "text/csv"}
DEFAULT_SIZE = (1000, 600)
_lock = threading.Lock()


class ExportUnavailable(RuntimeError):
    """Static image export needs kaleido and a Chrome/Chromium; this machine lacks one of them."""


# the system's Chromium / Chrome: where Debian, Ubuntu, Fedora, Chrome's packages and macOS put it
SYSTEM_BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
                   "/usr/bin/google-chrome-stable", "/opt/google/chrome/chrome", "/snap/bin/chromium",
                   "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                   "/Applications/Chromium.app/Contents/MacOS/Chromium")
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido will drive, or None (see the module's docstring)."""
    env = os.environ.get("BROWSER_PATH")
    if env:  # the user's own choice
        return env if os.access(env, os.X_OK) else None
    on_path = [shutil.which(name) for name in BROWSER_NAMES]
    for candidate in (*SYSTEM_BROWSERS, *filter(None, on_path), *filter(None, [downloaded_browser()])):
        if os.path.exists(candidate) and unsafe_program(candidate) is None:
            return candidate
    return None


def downloaded_browser() -> str | None:
    """Where ``kaleido.get_chrome`` puts a Chrome (choreographer's download folder), or None;
    computed by choreographer itself, found or not (``browser_path`` checks it)."""
    try:
        # inside the try: a missing or changed choreographer (kaleido's) reads as "no download"
        from choreographer.cli._cli_utils import get_chrome_download_path

        path = get_chrome_download_path(mkdir=False)
    except Exception:  # noqa: BLE001 - any failure to compute it means "none"
        return None
    return str(path) if path else None


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
