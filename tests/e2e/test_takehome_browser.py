"""The take-home file in Chromium, opened from file:// as a student would: every request that is not
the file itself is aborted and recorded (and fails the test), and so does any console error or
page error. The Lesson steps with the arrow keys, the back button and a reload keep the step,
Explore's slider moves and the fragment follows; at a phone's size the slider is large enough
for a thumb and nothing is wider than the screen; inside an iframe it draws too; printed, each
Lesson step starts a page. (Timings: benchmarks/takehome.py; no timed assertion here.)"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, ROOT, chromium_path

sys.path.insert(0, str(ROOT / "tests" / "app"))
from lesson_helpers import write_lesson_root  # noqa: E402 - the Lesson's synthetic recorded root


@pytest.fixture(scope="module")
def takehome(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("takehome")
    recorded = write_lesson_root(base / "recorded")
    out = base / "takehome.html"
    proc = subprocess.run([sys.executable, "-m", "app.export.takehome", "html", "--recorded", str(recorded), "--out",
                           str(out)], capture_output=True, text=True, timeout=600, cwd=base,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Watched:
    """A browser context whose every non-file request is aborted and recorded, with the pages'
    console errors and uncaught exceptions."""

    def __init__(self, browser, **context):
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(**context)
        self.context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def page(self):
        pg = self.context.new_page()
        pg.set_default_timeout(30_000)
        pg.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        pg.on("pageerror", lambda e: self.errors.append(f"page error: {e} {e.stack or ''}"[:1500]))
        return pg

    def check(self):
        assert not self.requests, f"requests from the take-home file: {self.requests}"
        assert not self.errors, self.errors
        self.context.close()


def fragment(pg) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(pg.url).fragment).items()}


def first_figure(pg) -> None:
    pg.wait_for_function("window.fqTakehome && window.fqTakehome.firstFigure !== null")


def shown_step(pg) -> str:
    return pg.locator("article.step:not([hidden]) h2").inner_text()


def test_lesson_and_explore_from_file_with_every_request_blocked(takehome, browser):
    w = Watched(browser, viewport={"width": 1280, "height": 900})
    pg = w.page()
    pg.goto(takehome.as_uri())
    first_figure(pg)
    assert "FedQuad Lab" in pg.locator("#about").inner_text() and "recorded runs" in pg.locator("#about").inner_text()
    assert shown_step(pg).startswith("1 ·")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    assert shown_step(pg).startswith("3 ·") and fragment(pg)["step"] == "3"
    pg.wait_for_function("document.querySelectorAll('article.step:not([hidden]) .js-plotly-plot').length > 0")
    pg.keyboard.press("ArrowRight")
    assert shown_step(pg).startswith("4 ·")  # under its takeaway: what the registered rows found on fresh seeds
    confirmed = pg.locator("article.step:not([hidden]) p.confirmed").inner_text()
    assert confirmed.startswith("Confirmed on fresh seeds? C1 (10 local epochs): ") and "C2 (" in confirmed
    assert "C1: " in pg.locator("article.step:not([hidden])").inner_text()  # its takeaway and numbers
    pg.keyboard.press("ArrowRight")
    assert shown_step(pg).startswith("5 ·")  # the quadruplet: its margins move its sentences and figures
    pg.wait_for_function("document.querySelectorAll('article.step:not([hidden]) .js-plotly-plot').length === 2")
    before = pg.locator("article.step:not([hidden]) .sentences").inner_text()
    m1 = pg.locator("article.step:not([hidden]) input[data-margin=m1]")
    m1.focus()
    pg.keyboard.press("End")
    pg.wait_for_function("b => document.querySelector('article.step:not([hidden]) .sentences').innerText !== b",
                         arg=before)
    assert "m1" in pg.locator("article.step:not([hidden]) .fq-axis").first.inner_text()
    pg.keyboard.press("ArrowLeft")  # (on the slider: it moves, the step stays)
    assert shown_step(pg).startswith("5 ·")
    pg.locator("#back").click()
    pg.locator("#back").click()
    pg.keyboard.press("ArrowLeft")
    assert fragment(pg)["step"] == "2"
    pg.go_back()
    pg.wait_for_function("location.hash.includes('step=3')")
    assert shown_step(pg).startswith("3 ·")
    pg.reload()
    first_figure(pg)
    assert shown_step(pg).startswith("3 ·")
    # Explore: the slider moves the figures and the fragment
    pg.click("nav#tabs [data-view=explore]")
    pg.wait_for_function("document.querySelectorAll('#explore .fq-fig.js-plotly-plot:not(.hidden)').length >= 5")
    assert fragment(pg)["view"] == "explore"
    axes = pg.locator("#explore input[type=range]")
    assert axes.count() == 2  # digits-local: local_epochs x alpha
    alpha = pg.locator("#explore input[type=range][data-axis=alpha]")
    before = fragment(pg)["alpha"]
    alpha.focus()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function(f"!location.hash.includes('alpha={before}')")
    after = fragment(pg)["alpha"]
    assert after != before
    pg.wait_for_function("window.fqTakehome.moves.length >= 1")
    visible = pg.evaluate("[...document.querySelectorAll('.fq-slot')].filter(s => s.style.display !== 'none')"
                          ".map(s => s.querySelectorAll('.fq-fig:not(.hidden)').length)")
    assert visible and all(n <= 1 for n in visible) and sum(visible) >= 5
    # the response plots along the other axis (Explore's "Response plots against")
    assert fragment(pg)["resp"] == "local_epochs"
    pg.click(".fq-resp button:text-is('alpha')")
    pg.wait_for_function("location.hash.includes('resp=alpha')")
    pg.wait_for_function("document.querySelectorAll('.fq-slot[data-slot=acc_resp] .fq-fig:not(.hidden)').length === 1 "
                         "&& !document.querySelector('.fq-slot[data-slot=acc_resp]').classList.contains('loading')")
    title = pg.locator(".fq-slot[data-slot=acc_resp] .fq-fig:not(.hidden) .gtitle").text_content()
    assert "α" in title, title
    # the other study, by the picker; the fragment names it
    pg.select_option("#study", "fmnist-skew")
    pg.wait_for_function("location.hash.includes('study=fmnist-skew')")
    pg.reload()
    pg.wait_for_function("document.querySelectorAll('#explore .fq-fig.js-plotly-plot:not(.hidden)').length >= 5")
    assert pg.locator("#study").input_value() == "fmnist-skew"
    w.check()


def test_a_phone_a_course_pages_iframe_and_print(takehome, browser, tmp_path):
    w = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    pg = w.page()
    pg.goto(takehome.as_uri() + "#view=explore&study=digits-local")
    pg.wait_for_function("document.querySelectorAll('#explore .fq-fig.js-plotly-plot:not(.hidden)').length >= 3")
    slider = pg.locator("#explore input[type=range][data-axis=alpha]")
    box = slider.bounding_box()
    assert box["height"] >= 40 and box["width"] >= 250, box  # a thumb's target, across the screen
    before = fragment(pg)["alpha"]
    pg.locator(".fq-axis:has(input[data-axis=alpha]) .fq-ticks span").last.tap()
    pg.wait_for_function(f"!location.hash.includes('alpha={before}')")
    assert pg.evaluate("document.scrollingElement.scrollWidth") <= 391
    widths = pg.evaluate("[...document.querySelectorAll('.fq-slot')].filter(s => s.offsetParent).map(s => s.offsetWidth)")
    assert widths and max(widths) <= 390
    pg.goto(takehome.as_uri() + "#step=2")
    first_figure(pg)
    pg.locator("#next").tap()
    assert fragment(pg)["step"] == "3"
    pg.locator("#next2").tap()  # the row under the step
    assert fragment(pg)["step"] == "4" and shown_step(pg).startswith("4 ·")
    # inside a course page's iframe (no top navigation, no storage needed)
    host = tmp_path / "course.html"
    host.write_text(f'<!doctype html><title>course</title><iframe src="{takehome.as_uri()}#step=4" width="380" '
                    'height="800"></iframe>')
    pg.goto(host.as_uri())
    frame = pg.frame_locator("iframe")
    frame.locator("article.step:not([hidden]) .js-plotly-plot").first.wait_for()
    assert frame.locator("article.step:not([hidden]) h2").inner_text().startswith("4 ·")
    assert pg.url == host.as_uri()
    # printed: the lesson only, each step from a new page
    pg.goto(takehome.as_uri())
    first_figure(pg)
    pg.wait_for_function("window.fqTakehome.printReady === true")  # the lesson's figures decoded (soon after load)
    pg.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    pg.emulate_media(media="print")
    steps = pg.evaluate("[...document.querySelectorAll('article.step')].map(s => [getComputedStyle(s).display, "
                        "getComputedStyle(s).breakAfter, s.querySelectorAll('.js-plotly-plot, table').length])")
    assert len(steps) == 9
    assert all(d != "none" for d, _, _ in steps) and all(b == "page" for _, b, _ in steps[:-1]), steps
    assert all(n >= 1 for _, _, n in steps), steps  # every step's figures drawn for the paper
    assert pg.locator("#explore").is_hidden() and pg.locator("nav#tabs").is_hidden()
    pdf = pg.pdf(format="A4", landscape=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 10, pages  # the first screen, then at least a page a step
    pg.evaluate("window.dispatchEvent(new Event('afterprint'))")
    pg.emulate_media(media="screen")
    pg.wait_for_function("document.querySelectorAll('article.step:not([hidden]) .js-plotly-plot').length > 0")
    assert pg.locator("article.step:not([hidden])").count() == 1
    w.check()
