"""The figure layout sweep, in a real browser (headless Chromium), on the recorded studies a fresh
clone ships: every page, every Lesson step and Explore on every recorded study, every plotly figure
on them, at 1600x1000 and 1280x720, in normal, talk and presenter mode, and in talk mode with the
sidebar open (a lecturer who turns talk mode on with the sidebar's toggle keeps it open: at 1280 px a
row of three figures then gets about 295 px, not 395). Zero findings is the bar.

The rules a figure must keep (a title, subplot title, axis title, tick label, legend or colour bar
leaving the figure or overlapping another; a legend that scrolls or cuts its entries; a plot area
under 80 px; a legend group in two colours) are in ``layout_checks.py``.

Presenter mode also: no page navigation, no Download or deck buttons, no widget other than the
Lesson's Back / Next buttons and Explore's study picker and sliders (α, m1, m2 are moved during a
talk) in the page.

The projector (1280x720, talk and presenter mode; issue 45), on every teaching page (each Lesson
step, Explore on every recorded study, Partitions, Live, Embeddings, Geometry, Clients):
``layout_checks.projector_problems`` measures every figure's whole box (its plotly div, drawing
layers and every text in them: titles, ticks, legends, colour bars; in the figure switcher's frame
too, which must not cut it) and every table's: each inside the screen's width, none taller than one
screen (a long table pages in its own box), the page's first figure whole on the first screen, and
on a Lesson step every figure of the step; a Lesson step's takeaway stands above its figures. The
first screen of each of these looks is saved as a PNG for a person to look at: under
``$FEDQUAD_LAYOUT_SHOTS``/<mode> when set, else in pytest's temporary directory (the folder is
printed, ``-s`` shows it, and a failure's message names it).

One server serves the three sweeps, one a mode (``recorded_server``, module-wide: the figures are the
recorded studies', and every sweep opens its own pages). A sweep opens each target at 1600x1000,
looks, resizes the page to 1280x720 (a projector's), waits until the figures have taken their new
widths, and looks again: one script run and page load serve both viewports (measured: the same
figure sizes as a fresh load at 1280x720, at half the sweep's CPU). The talk sweep then opens the
sidebar on the same page and looks at 1280x720 and, resized back, at 1600x1000 (``LOOKS``): talk
mode with the sidebar open costs no page load of its own. It looks at ``AT_ONCE`` pages
together (a page spends most of its time waiting for the server's script run and its redraws).
On several cores (scripts/test.sh) each mode is a unit of work (``tests/conftest.py``'s
``SPLIT``), one server per unit. Run alone with
``.venv/bin/python -m pytest -q tests/e2e/test_talk_layout.py``; ``TALK_SHOTS=folder`` also saves a
full-page screenshot of every page looked at. Needs Debian's chromium and fails, never skips,
without it."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, ROOT, chromium_path, dump_pages, new_context, serve
from layout_checks import QUIET, Still, page_problems, projector_problems, settled

PAGES = ["", "partitions", "launch", "live", "embeddings", "geometry", "clients", "runs"]
RECORDED = ROOT / "assets" / "recorded"
VIEWPORTS = {"1600x1000": {"width": 1600, "height": 1000}, "1280x720": {"width": 1280, "height": 720}}
MODES = {"normal": "", "talk": "talk=1", "presenter": "talk=1&presenter=1"}
# the looks at one loaded target, in order: (viewport, what is looked at); talk mode is also looked at
# with the sidebar opened (a talk link opens it collapsed), on the same load
LOOKS = {mode: [("1600x1000", mode), ("1280x720", mode)] for mode in MODES}
LOOKS["talk"] += [("1280x720", "talk-sidebar"), ("1600x1000", "talk-sidebar")]
SIDEBAR_OPEN = {"talk-sidebar"}  # looks with the sidebar open
# Streamlit keeps a sidebar opened by hand in the browser's storage, and later pages would open with
# it open: every page load starts from the link's own state instead (each page has a context of its
# own: a change of that storage in one page closes the sidebar of the others)
FORGET_SIDEBAR = ("for (const k of Object.keys(window.localStorage))"
                  " if (k.startsWith('stSidebarCollapsed')) window.localStorage.removeItem(k);")


def lesson_steps() -> range:
    from app.lesson.steps import STEPS

    return range(1, len(STEPS) + 1)


def recorded_studies() -> list[str]:
    """The recorded studies a fresh clone ships (whatever was recorded last: a new one is swept too)."""
    return sorted(json.loads(p.read_text())["name"] for p in (RECORDED / "studies").glob("*.json"))


# What presenter mode keeps on purpose: the presenter bar (its page menu and Exit presenter), Live's
# x axis (the lecturer picks it under the first row) and step 5's quadruplet controls (m1, m2, the
# points: moved in front of the room)
KEPT = ':not(.st-key-fq_presenter *):not(.st-key-v_x *):not([class*="st-key-q_"] *)'


def presenter_problems(page, where: str, lesson: bool, explore: bool = False) -> list[str]:
    out = []
    if page.locator('[data-testid="stSidebarNav"]').filter(visible=True).count():
        out.append(f"{where}: the page navigation is shown in presenter mode")
    if not page.get_by_role("button", name="Exit presenter").count():
        out.append(f"{where}: no way out of presenter mode on the page")
    texts = [t.strip() for t in page.locator(f'[data-testid="stMain"] button{KEPT}').filter(visible=True).all_inner_texts()]
    texts = [t for t in texts if t]
    bad = [t for t in texts if not any(ok in t for ok in ("Back", "Next"))]
    if bad:
        out.append(f"{where}: buttons besides Back / Next in presenter mode: {bad[:6]}")
    kinds = ['[data-testid="stSlider"]', '[data-testid="stCheckbox"]', '[data-testid="stMultiSelect"]',
             '[data-testid="stNumberInput"]', '[data-testid="stTextInput"]', '[data-testid="stDownloadButton"]']
    if not explore:  # Explore keeps its study picker (and the switcher its sliders) in presenter mode
        kinds.append('[data-testid="stSelectbox"]')
    widgets = page.locator(f'[data-testid="stMain"] :is({", ".join(kinds)}){KEPT}').filter(visible=True)
    if widgets.count():
        out.append(f"{where}: {widgets.count()} control(s) shown in presenter mode")
    if where.startswith("lesson step 5") and not page.locator('.st-key-q_m1 [data-testid="stSlider"]').count():
        out.append(f"{where}: step 5's m1 / m2 sliders are hidden in presenter mode")
    sliders = sum(f.locator("input").filter(visible=True).count() for f in page.frames[1:])
    if explore and where.startswith("explore (") and not sliders:  # the default study (digits-alpha) has an α axis
        out.append(f"{where}: the figure switcher's sliders are hidden in presenter mode (α cannot be moved)")
    if sliders and not explore:
        out.append(f"{where}: {sliders} slider(s) of the figure switcher shown in presenter mode")
    if lesson:
        for label in ("Back", "Next"):
            if not page.locator('[data-testid="stMain"] button', has_text=label).filter(visible=True).count():
                out.append(f"{where}: no {label} button in presenter mode")
    return out


@pytest.fixture(scope="module")
def recorded_server(tmp_path_factory):
    """The dashboard on the recorded studies that ship (assets/recorded), an empty run store."""
    yield from serve(tmp_path_factory.mktemp("layout"), RECORDED, warm=False)  # (it launches nothing)


def _targets() -> list[tuple[str, str]]:
    out = [(p or "explore", f"/{p}") for p in PAGES]
    out += [(f"lesson step {i}", f"/lesson?step={i}") for i in lesson_steps()]
    # the first recorded study is the one Explore opens on ("explore" above, app/views/explore.py):
    # not opened a second time by its link
    out += [(f"explore {name}", f"/?x_study=recorded:{name}") for name in recorded_studies()[1:]]
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
PLOT_WIDTHS = ("() => [...document.querySelectorAll('.js-plotly-plot')]"
               ".map(g => Math.round(g.getBoundingClientRect().width)).join(',')")
SIDEBAR_AND_PLOTS = f"() => '|' + ({PLOT_WIDTHS})() + '|' + ({SIDEBAR_WIDTH})()"


PROJECTOR = {"talk", "presenter"}  # modes a lecturer projects: the main figure must be on the first screen
FIRST_FIGURE = ("() => { const g = document.querySelector('[data-testid=\"stMain\"] .js-plotly-plot');"
                " if (!g) return null; const r = g.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }")


def lead(where: str) -> str | None:
    """What a Lesson step shows above its figure in talk mode: its takeaway (the one sentence a
    student can repeat, ``.fq-takeaway``; issue 45), None elsewhere."""
    return ".fq-takeaway" if where.startswith("lesson step ") else None


def first_figure(page):
    """The page's first figure, [x, y, width, height] in the viewport: in the page itself (the
    Lesson), else in the figure switcher's frame (Explore), offset by where the frame sits."""
    box = page.evaluate(FIRST_FIGURE)
    if box:
        return box
    for frame in page.frames[1:]:
        plots = frame.locator(".js-plotly-plot")
        if plots.count():
            b = plots.first.bounding_box()  # Playwright gives it in the main viewport's coordinates
            return [b["x"], b["y"], b["width"], b["height"]] if b else None
    return None


