"""Exports: real files from kaleido + Chromium, offline HTML, and the per-run zip.

Without a browser these tests FAIL (the test command installs chromium); set
FEDQUAD_ALLOW_NO_BROWSER=1 to skip the image checks on a machine that cannot have one.
"""
from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

from app.export import files as export
from app.figures import charts as figures
from fedquad_core.runs.store import RunStore


@pytest.fixture(scope="module")
def browser():
    ok, why = export.export_available()
    if not ok:
        if os.environ.get("FEDQUAD_ALLOW_NO_BROWSER") == "1":
            pytest.skip(f"image export unavailable ({why}); skipped because FEDQUAD_ALLOW_NO_BROWSER=1")
        pytest.fail(f"image export unavailable: {why}. Install chromium (scripts/setup.sh does) "
                    "or set FEDQUAD_ALLOW_NO_BROWSER=1 to skip deliberately.", pytrace=False)
    return why


@pytest.fixture(scope="module")
def fig():
    counts = np.random.default_rng(0).integers(0, 20, size=(12, 10))
    return figures.partition_heatmap(counts, title="partition")


@pytest.mark.parametrize("fmt, magic", [("png", (b"\x89PNG\r\n\x1a\n",)), ("svg", (b"<svg", b"<?xml")),
                                        ("pdf", (b"%PDF",))])
def test_image_exports_are_valid_files(browser, fig, fmt, magic):
    data = export.figure_bytes(fig, fmt)
    assert len(data) > 1000 and data.startswith(magic), data[:20]
    if fmt == "svg":
        assert b"</svg>" in data[-200:]
    if fmt == "pdf":
        assert b"%%EOF" in data[-64:]


def test_html_embeds_plotlyjs_for_offline_use(fig):
    html = export.figure_bytes(fig, "html")
    assert html.lstrip().lower().startswith((b"<!doctype html", b"<html")) and html.rstrip().endswith(b"</html>")
    assert b'<script src="https://cdn.plot.ly' not in html and len(html) > 1_000_000  # plotly.js inline


def test_unknown_format_and_missing_browser(fig, monkeypatch):
    with pytest.raises(ValueError, match="unknown format"):
        export.figure_bytes(fig, "jpeg2000")
    monkeypatch.setattr(export, "export_available", lambda: (False, "no Chrome/Chromium found"))
    with pytest.raises(export.ExportUnavailable, match="no Chrome"):
        export.figure_bytes(fig, "png")
    assert export.figure_bytes(fig, "html")


def test_browser_path_honours_browser_path_env(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chrome")
    assert export.browser_path() is None
    monkeypatch.setenv("BROWSER_PATH", "/bin/sh")
    assert export.browser_path() == "/bin/sh"


@pytest.fixture
def store_with_run(tmp_path):
    store = RunStore(tmp_path / "runs")
    writer = store.create({"method": "fedquad", "dataset": "digits", "label": "FedQuad demo"}, run_id="r1")
    writer.save_partition({"counts": [[3, 0, 1], [0, 4, 0]], "class_names": ["a", "b", "c"]})
    for r in (1, 2, 3):
        writer.append_metrics({"round": r, "test_accuracy": 0.2 * r, "train_loss": 1.0 / r, "samples_total": 10 * r,
                               "elapsed": float(r), **({"ratio": 0.5 / r} if r != 2 else {})})
    writer.set_status("finished", round=3)
    return store


def test_run_bundle_holds_config_status_metrics_partition_and_figures(browser, store_with_run):
    zf = zipfile.ZipFile(io.BytesIO(export.run_bundle(store_with_run, "r1")))
    names = set(zf.namelist())
    assert {"config.json", "status.json", "metrics.csv", "partition.csv", "figures/accuracy.html",
            "figures/ratio.html", "figures/accuracy.svg", "figures/ratio.svg"} <= names
    assert json.loads(zf.read("config.json"))["method"] == "fedquad"
    assert json.loads(zf.read("status.json"))["state"] == "finished"
    metrics = zf.read("metrics.csv").decode().splitlines()
    assert metrics[0].startswith("run,label,method,round,samples_total,elapsed") and len(metrics) == 4
    assert zf.read("partition.csv").decode().splitlines() == ["client,a,b,c,size,classes", "0,3,0,1,4,2",
                                                               "1,0,4,0,4,1"]
    assert zf.read("figures/ratio.svg").lstrip().startswith((b"<svg", b"<?xml"))


def test_run_bundle_without_browser_still_has_html(store_with_run, monkeypatch):
    monkeypatch.setattr(export, "export_available", lambda: (False, "none"))
    names = zipfile.ZipFile(io.BytesIO(export.run_bundle(store_with_run, "r1"))).namelist()
    assert "figures/accuracy.html" in names and not any(n.endswith(".svg") for n in names)


def test_render_downloads_draws_buttons_without_rendering_images():
    from streamlit.testing.v1 import AppTest

    def page():
        import pandas as pd
        import plotly.graph_objects as go

        from app.export import widgets

        widgets.render_downloads(go.Figure(go.Bar(y=[1, 2])), pd.DataFrame({"y": [1, 2]}), "bars", key="k")

    at = AppTest.from_function(page).run(timeout=30)
    assert not at.exception
    buttons = at.get("download_button")
    expected = 5 if export.export_available()[0] else 2
    assert len(buttons) == expected
