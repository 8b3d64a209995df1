"""Talk and presenter mode in a real browser (headless Chromium, 1600x1000), on the recorded studies
a fresh clone ships: every page and every Lesson step, every plotly figure on it.

A figure fails when
- its title (``.gtitle``), an axis title or its legend box (``.legend .bg``) leaves the figure
  (``svg.main-svg``),
- its title and legend boxes overlap each other, or two legend entries overlap,
- two tick labels of one axis overlap (``.xtick text`` / ``.ytick text``, per axis layer),
- traces of one legend group (what one legend entry stands for: mean line, band, seed lines) are
  drawn in different hues (the band or the seed lines would then not match their legend entry).

Presenter mode: no page navigation, no Download or deck buttons, no widget other than the Lesson's
Back / Next buttons in the page.

Run alone with ``.venv/bin/python -m pytest -q tests/e2e/test_talk_layout.py``; needs Debian's
chromium and fails, never skips, without it."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import CHROMIUM_ARGS, INSTALL_HINT, ROOT, _serve, chromium_path, dump_page, failed

PAGES = ["", "partitions", "launch", "live", "embeddings", "geometry", "runs"]
STEPS = range(1, 8)
VIEWPORT = {"width": 1600, "height": 1000}
SLACK = 1.5  # px: anti-aliasing and sub-pixel rounding

MEASURE = """(g) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const svg = g.querySelector('svg.main-svg');
  const title = g.querySelector('.gtitle');
  const legend = g.querySelector('.legend .bg') || g.querySelector('.legend');
  const axisTitles = [...g.querySelectorAll('.xtitle, .ytitle')].filter(t => t.textContent.trim())
    .map(t => ({text: t.textContent, box: box(t)}));
  const ticks = {};
  for (const t of g.querySelectorAll('.xtick text, .ytick text')) {
    if (!t.textContent.trim() || getComputedStyle(t).opacity === '0' || getComputedStyle(t).display === 'none') continue;
    const layer = t.closest('g[class*="layer-above"], g.xaxislayer-above, g.yaxislayer-above') || t.parentNode.parentNode;
    const axis = (t.closest('.xtick') ? 'x' : 'y') + ':' + Array.prototype.indexOf.call(
        g.querySelectorAll('g.xaxislayer-above, g.yaxislayer-above'), layer);
    (ticks[axis] = ticks[axis] || []).push({text: t.textContent, box: box(t)});
  }
  const rgb = (c) => {
    if (!c || typeof c !== 'string') return null;
    const s = c.trim().toLowerCase();
    let m = s.match(/^#([0-9a-f]{6})$/);
    if (m) return [0, 2, 4].map(i => parseInt(m[1].slice(i, i + 2), 16)).join(',');
    m = s.match(/^rgba?\\(([^)]*)\\)$/);
    if (m) return m[1].split(',').slice(0, 3).map(x => Math.round(parseFloat(x))).join(',');
    return null;
  };
  const groups = {};
  for (const tr of (g._fullData || [])) {
    if (!tr.legendgroup || tr.visible === false) continue;
    const cols = new Set();
    const fill = rgb(tr.fillcolor);
    const lineW = tr.line && tr.line.width;
    if (tr.fill && tr.fill !== 'none' && fill) cols.add(fill);
    if (tr.mode && tr.mode.includes('lines') && lineW > 0 && rgb(tr.line.color)) cols.add(rgb(tr.line.color));
    if (tr.mode && tr.mode.includes('markers') && tr.marker && rgb(tr.marker.color)) cols.add(rgb(tr.marker.color));
    if (tr.type === 'bar' && tr.marker && rgb(tr.marker.color)) cols.add(rgb(tr.marker.color));
    for (const c of cols) (groups[tr.legendgroup] = groups[tr.legendgroup] || {})[c] = tr.name || '?';
  }
  const items = [...g.querySelectorAll('.legend .traces text.legendtext')].map(t => ({text: t.textContent, box: box(t)}));
  return {items, axisTitles, svg: svg ? box(svg) : null, title: title ? box(title) : null, titleText: title ? title.textContent : '',
          legend: legend ? box(legend) : null, ticks, groups};
}"""


def _inside(inner, outer) -> bool:
    return (inner[0] >= outer[0] - SLACK and inner[1] >= outer[1] - SLACK and inner[2] <= outer[2] + SLACK
            and inner[3] <= outer[3] + SLACK)


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def _hue(rgb: str) -> tuple:
    """A colour's hue bucket (so a lighter or transparent version of one colour counts the same)."""
    import colorsys

    r, g, b = (int(x) / 255 for x in rgb.split(","))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    return ("grey",) if s < 0.15 or lum > 0.97 or lum < 0.03 else (round(h * 24) % 24,)