TEACHING = ("explore", "partitions", "live", "embeddings", "geometry", "clients", "lesson step ")  # not Launch, Runs


def teaching(where: str) -> bool:
    return where.startswith(TEACHING)


def first_screen_problems(page, where: str, viewport: dict, lead_text: str | None) -> list[str]:
    """On the projector (``layout_checks.projector_problems``): every figure and table of the page
    inside the screen's width and no taller than one screen, the first figure whole on the first
    screen, on a Lesson step every figure of the step; and a step's takeaway above its figure.
    The Lesson and Explore must show a figure; the other pages may have nothing to show yet (an
    empty run store)."""
    out = projector_problems(page, where, viewport["width"], viewport["height"], where.startswith("lesson step "))
    box = first_figure(page)
    if box is None:
        return out + ([f"{where}: no figure on the page"] if where.startswith(("lesson", "explore")) else [])
    if lead_text:
        line = page.locator(lead_text)
        if not line.count():
            out.append(f"{where}: the step's takeaway is missing ({lead_text})")
        else:
            b = line.first.bounding_box()
            if b is None or b["y"] + b["height"] > box[1] + 1:
                out.append(f"{where}: the step's takeaway is not above its figure")
    return out


AT_ONCE = 3  # pages looked at together: one page spends most of its time waiting (script run, redraws)
POLL = 0.3  # s between readings of the pages: a third as many readings as at 0.1 s (the normal sweep, one
            # run each: 105 s of CPU against 116 s, within the spread of runs on this machine, so no
            # saving is shown); a page is settled after QUIET = 1.5 s without a change


