"""The figure layout sweep, in a real browser (headless Chromium), on the recorded studies a fresh
clone ships: every page, every Lesson step and Explore on every recorded study, every plotly figure
on them, at 1600x1000 and 1280x720, in normal, talk and presenter mode, and in talk mode with the
sidebar open (a lecturer who turns talk mode on with the sidebar's toggle keeps it open: at 1280 px a
row of three figures then gets about 295 px, not 395). Zero findings is the bar.

The rules a figure must keep (a title, subplot title, axis title, tick label, legend or colour bar
leaving the figure or overlapping another; a legend that scrolls or cuts its entries; a plot area
under 80 px; a legend group in two colours) are in ``layout_checks.py``.

Presenter mode also: no page navigation, no Download or deck buttons, no widget other than the
Lesson's Back / Next buttons in the page.

One server serves the eight sweeps (``recorded_server``, module-wide: the figures are the recorded
studies', and every sweep opens its own pages). Run alone with
``.venv/bin/python -m pytest -q tests/e2e/test_talk_layout.py``; ``TALK_SHOTS=folder`` also saves a
full-page screenshot of every page looked at. Needs Debian's chromium and fails, never skips,
without it."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import CHROMIUM_ARGS, INSTALL_HINT, ROOT, _serve, chromium_path, dump_page, failed
from layout_checks import in_frames, page_problems, settle, until_still

PAGES = ["", "partitions", "launch", "live", "embeddings", "geometry", "clients", "runs"]
RECORDED = ROOT / "assets" / "recorded"
VIEWPORTS = {"1600x1000": {"width": 1600, "height": 1000}, "1280x720": {"width": 1280, "height": 720}}
MODES = {"normal": "", "talk": "talk=1", "presenter": "talk=1&presenter=1", "talk-sidebar": "talk=1"}
SIDEBAR_OPEN = {"talk-sidebar"}  # modes swept with the sidebar open (a talk link opens it collapsed)


def lesson_steps() -> range:
    from app.lesson.steps import STEPS

    return range(1, len(STEPS) + 1)


def recorded_studies() -> list[str]:
    """The recorded studies a fresh clone ships (whatever was recorded last: a new one is swept too)."""
    return sorted(json.loads(p.read_text())["name"] for p in (RECORDED / "studies").glob("*.json"))


def presenter_problems(page, where: str, lesson: bool) -> list[str]:
    out = []
    if page.locator('[data-testid="stSidebarNav"]').filter(visible=True).count():
        out.append(f"{where}: the page navigation is shown in presenter mode")
    texts = [t.strip() for t in page.locator('[data-testid="stMain"] button').filter(visible=True).all_inner_texts()]
    texts = [t for t in texts if t]
    bad = [t for t in texts if not any(ok in t for ok in ("Back", "Next"))]
    if bad:
        out.append(f"{where}: buttons besides Back / Next in presenter mode: {bad[:6]}")
    widgets = page.locator('[data-testid="stMain"] :is([data-testid="stSelectbox"], [data-testid="stSlider"], '
                           '[data-testid="stCheckbox"], [data-testid="stMultiSelect"], [data-testid="stNumberInput"],'
                           ' [data-testid="stTextInput"], [data-testid="stDownloadButton"])').filter(visible=True)
    if widgets.count():
        out.append(f"{where}: {widgets.count()} control(s) shown in presenter mode")
    sliders = sum(f.locator("input").filter(visible=True).count() for f in page.frames[1:])
    if sliders:
        out.append(f"{where}: {sliders} slider(s) of the figure switcher shown in presenter mode")
    if lesson:
        for label in ("Back", "Next"):
            if not page.locator('[data-testid="stMain"] button', has_text=label).filter(visible=True).count():
                out.append(f"{where}: no {label} button in presenter mode")
    return out


@pytest.fixture(scope="module")
def recorded_server(tmp_path_factory):
    """The dashboard on the recorded studies that ship (assets/recorded), an empty run store."""
    yield from _serve(tmp_path_factory.mktemp("layout"), RECORDED)


def _targets() -> list[tuple[str, str]]:
    out = [(p or "explore", f"/{p}") for p in PAGES]
    out += [(f"lesson step {i}", f"/lesson?step={i}") for i in lesson_steps()]
    out += [(f"explore {name}", f"/?x_study=recorded:{name}") for name in recorded_studies()]
    return out


def screenshot(page, path: Path, viewport: dict) -> None:
    """The whole page (Streamlit scrolls inside its main block, so the viewport is made as tall as
    the content for the picture, then restored)."""
    tall = page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                         " return m ? m.scrollHeight : document.body.scrollHeight; }")
    page.set_viewport_size({"width": viewport["width"], "height": max(viewport["height"], min(int(tall), 6000))})
    time.sleep(1.0)
    page.screenshot(path=str(path))
    page.set_viewport_size(viewport)


SIDEBAR_WIDTH = ("() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                 " return s ? s.getBoundingClientRect().width : 0; }")
SIDEBAR_OPENED = ("() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                  " return !!s && s.getBoundingClientRect().width > 200; }")
PLOT_WIDTHS = ("() => [...document.querySelectorAll('.js-plotly-plot')]"
               ".map(g => Math.round(g.getBoundingClientRect().width)).join(',')")


def open_sidebar(page) -> None:
    """Open the sidebar as a lecturer does with the arrow at the top left (Streamlit keeps that choice
    in the browser's storage, so later pages open with it open), then wait until the figures have
    taken their narrower width (the sidebar slides in, then plotly redraws each figure to its column)."""
    if page.evaluate(SIDEBAR_WIDTH) < 100:
        page.get_by_test_id("stExpandSidebarButton").first.click()
    page.wait_for_function(SIDEBAR_OPENED, timeout=30_000)
    until_still(lambda: in_frames(page, PLOT_WIDTHS, "|"), 1.0, 30)  # the figures' widths stopped changing


def _walk(page, url: str, mode: str, viewport: str, shots: Path | None) -> list[str]:
    problems = []
    for where, path in _targets():
        query = MODES[mode]
        page.goto(f"{url}{path}" + (("&" if "?" in path else "?") + query if query else ""))
        # a page's title, or its first figure (presenter mode's Live page has no title: its figures
        # start on the first screen of a projector)
        page.locator("h1, .js-plotly-plot").first.wait_for(timeout=120_000)
        settle(page)
        if mode in SIDEBAR_OPEN:
            open_sidebar(page)
        label = f"{where} ({mode}, {viewport})"
        problems += page_problems(page, label)
        if mode == "presenter":
            problems += presenter_problems(page, label, where.startswith("lesson"))
        if shots is not None:
            screenshot(page, shots / f"{where.replace(' ', '_')}-{mode}-{viewport}.png", VIEWPORTS[viewport])
    return problems


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("mode", list(MODES))
def test_every_figure_fits(recorded_server, request, mode, viewport):
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    url, _ = recorded_server
    shots = Path(os.environ["TALK_SHOTS"]) if os.environ.get("TALK_SHOTS") else None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport=VIEWPORTS[viewport]).new_page()
            page.set_default_timeout(90_000)
            try:
                problems = _walk(page, url, mode, viewport, shots)
            finally:
                if failed(request):
                    dump_page(page)
        finally:
            browser.close()
    assert not problems, f"{len(problems)} layout problem(s), {mode} mode at {viewport}:\n" + "\n".join(problems)
