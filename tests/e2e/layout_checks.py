"""What a figure looks like on screen, measured in the browser, and the layout rules it must keep:
the figure layout sweep's checks (``test_talk_layout.py``), in one place.

A figure (one ``.js-plotly-plot``) fails when
- its title, a subplot title (an annotation), an axis title, a tick label, its legend or a colour
  bar leaves the figure (``svg.main-svg``);
- two of these overlap: title, subplot titles, axis titles, legend, colour bars (an axis title
  running into the legend is the commonest defect), or an axis title with a tick label;
- two legend entries overlap, or the legend scrolls (its entries do not fit its box: names are
  cut, entries hidden);
- two tick labels of one axis overlap (colour-bar ticks included), or two neighbouring ones read
  the same (a ".0%" axis over a range of 2 points: "97%, 97%, 98%, 98%"; a log axis's repeated
  "2", "5" per decade are not neighbours);
- a plot area (one subplot's drag box) is under ``MIN_PLOT`` px wide or high;
- traces of one legend group (what one legend entry stands for: mean line, band, seed lines) are
  drawn in different hues (the band or the seed lines would then not match their legend entry).
"""
from __future__ import annotations

import colorsys
import time

SLACK = 1.5  # px: anti-aliasing and sub-pixel rounding
MIN_PLOT = 80  # px: the smallest plot area that still shows a figure

MEASURE = """(g) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (el) => { const s = getComputedStyle(el);
    return s.opacity !== '0' && s.display !== 'none' && s.visibility !== 'hidden' && el.textContent.trim(); };
  const svg = g.querySelector('svg.main-svg');
  const title = g.querySelector('.gtitle');
  const legendG = g.querySelector('.legend');
  const legend = legendG ? (legendG.querySelector('.bg') || legendG) : null;
  const axisTitles = [...g.querySelectorAll('.infolayer text')]
    .filter(t => /^[xy][0-9]*title$/.test(t.getAttribute('class') || '') && shown(t))
    .map(t => ({text: t.textContent, box: box(t)}));
  const annotations = [...g.querySelectorAll('.annotation')].filter(a => shown(a))
    .map(a => { const t = a.querySelector('.annotation-text') || a; return {text: t.textContent, box: box(t)}; });
  const ticks = {};
  for (const t of g.querySelectorAll('.xtick text, .ytick text')) {
    if (!shown(t)) continue;
    const layer = t.closest('g[class*="layer-above"], g.xaxislayer-above, g.yaxislayer-above') || t.parentNode.parentNode;
    const axis = (t.closest('.xtick') ? 'x' : 'y') + ':' + (t.closest('.colorbar') ? 'cb' : '') + Array.prototype.indexOf.call(
        g.querySelectorAll('g.xaxislayer-above, g.yaxislayer-above, .colorbar'), t.closest('.colorbar') || layer);
    (ticks[axis] = ticks[axis] || []).push({text: t.textContent, box: box(t)});
  }
  const colorbars = [...g.querySelectorAll('.colorbar')].map(c => ({box: box(c),
    title: [...c.querySelectorAll('.cbtitle text')].filter(shown).map(t => ({text: t.textContent, box: box(t)}))}));
  const plots = [...g.querySelectorAll('.nsewdrag')].map(d => box(d));
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
  const items = [...g.querySelectorAll('.legend .traces')].map(tr => {
    const t = tr.querySelector('text.legendtext');
    return {text: t ? t.textContent : '', box: box(t || tr), row: box(tr)};
  });
  return {items, axisTitles, annotations, colorbars, plots, svg: svg ? box(svg) : null,
          title: title && shown(title) ? box(title) : null, titleText: title ? title.textContent : '',
          legend: legend ? box(legend) : null, scrollbar: !!(legendG && [...legendG.querySelectorAll('.scrollbar')]
            .some(s => s.getBoundingClientRect().height > 0 && parseFloat(s.getAttribute('height') || '1') > 0)),
          ticks, groups};
}"""


def _inside(inner, outer) -> bool:
    return (inner[0] >= outer[0] - SLACK and inner[1] >= outer[1] - SLACK and inner[2] <= outer[2] + SLACK
            and inner[3] <= outer[3] + SLACK)


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def _hue(rgb: str) -> tuple:
    """A colour's hue bucket (so a lighter or transparent version of one colour counts the same)."""
    r, g, b = (int(x) / 255 for x in rgb.split(","))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    return ("grey",) if s < 0.15 or lum > 0.97 or lum < 0.03 else (round(h * 24) % 24,)