class Visit:
    """One target opened in a page at its first look's viewport and watched until it settled
    (``layout_checks.settled``), then brought to the next look (resized to its viewport, the sidebar
    opened) and watched until it settled again, one reading at a time, so that ``AT_ONCE`` pages of
    one browser are watched together. A changed page must stand still in its figures' widths too
    (plotly redraws each figure to its new column). A look with the sidebar open gets it opened as a
    lecturer does, with the arrow at the top left; the sidebar's own width is then part of what must
    stand still."""

    def __init__(self, page, where: str, address: str, looks: list[tuple[str, str]], timeout: float = 120.0):
        self.page, self.where, self.timeout = page, where, timeout
        self.looks = list(looks)
        self.viewport, self.mode = self.looks.pop(0)
        self.deadline = time.monotonic() + timeout
        self.still, self.clicked, self.resized = Still(QUIET), False, False
        page.set_viewport_size(VIEWPORTS[self.viewport])
        page.goto(address, wait_until="commit")

    @property
    def sidebar(self) -> bool:
        return self.mode in SIDEBAR_OPEN

    def done(self) -> bool:
        if time.monotonic() > self.deadline:
            raise AssertionError(f"{self.where} ({self.mode}, {self.viewport}): the page did not settle within its "
                                 f"time ({self.page.url}; last reading {self.still.last!r:.300})")
        # a page's title, or its first figure (presenter mode's Live page has no title: its figures
        # start on the first screen of a projector)
        if not self.page.evaluate("() => !!document.querySelector('h1, .js-plotly-plot, iframe')"):
            return False
        if not self.sidebar:
            return settled(self.page, self.still, SIDEBAR_AND_PLOTS if self.resized else "")
        width = self.page.evaluate(SIDEBAR_WIDTH)
        if width < 100 and not self.clicked:
            button = self.page.get_by_test_id("stExpandSidebarButton")
            if not button.count():  # (not drawn yet)
                return False
            button.first.click()
            self.clicked = True
        return settled(self.page, self.still, SIDEBAR_AND_PLOTS) and width > 200

    def next(self) -> bool:
        """On to the next look (False when there is none)."""
        if not self.looks:
            return False
        viewport, self.mode = self.looks.pop(0)
        if viewport != self.viewport:
            self.viewport = viewport
            self.page.set_viewport_size(VIEWPORTS[viewport])
        self.deadline = time.monotonic() + self.timeout
        self.still, self.resized = Still(QUIET), True
        return True