def figure_problems(m: dict, where: str) -> list[str]:
    out = []
    name = f"{where}: figure {m['titleText'][:60]!r}"
    if m["svg"] is None:
        return [f"{name}: not drawn"]
    if m["title"] and not _inside(m["title"], m["svg"]):
        out.append(f"{name}: the title leaves the figure ({m['title']} outside {m['svg']})")
    for t in m["axisTitles"]:
        if not _inside(t["box"], m["svg"]):
            out.append(f"{name}: the axis title {t['text']!r} leaves the figure")
    if m["legend"] and not _inside(m["legend"], m["svg"]):
        out.append(f"{name}: the legend leaves the figure")
    if m["title"] and m["legend"] and _overlap(m["title"], m["legend"]):
        out.append(f"{name}: the legend overlaps the title")
    for i, a in enumerate(m["items"]):
        hit = next((b for b in m["items"][i + 1:] if _overlap(a["box"], b["box"])), None)
        if hit:
            out.append(f"{name}: legend entries {a['text']!r} and {hit['text']!r} overlap")
            break
    for axis, ticks in m["ticks"].items():
        ticks = sorted(ticks, key=lambda t: (t["box"][0], t["box"][1]))
        for a, b in zip(ticks, ticks[1:]):
            if _overlap(a["box"], b["box"]):
                out.append(f"{name}: tick labels {a['text']!r} and {b['text']!r} overlap ({axis})")
                break
    for group, colors in m["groups"].items():
        hues = {_hue(c) for c in colors} - {("grey",)}
        if len(hues) > 1:
            out.append(f"{name}: legend group {group!r} drawn in different colours {sorted(colors)}")
    return out


def settle(page, timeout: float = 90.0) -> None:
    """The script run finished and the set of drawn charts stopped changing for 1.5 s."""
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=timeout * 1000)
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    while time.monotonic() < deadline:
        now = "".join(_frame_charts(f) for f in page.frames)  # the page's and the figure switcher's
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > 1.5:
            return
        time.sleep(0.25)


CHARTS = ("() => [...document.querySelectorAll('.js-plotly-plot')].map("
          "g => (g.querySelector('svg.main-svg') ? 1 : 0) + ':' + (g._fullData || []).length + "
          "(g.closest('.hidden') ? 'h' : ''))"
          ".join('|') + (document.querySelector('[data-testid=\"stStatusWidget\"]') ? 'R' : '')")


def _frame_charts(frame) -> str:
    try:
        return frame.evaluate(CHARTS)
    except Exception:  # noqa: BLE001 - a frame that went away meanwhile
        return "gone"


def page_problems(page, where: str) -> list[str]:
    """Every figure shown, in the page and in the figure switcher's frame (Explore's figures at the
    slider position; those it holds hidden for other positions are not shown, so not measured)."""
    out = []
    for i, frame in enumerate(page.frames):
        figs = frame.locator(".js-plotly-plot").filter(visible=True).all()  # (not in a closed expander)
        if i and frame.locator(".fq-slot").count() and not figs:
            out.append(f"{where}: the figure switcher shows no figure")
        for fig in figs:
            out += figure_problems(fig.evaluate(MEASURE), where)
    return out


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


@pytest.fixture
def recorded_server(tmp_path, request):
    """The dashboard on the recorded studies that ship (assets/recorded), an empty run store."""
    yield from _serve(tmp_path, ROOT / "assets" / "recorded", request)


@pytest.fixture
def big_page(request):
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            pg = browser.new_context(viewport=VIEWPORT).new_page()
            pg.set_default_timeout(90_000)
            yield pg
            if failed(request):
                dump_page(pg)
        finally:
            browser.close()


def _targets() -> list[tuple[str, str]]:
    return [(p or "explore", f"/{p}") for p in PAGES] + [(f"lesson step {i}", f"/lesson?step={i}") for i in STEPS]


def screenshot(page, path: Path) -> None:
    """The whole page (Streamlit scrolls inside its main block, so the viewport is made as tall as
    the content for the picture, then restored)."""
    tall = page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                         " return m ? m.scrollHeight : document.body.scrollHeight; }")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": max(VIEWPORT["height"], min(int(tall), 6000))})
    time.sleep(1.0)
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)


def _walk(page, url: str, mode: str, shots: Path | None) -> list[str]:
    problems = []
    for where, path in _targets():
        sep = "&" if "?" in path else "?"
        page.goto(f"{url}{path}{sep}{mode}")
        # a page's title, or its first figure (presenter mode's Live page has no title: its figures
        # start on the first screen of a projector)
        page.locator("h1, .js-plotly-plot").first.wait_for(timeout=120_000)
        settle(page)
        label = f"{where} ({mode})"
        problems += page_problems(page, label)
        if "presenter" in mode:
            problems += presenter_problems(page, label, where.startswith("lesson"))
        if shots is not None:
            screenshot(page, shots / f"{where.replace(' ', '_')}-{mode.replace('&', '_')}.png")
    return problems


def _shots() -> Path | None:
    """TALK_SHOTS=folder: also save a full-page screenshot of every page looked at."""
    return Path(os.environ["TALK_SHOTS"]) if os.environ.get("TALK_SHOTS") else None


def test_talk_mode_figures(recorded_server, big_page):
    url, _ = recorded_server
    shots = _shots()
    problems = _walk(big_page, url, "talk=1", shots)
    assert not problems, f"{len(problems)} talk-mode problem(s):\n" + "\n".join(problems)


def test_presenter_mode(recorded_server, big_page):
    url, _ = recorded_server
    shots = _shots()
    problems = _walk(big_page, url, "talk=1&presenter=1", shots)
    assert not problems, f"{len(problems)} presenter-mode problem(s):\n" + "\n".join(problems)