def _labelled(m: dict) -> list[tuple[str, list]]:
    """The figure's text blocks that must keep apart from one another, named."""
    out = [("the title", m["title"])] if m["title"] else []
    out += [(f"the subplot title {a['text'][:40]!r}", a["box"]) for a in m["annotations"]]
    out += [(f"the axis title {t['text'][:40]!r}", t["box"]) for t in m["axisTitles"]]
    out += [("the legend", m["legend"])] if m["legend"] else []
    out += [(f"colour bar {i + 1}", c["box"]) for i, c in enumerate(m["colorbars"])]
    return out


def figure_problems(m: dict, where: str) -> list[str]:
    out = []
    name = f"{where}: figure {m['titleText'][:60]!r}"
    if m["svg"] is None:
        return [f"{name}: not drawn"]
    blocks = _labelled(m)
    for label, b in blocks:
        if not _inside(b, m["svg"]):
            out.append(f"{name}: {label} leaves the figure")
    for i, (la, a) in enumerate(blocks):
        for lb, b in blocks[i + 1:]:
            if _overlap(a, b) and not (la.startswith("the legend") and lb.startswith("colour bar")):
                out.append(f"{name}: {la} overlaps {lb}")
    for c in m["colorbars"]:
        for t in c["title"]:
            if not _inside(t["box"], m["svg"]):
                out.append(f"{name}: the colour bar title {t['text'][:40]!r} leaves the figure")
    if m["legend"]:
        if m["scrollbar"]:
            out.append(f"{name}: the legend scrolls ({len(m['items'])} entries do not fit)")
        else:
            cut = [i["text"] for i in m["items"] if not _inside(i["box"], m["legend"])]
            if cut:
                out.append(f"{name}: legend entries cut by the legend's box: {cut[:3]}")
    for i, a in enumerate(m["items"]):
        hit = next((b for b in m["items"][i + 1:] if _overlap(a["box"], b["box"])), None)
        if hit:
            out.append(f"{name}: legend entries {a['text']!r} and {hit['text']!r} overlap")
            break
    for axis, ticks in m["ticks"].items():
        outside = [t["text"] for t in ticks if not _inside(t["box"], m["svg"])]
        if outside:
            out.append(f"{name}: tick labels {outside[:3]} leave the figure ({axis})")
        ticks = sorted(ticks, key=lambda t: (t["box"][0], t["box"][1]))
        for a, b in zip(ticks, ticks[1:]):
            if _overlap(a["box"], b["box"]):
                out.append(f"{name}: tick labels {a['text']!r} and {b['text']!r} overlap ({axis})")
                break
        same = next((a["text"] for a, b in zip(ticks, ticks[1:]) if a["text"].strip() and a["text"] == b["text"]), None)
        if same is not None:
            out.append(f"{name}: two neighbouring tick labels both read {same!r} ({axis}): too few decimals")
    tick_boxes = [t for ticks in m["ticks"].values() for t in ticks]
    for t in m["axisTitles"]:
        hit = next((k for k in tick_boxes if _overlap(t["box"], k["box"])), None)
        if hit:
            out.append(f"{name}: the axis title {t['text'][:40]!r} overlaps the tick label {hit['text']!r}")
    for p in m["plots"]:
        w, h = p[2] - p[0], p[3] - p[1]
        if min(w, h) < MIN_PLOT:
            out.append(f"{name}: a plot area of {w:.0f} x {h:.0f} px (under {MIN_PLOT})")
            break
    for group, colors in m["groups"].items():
        hues = {_hue(c) for c in colors} - {("grey",)}
        if len(hues) > 1:
            out.append(f"{name}: legend group {group!r} drawn in different colours {sorted(colors)}")
    return out


CHARTS = ("() => [...document.querySelectorAll('.js-plotly-plot')].map("
          "g => (g.querySelector('svg.main-svg') ? 1 : 0) + ':' + (g._fullData || []).length + "
          "(g.closest('.hidden') ? 'h' : ''))"
          ".join('|') + (document.querySelector('[data-testid=\"stStatusWidget\"]') ? 'R' : '')"
          " + ((document.querySelector('[data-test-script-state]') || {getAttribute: () => ''})"
          ".getAttribute('data-test-script-state') === 'running' ? 'S' : '')")