def _look(page, where: str, mode: str, viewport: str, shots: Path | None, screens: Path | None) -> list[str]:
    """The checks on one settled page."""
    label = f"{where} ({mode}, {viewport})"
    problems = page_problems(page, label)
    if mode == "presenter":
        problems += presenter_problems(page, label, where.startswith("lesson"), where.startswith("explore"))
    projector = viewport == "1280x720" and mode in PROJECTOR and teaching(where)
    if projector:
        problems += first_screen_problems(page, label, VIEWPORTS[viewport], lead(where))
    name = f"{where.replace(' ', '_')}-{mode}-{viewport}.png"
    if projector and screens is not None:  # what the room sees: the first screen, as projected
        page.screenshot(path=str(screens / name))
    if shots is not None:
        screenshot(page, shots / name, VIEWPORTS[viewport])
    return problems


def _walk(url: str, mode: str, shots: Path | None, pages: list, screens: Path | None = None) -> list[str]:
    """Every target, ``AT_ONCE`` pages at a time, each given the mode's looks: each page opens the
    next target as soon as it has taken its last look at the one before."""
    problems, todo, watching = [], list(_targets()), {}
    query = MODES[mode]
    while todo or watching:
        for page in pages:
            if page not in watching and todo:
                where, path = todo.pop(0)
                address = f"{url}{path}" + (("&" if "?" in path else "?") + query if query else "")
                watching[page] = Visit(page, where, address, LOOKS[mode])
        for page, visit in list(watching.items()):
            if visit.done():
                problems += _look(page, visit.where, visit.mode, visit.viewport, shots, screens)
                if not visit.next():
                    del watching[page]
        time.sleep(POLL)
    return problems


def projector_screens(tmp_path_factory, mode: str) -> Path | None:
    """Where the first screens a projector shows (1280x720, talk and presenter mode) are kept for a
    person to look at: ``$FEDQUAD_LAYOUT_SHOTS``/<mode> when set, else a folder of pytest's temporary
    directory; printed either way (``pytest -s`` shows it; a failure's report shows it too)."""
    if mode not in PROJECTOR:
        return None
    root = os.environ.get("FEDQUAD_LAYOUT_SHOTS")
    folder = Path(root) / mode if root else tmp_path_factory.mktemp(f"projector-{mode}")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"projector screenshots ({mode} mode, 1280x720, first screen): {folder}")
    return folder


@pytest.mark.parametrize("mode", list(MODES))
def test_every_figure_fits(recorded_server, mode, tmp_path_factory):
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    url, _ = recorded_server
    shots = Path(os.environ["TALK_SHOTS"]) if os.environ.get("TALK_SHOTS") else None
    screens = projector_screens(tmp_path_factory, mode)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            pages = []
            for _ in range(AT_ONCE):  # a context each: a page's storage (its sidebar's state) is its own
                context = new_context(browser, viewport=next(iter(VIEWPORTS.values())))
                context.set_default_timeout(90_000)
                context.add_init_script(FORGET_SIDEBAR)
                pages.append(context.new_page())
            try:
                problems = _walk(url, mode, shots, pages, screens)
            except BaseException:  # (a page that did not settle): what each page showed
                dump_pages(browser)
                raise
        finally:
            browser.close()
    where = f" (the projector's first screens: {screens})" if screens else ""
    assert not problems, f"{len(problems)} layout problem(s), {mode} mode{where}:\n" + "\n".join(problems)