def each_frame(page, script: str) -> list:
    """``script`` evaluated in every frame of the page (the page's first, then the figure
    switcher's); a frame that went away meanwhile answers "gone"."""
    out = []
    for frame in page.frames:
        try:
            out.append(frame.evaluate(script))
        except Exception:  # noqa: BLE001 - a frame that went away meanwhile
            out.append("gone")
    return out


def in_frames(page, script: str, sep: str = "") -> str:
    """``each_frame``'s answers (strings) joined."""
    return sep.join(each_frame(page, script))


class Still:
    """Whether a reading has stood still: ``see(answer)`` is True once the answers seen have not
    changed for ``quiet`` s (one reading at a time, so that several pages can be watched at once)."""

    def __init__(self, quiet: float):
        self.quiet, self.last, self.since = quiet, None, time.monotonic()

    def see(self, now) -> bool:
        if now != self.last:
            self.last, self.since = now, time.monotonic()
            return False
        return time.monotonic() - self.since > self.quiet


SWITCHERS = "() => document.querySelectorAll('iframe[title*=\"fedquad_switcher\"]').length"
SWITCHER_READY = "() => !!(window.fqState && window.fqState.sig) && !document.querySelector('.fq-slot.loading')"


def _switchers_ready(page) -> bool:
    """Every figure switcher of the page has drawn its layout and the figures of its position (its
    frame loads plotly.js and gets its figures after the page's script run: on a loaded machine
    the set of charts can stand still for seconds before it has drawn any)."""
    want = page.evaluate(SWITCHERS)
    if not want:
        return True
    return sum(answer is True for answer in each_frame(page, SWITCHER_READY)[1:]) >= want


QUIET = 1.5  # s without a change in the drawn charts that count as settled


def settled(page, still: Still, extra: str = "") -> bool:
    """One look at the page: True when the script run has finished (no status widget, the app's
    script state not "running"), every figure switcher has drawn its position, and the set of drawn
    charts (and ``extra``, a script's answers in every frame: e.g. the figures' widths) has not
    changed for ``still``'s quiet time. Several pages can be watched at once, one look each in turn."""
    now = in_frames(page, CHARTS) + (in_frames(page, extra, "|") if extra else "")
    # (a long script run can keep the charts still for seconds: not settled while it runs)
    return still.see(now) and not ("R" in now or "S" in now) and _switchers_ready(page)


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


# The projector (issue 45): every figure and table of a teaching page whole at 1280x720. A figure's
# box is the union of its plotly div, its drawing layers (``svg.main-svg``) and every text in them
# (axis titles, tick labels, legend entries, colour bars), in the viewport's coordinates; in the
# figure switcher's frame it is offset by where the frame sits, and must also lie inside the frame
# (a frame shorter than its figure cuts it).
BOXES = """() => {
  const union = (els) => { let b = null;
    for (const el of els) { const r = el.getBoundingClientRect(); if (!r.width && !r.height) continue;
      b = b ? [Math.min(b[0], r.left), Math.min(b[1], r.top), Math.max(b[2], r.right), Math.max(b[3], r.bottom)]
            : [r.left, r.top, r.right, r.bottom]; }
    return b; };
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && !el.closest('details:not([open])') && getComputedStyle(el).visibility !== 'hidden'; };
  // an x axis title's room under it: the figure's bottom edge less the title's bottom
  const under = (g) => { const svg = g.querySelector('svg.main-svg'); if (!svg) return null;
    const bottom = svg.getBoundingClientRect().bottom;
    const titles = [...g.querySelectorAll('.infolayer text')].filter(t => /^x[0-9]*title$/.test(t.getAttribute('class') || '')
      && t.textContent.trim());
    return titles.length ? Math.min(...titles.map(t => bottom - t.getBoundingClientRect().bottom)) : null; };
  const figures = [...document.querySelectorAll('.js-plotly-plot')].filter(visible).map(g => ({
    name: ((g.querySelector('.gtitle') || {}).textContent || '').slice(0, 60), under: under(g),
    box: union([g, ...g.querySelectorAll('svg.main-svg, .infolayer text, .legend, .xtick text, .ytick text, .colorbar')])}));
  const tables = [...document.querySelectorAll('[data-testid="stDataFrame"], [data-testid="stTable"], '
      + '[data-testid="stMarkdownContainer"] table')].filter(visible).map(t => {
    // (a data frame scrolls inside its own grid; a static table's columns must fit its box)
    const grid = t.getAttribute('data-testid') === 'stDataFrame';
    const inner = grid ? null : (t.closest('[data-testid="stMarkdownContainer"]') || t);
    const r = t.getBoundingClientRect();
    return {name: ((t.querySelector('th') || {}).textContent || 'a table').slice(0, 40),
            box: [r.left, r.top, r.right, r.bottom],
            cut: inner ? Math.max(inner.scrollWidth - inner.clientWidth, 0) : 0};
  });
  return {figures, tables};
}"""


def projector_boxes(page) -> tuple[list[dict], list[dict]]:
    """Every shown figure and table of the page, in reading order (top, then left), each
    {name, box: [left, top, right, bottom] in the viewport, frame: the frame's box or None}."""
    figures, tables = [], []
    for i, frame in enumerate(page.frames):
        try:
            got = frame.evaluate(BOXES)
        except Exception:  # noqa: BLE001 - a frame that went away meanwhile
            continue
        offset = None
        if i:
            try:
                offset = frame.frame_element().bounding_box()
            except Exception:  # noqa: BLE001 - a detached frame
                continue
            if not offset or offset["width"] < 2 or offset["height"] < 2:
                continue  # (a hidden frame)
        dx, dy = (offset["x"], offset["y"]) if offset else (0.0, 0.0)
        fbox = [dx, dy, dx + offset["width"], dy + offset["height"]] if offset else None
        for kind, out in (("figures", figures), ("tables", tables)):
            for item in got[kind]:
                b = item["box"]
                if b is None:
                    continue
                item["box"] = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
                item["frame"] = fbox
                out.append(item)
    key = lambda it: (round(it["box"][1]), round(it["box"][0]))  # noqa: E731
    return sorted(figures, key=key), sorted(tables, key=key)


EDGE = 4  # px: an x axis title keeps at least this under it, off the figure's bottom edge (issue 45: step 4's)


def projector_problems(page, where: str, width: int, height: int, every_on_first: bool) -> list[str]:
    """At a projector's ``width`` x ``height`` (issue 45): every figure and table inside the viewport's
    width (a static table's columns inside its box); an x axis title off the figure's bottom edge
    (``EDGE``); no figure or table taller than one screen (a
    long table pages inside its own box); a
    figure inside its frame; no exception box on the page; the page's first figure whole on the first screen, and with
    ``every_on_first`` (a Lesson step: the lecturer does not scroll mid-step) every figure."""
    figures, tables = projector_boxes(page)
    out = []
    errors = page.locator("[data-testid='stException']")
    if errors.count():  # an exception box is a broken page, whatever its figures measure
        out.append(f"{where}: an exception on the page: {errors.first.inner_text()[:200]!r}")

    def span(b):
        return f"x {b[0]:.0f}-{b[2]:.0f}, y {b[1]:.0f}-{b[3]:.0f}"

    for n, f in enumerate(figures):
        b, name = f["box"], f"{where}: figure {f['name']!r}"
        if b[0] < -SLACK or b[2] > width + SLACK:
            out.append(f"{name} leaves the screen's width ({span(b)} of {width} x {height})")
        if b[3] - b[1] > height + SLACK:
            out.append(f"{name} is taller than one screen ({b[3] - b[1]:.0f} px of {height})")
        if f.get("under") is not None and f["under"] < EDGE:
            out.append(f"{name}: its x axis title sits {f['under']:.0f} px from the figure's bottom edge (under {EDGE})")
        fr = f["frame"]
        if fr and (b[1] < fr[1] - SLACK or b[3] > fr[3] + SLACK or b[0] < fr[0] - SLACK or b[2] > fr[2] + SLACK):
            out.append(f"{name} is cut by its frame (figure {span(b)}, frame {span(fr)})")
        if (n == 0 or every_on_first) and (b[1] < -SLACK or b[3] > height + SLACK):
            which = "the page's first figure" if n == 0 else "a figure of the step"
            out.append(f"{name}: {which} is not whole on the first screen ({span(b)} of {width} x {height})")
    for t in tables:
        b, name = t["box"], f"{where}: table {t['name']!r}"
        if b[0] < -SLACK or b[2] > width + SLACK:
            out.append(f"{name} leaves the screen's width ({span(b)} of {width})")
        if t["cut"] > SLACK:
            out.append(f"{name} has {t['cut']:.0f} px of columns cut by its box")
        if b[3] - b[1] > height + SLACK:
            out.append(f"{name} is taller than one screen ({b[3] - b[1]:.0f} px of {height}): "
                       "a long table pages inside its own box")
    return out
