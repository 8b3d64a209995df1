"""Colours and the two looks of every figure: the everyday dashboard look and "talk" mode.

FedAvg (warm vermillion) and FedQuad (strong blue) are the pair shown side by side, so they get
the two most distinct hues. Talk mode uses the Okabe-Ito palette (Okabe & Ito 2008), which stays
distinguishable under the common colour-vision deficiencies, on a white background with large
fonts, thick lines and big markers.
"""
from __future__ import annotations

import copy
import math
import zlib

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go
import plotly.io as pio

METHOD_COLORS: dict[str, str] = {
    "fedavg": "#E4572E", "fedprox": "#F3A712", "moon": "#8E44AD", "supcon": "#2CA02C",
    "triplet": "#8C564B", "quadruplet": "#E377C2", "fedquad": "#1F5FBF",
}
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
TALK_METHOD_COLORS: dict[str, str] = {
    "fedavg": "#D55E00", "fedprox": "#E69F00", "moon": "#CC79A7", "supcon": "#009E73",
    "triplet": "#56B4E9", "quadruplet": "#000000", "fedquad": "#0072B2",
}
# Ten clearly distinct class colours. Normal: D3 / Tableau "category10" (no two neighbours share a
# hue family, unlike plotly's default where 0/3, 1/6 and 6/8 blur on a projector). Talk (the
# projector): ten of Okabe & Ito's and Paul Tol's colour-blind-safe colours chosen for the largest
# smallest CIELAB distance, ΔE*ab at least 38 between any two (Okabe-Ito's eight plus two had 26:
# its two blues, its oranges and yellow, its two pinks looked alike on a projector), at least 19
# under simulated deuteranopia and protanopia, and at least 40 from the white background (the
# weakest, sand, last); tests/app/figures/test_figures.py measures all three.
CATEGORY10 = ("#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
              "#BCBD22", "#17BECF")
TALK_CLASSES = ("#332288", "#E69F00", "#228833", "#EE3377", "#56B4E9", "#661100", "#000000", "#009988",
                "#AA4499", "#DDCC77")
# Different dashes / bar patterns for runs that share a method (and so a colour).
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
PATTERNS = ("", "/", "x", ".", "\\", "+")
TEXT = "#1A1A1A"          # normal look: near-black text (plotly_white's default is a light slate)
GRID = "#E3E6EB"
_FALLBACK = tuple(pc.qualitative.Dark24)
_TALK_FALLBACK = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#999999")




def _lean_template(name: str) -> go.layout.Template:
    """A built-in template reduced to its layout and the trace types used here: assigning the
    full one deep-copies defaults for two dozen trace types (~20 ms a figure)."""
    full = pio.templates[name]
    data = {k: full.data[k] for k in ("scatter", "scattergl", "bar", "heatmap")}
    return go.layout.Template(layout=full.layout, data=data)


_TEMPLATES = {False: _lean_template("plotly_white"), True: _lean_template("simple_white")}
_TEMPLATE_JSON = {k: t.to_plotly_json() for k, t in _TEMPLATES.items()}


def percent_format(traces=(), fixed: tuple[float, float] | None = None) -> str:
    """The tick format of an accuracy axis (fractions shown as %): enough decimals that neighbouring
    ticks read differently. ``fixed``: the axis's set range; else the span of the traces' y values
    (bands included). Plotly puts about 5-8 ticks on an axis: over a span of 3 points they are half
    a point apart, and ".0%" would print "97%, 97%, 98%, 98%"."""
    if fixed is not None:
        lo, hi = float(min(fixed)), float(max(fixed))
    else:
        arrays = (np.asarray(t["y"]) for t in traces if t.get("y") is not None)
        ys = np.concatenate([a.ravel().astype(float) for a in arrays if a.dtype.kind in "fiu"] or [np.empty(0)])
        ys = ys[np.isfinite(ys)]
        if ys.size == 0:
            return ".0%"
        lo, hi = float(ys.min()), float(ys.max())
    step = (hi - lo) * 100 / 8  # points between ticks, at the densest plotly draws
    if step >= 1:
        return ".0%"
    return f".{min(2, math.ceil(-math.log10(step))) if step > 0 else 1}%"  # step < 1: one decimal or more


def method_color(name: str, talk: bool = False) -> str:
    """The method's hex colour; unknown names get a fixed colour derived from the name."""
    key = str(name).lower()
    table = TALK_METHOD_COLORS if talk else METHOD_COLORS
    if key in table:
        return table[key]
    palette = _TALK_FALLBACK if talk else _FALLBACK
    return palette[zlib.crc32(key.encode()) % len(palette)]


def class_colors(n: int, talk: bool = False) -> list[str]:
    """``n`` distinct hex colours, one per class.

    Up to ten classes get a qualitative palette; more are sampled evenly from the Turbo scale
    and visited with a stride, so classes with neighbouring indices get far-apart hues.
    """
    if n <= 0:
        return []
    if n <= 10:
        return list((TALK_CLASSES if talk else CATEGORY10)[:n])
    sampled = pc.sample_colorscale("Turbo", [0.03 + 0.94 * i / (n - 1) for i in range(n)])
    hexes = [_to_hex(c) for c in sampled]
    stride = next(s for s in (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 1) if n % s)
    return [hexes[(i * stride) % n] for i in range(n)]


def run_styles(methods, talk: bool = False) -> list[tuple[str, int]]:
    """(colour, variant) per run, in order: the colour of the run's method, and how many earlier
    runs share that method (0 for the first), to pick a dash or bar pattern that tells them apart."""
    seen: dict[str, int] = {}
    out = []
    for m in methods:
        key = str(m).lower()
        out.append((method_color(key, talk), seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
    return out


def _to_hex(color: str) -> str:
    r, g, b = pc.unlabel_rgb(color) if color.startswith("rgb") else pc.hex_to_rgb(color)
    return "#{:02X}{:02X}{:02X}".format(round(r), round(g), round(b))


LEGEND_ROW = {False: 22, True: 30}  # px per legend row
DEFAULT_HEIGHT = {False: 450, True: 460}  # talk: under a step's takeaway, whole inside 720 px (presenter bar included)
MIN_PLOT_HEIGHT = {False: 200, True: 200}  # px the plot area keeps under a title and legend of many rows
BOTTOM = {False: 56, True: 70}             # the bottom margin (x ticks and title) unless a figure sets its own
ASSUMED_WIDTH = 420                  # px a figure gets in a half-width column of the wide layout (1280 px, sidebar open)
# talk mode: a third of the page (the Lesson's three columns at 1600 px, or at 1280 px with the sidebar
# collapsed: about 395 px). The page never gives a talk figure less: a column holding one keeps at
# least this width (``TALK_CSS``; the switcher's grid likewise), so where a third is narrower (1280 px
# with the sidebar open: about 295 px) a row of three wraps into two and one instead of squeezing.
TALK_WIDTH = 360


def _width(font_size: int) -> int:
    """The width a figure is laid out for: talk mode's big fonts (18 px and up) assume a third of
    the page, so titles wrap and legends get their rows before they would be clipped."""
    return TALK_WIDTH if font_size >= 18 else ASSUMED_WIDTH


FIT_WIDTH = "_fit_width"  # a layout key builders may set: the width a figure in a grid is laid out for


def _laid_out(layout: dict, size: int) -> int:
    """The width the figure's text is fitted to: its own width when set, else the width its
    builder says it gets (``FIT_WIDTH``: a figure in a grid of several), else ``_width``."""
    return layout.get("width") or layout.get(FIT_WIDTH) or _width(size)


def _legend_rows(fig: go.Figure, size: int) -> int:
    """How many rows the horizontal legend needs at ``ASSUMED_WIDTH`` (or the figure's width)."""
    return _legend_rows_of(_names(fig), fig.layout.to_plotly_json(), size)


def _names(fig: go.Figure) -> list[dict]:
    """What the legend sizing reads of each trace (no copy of the data arrays); a trace without a
    legend entry (a table) has no ``showlegend`` and counts as not shown."""
    out = []
    for t in fig.data:
        d = {"name": getattr(t, "name", None), "showlegend": getattr(t, "showlegend", False), "type": t.type}
        for attr in ("y", "yaxis", "fill"):  # what ``_mark_zoomed_axes`` reads (a reference, no copy)
            v = getattr(t, attr, None)
            if v is not None:
                d[attr] = v
        out.append(d)
    return out


CHAR = 0.6   # a character's width, in font sizes (generous: the widest of the fonts in use)
LINE = 1.3   # a line of text's height, in font sizes


def _legend_shown(data: list[dict], layout: dict) -> list[dict]:
    shown = [t for t in data if t.get("name") and t.get("showlegend") is not False]
    return [] if not shown or (len(shown) == 1 and layout.get("showlegend") is not True) else shown


# plotly's horizontal legend (plotly.js legend/draw.js): the entries wrap at the plot area's width;
# an entry is its text plus 45 px (symbol 30, gaps); when they do not all fit in one row, every
# entry takes the widest one's width, in a grid.
ENTRY_EXTRA = 45
SIDE_MARGINS = {False: 84, True: 110}  # l + r of the look's margins


def _legend_room(layout: dict, size: int) -> float:
    return _laid_out(layout, size) - SIDE_MARGINS[size >= 18] - 20


def _wrap_legend_names(data: list[dict], layout: dict, size: int) -> None:
    """Break a legend entry longer than the plot is wide onto lines (``<br>``, at spaces), so no
    entry ever runs out of the figure: names are changed in ``data`` in place."""
    per_line = max(10, int((_legend_room(layout, size) - ENTRY_EXTRA) / (CHAR * size)))
    for t in _legend_shown(data, layout):
        name = str(t["name"])
        if "<br>" not in name and len(name) > per_line:
            t["name"] = "<br>".join(wrap_words(name, per_line))


def _legend_rows_of(data: list[dict], layout: dict, size: int) -> int:
    """The legend's height in rows of one line (an entry of two lines makes its row two high), as
    plotly lays it out."""
    names = [str(t["name"]) for t in _legend_shown(data, layout)]
    if not names:
        return 0
    entry = (layout.get("legend") or {}).get("entrywidth")
    parts = [n.split("<br>") for n in names]
    widths = [(entry or CHAR * size * max(len(p) for p in ps)) + ENTRY_EXTRA for ps in parts]
    room = _legend_room(layout, size)
    if sum(w + 5 for w in widths) < room:
        return max(len(ps) for ps in parts)
    per_row = max(1, int(room // (max(widths) + 5)))
    return sum(max(len(ps) for ps in parts[i:i + per_row]) for i in range(0, len(parts), per_row))


def _fit_axis_titles(layout: dict, talk: bool) -> None:
    """Break an axis title longer than its side of the plot area onto lines (``<br>``, at spaces;
    "(not from 0)" on a line of its own), and widen the margin it sits in by the added lines. A y
    title longer than the plot is high would run into the legend above it or off the figure; an x
    title wider than the plot would leave the figure. The plot's width is the one the figure is
    laid out for (``_width``); its height is the figure's."""
    size = 20 if talk else 14
    margin = layout.setdefault("margin", {})
    height = layout.get("height") or DEFAULT_HEIGHT[talk]
    width = _laid_out(layout, 18 if talk else 13)
    for letter in "xy":
        if letter == "x":
            room = width - margin.get("l", 0) - margin.get("r", 0) + 2 * min(margin.get("l", 0), margin.get("r", 0)) - 8
        else:  # rotated x tick labels (class names) take the bottom margin's room and more
            turned = any(abs((layout.get(k) or {}).get("tickangle") or 0) >= 45 for k in _axis_keys(layout, "x"))
            room = height - margin.get("t", 0) - margin.get("b", 0) - (8 * CHAR * size if turned else 0)
        extra = 0
        for key in _axis_keys(layout, letter):
            axis = layout.get(key)
            title = (axis or {}).get("title")
            text = title.get("text") if isinstance(title, dict) else title
            if not text or "<br>" in str(text):
                continue
            domain = axis.get("domain") or [0, 1]
            font = ((title if isinstance(title, dict) else {}).get("font") or {}).get("size") or size
            per_line = max(8, int(room * (domain[1] - domain[0]) / (CHAR * font)))
            if len(text) <= per_line:
                continue
            base, suffix = (text[:-len(NOT_FROM_ZERO)], NOT_FROM_ZERO.strip()) if text.endswith(NOT_FROM_ZERO) else (text, "")
            lines = wrap_words(base, per_line)
            if suffix:
                lines = lines[:-1] + [lines[-1] + " " + suffix] if len(lines[-1]) + len(suffix) < per_line else lines + [suffix]
            axis["title"] = {**(title if isinstance(title, dict) else {}), "text": "<br>".join(lines)}
            if letter == "x" or domain[0] <= 0.01:  # the leftmost y axis: its lines go into the left margin
                extra = max(extra, int((len(lines) - 1) * LINE * font))
        if extra:
            side = "b" if letter == "x" else "l"
            margin[side] = margin.get(side, 0) + extra


TICK_GAP = 8  # px kept between two tick labels


def _thin_uneven_ticks(layout: dict, talk: bool) -> None:
    """Tick labels at explicit, unevenly spaced values (a grid such as margin 0, 0.25, 0.5, 1, 2):
    plotly picks their angle from the mean spacing, so the closest pair can collide at any angle it
    picks. At the width the figure is laid out for, such labels are kept horizontal and a label too
    close to the last one kept is left out (its tick and its points stay): ``ticktext`` changed in
    place. Evenly spaced ticks are left to plotly (it rotates them as they need)."""
    width = _laid_out(layout, 18 if talk else 13)
    margin = layout.get("margin") or {}
    plot = width - margin.get("l", 0) - margin.get("r", 0)
    for key in _axis_keys(layout, "x"):
        axis = layout.get(key) or {}
        vals, text = axis.get("tickvals"), axis.get("ticktext")
        if (vals is None or text is None or len(vals) != len(text) or len(vals) < 3 or axis.get("tickangle") is not None
                or axis.get("type") not in (None, "linear")):
            continue
        try:
            xs = [float(v) for v in vals]
        except (TypeError, ValueError):
            continue
        order = sorted(range(len(xs)), key=xs.__getitem__)
        gaps = [xs[b] - xs[a] for a, b in zip(order, order[1:])]
        span = xs[order[-1]] - xs[order[0]]
        if span <= 0 or min(gaps) > 0.75 * span / len(gaps):  # (nearly) even: plotly's own angle holds
            continue
        lo, hi = axis.get("range") or (None, None)
        if lo is not None and hi is not None and hi > lo:
            per_unit = plot * _span(axis.get("domain")) / (float(hi) - float(lo))
        else:  # autorange: the ticks' extent, padded by the points' markers and any column around them
            per_unit = 0.8 * plot * _span(axis.get("domain")) / span
        font = (axis.get("tickfont") or {}).get("size") or (layout.get("font") or {}).get("size") or (20 if talk else 13)
        half = [_label_width(str(t), font) / 2 for t in text]
        out, last = list(text), None
        for i in order:
            if not str(text[i]):
                continue
            if last is not None and (xs[i] - xs[last]) * per_unit < half[i] + half[last] + TICK_GAP:
                out[i] = ""
            else:
                last = i
        if out != list(text):
            layout[key] = {**axis, "ticktext": out, "tickangle": 0}


def _label_width(text: str, size: float) -> float:
    """A tick label's width in px: digits about 0.56 of the font size, a point or comma 0.3, any
    other character ``CHAR`` (tick labels are mostly numbers: ``CHAR`` alone would make "0.25" a
    fifth wider than drawn)."""
    return size * sum(0.56 if c.isdigit() else 0.3 if c in ".," else CHAR for c in text)


def _span(domain) -> float:
    return (domain[1] - domain[0]) if domain else 1.0


def wrap_words(text: str, per_line: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``per_line`` characters (a longer word
    stays whole on its own line)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _wrap_title(fig: go.Figure, size: int) -> int:
    """Break a title that would not fit the figure's width onto several lines (at spaces);
    return the number of lines (0 without a title)."""
    layout = fig.layout.to_plotly_json()
    lines = _wrap_title_of(layout, size)
    if lines:
        fig.layout.title.text = layout["title"]["text"]
    return lines


def _wrap_title_of(layout: dict, size: int) -> int:
    """``_wrap_title`` on a layout dict (``layout["title"]["text"]`` rewritten in place)."""
    title = layout.get("title")
    if isinstance(title, str):
        title = layout["title"] = {"text": title}
    text = (title or {}).get("text")
    if not text:
        return 0
    if "<br>" in text:
        return text.count("<br>") + 1
    per_line = max(12, int((_laid_out(layout, size) - 24) / (CHAR * size)))
    lines = wrap_words(text, per_line)
    title["text"] = "<br>".join(lines)
    return len(lines)


def _place_title_and_legend(data: list[dict], layout: dict, talk: bool, font: int, title: int, base_top: int) -> dict:
    """Title at the top left; under it, a horizontal legend (left-aligned, growing downwards, so it
    never runs into the title); the plot area starts under both. Both are placed relative to the
    whole figure, so the space they take is reserved in the top margin. Returns the layout
    changes (``theme_layout`` applies them with the rest in one merge)."""
    height = layout.get("height") or DEFAULT_HEIGHT[talk]  # the legend's place is computed for this height
    lines = _wrap_title_of(layout, title)
    # plotly draws a title of several lines about one font size higher than ``yanchor="top"``
    # says (measured in Chromium and kaleido): pad it down by that much, and leave the room
    multi = title if lines > 1 else 0
    title_h = int(title * 1.9 + (lines - 1) * title * 1.25 + 0.4 * multi) if lines else 0
    _wrap_legend_names(data, layout, font)
    rows = _legend_rows_of(data, layout, font)
    top = max(base_top, title_h + rows * LEGEND_ROW[talk] + 14) + _panel_titles(layout)
    # a long legend never squeezes the plot: the figure grows instead, by what the plot would lose
    bottom = (layout.get("margin") or {}).get("b") or BOTTOM[talk]
    height = max(height, top + MIN_PLOT_HEIGHT[talk] + bottom)
    legend = dict(orientation="h", xref="container", x=0.0, xanchor="left", yref="container",
                  y=1.0 - title_h / height, yanchor="top", font=dict(size=font),
                  title=dict(side="left"), bgcolor="rgba(255,255,255,0)")
    # plotly caps a horizontal legend at half the figure's height and scrolls the rest: a legend of
    # many rows (seven methods, each name on two lines, one a row) gets the height kept for it
    need = (rows + 1) * LEGEND_ROW[talk]
    if need > 0.5 * height:
        legend["maxheight"] = need
    return dict(
        height=height,
        title=dict(x=0.0, xanchor="left", xref="container", y=1.0, yanchor="top", yref="container",
                   pad=dict(t=8 + multi, l=12), font=dict(size=title)),
        legend=legend,
        margin=dict(t=top),
    )


def _panel_titles(layout: dict) -> int:
    """The height of the subplot titles drawn just above the top row of plots (``make_subplots``'
    annotations): under the legend, so the top margin makes room for them too."""
    sizes = [(a.get("font") or {}).get("size") or 16 for a in layout.get("annotations") or ()
             if a.get("yref") == "paper" and a.get("yanchor") == "bottom" and (a.get("y") or 0) >= 0.99]
    return int(LINE * max(sizes)) if sizes else 0


def _merge(dst: dict, src: dict) -> dict:
    """``src`` merged into ``dst`` as plotly's ``update`` does (nested dicts merged, the rest set)."""
    for key, value in src.items():
        if isinstance(value, dict) and isinstance(dst.get(key), dict):
            _merge(dst[key], value)
        else:
            dst[key] = copy.deepcopy(value)
    return dst


def _axis_keys(layout: dict, letter: str) -> list[str]:
    keys = [k for k in layout if k == f"{letter}axis" or (k.startswith(f"{letter}axis") and k[5:].isdigit())]
    return keys or [f"{letter}axis"]


NOT_FROM_ZERO = " (not from 0)"
_NO_ZOOM = ("bar", "histogram", "heatmap", "box", "violin", "table", "pie", "image")  # 0 in range, or no y axis


def _mark_zoomed_axes(data: list[dict], layout: dict) -> None:
    """Append "(not from 0)" to the title of every y axis that plotly will zoom in on: no range,
    range mode or log/category type set, only line/marker traces on it, all values positive and
    the smallest above plotly's padding (5 % of the spread), so the axis will not reach 0."""
    values: dict[str, list] = {}
    for t in data:
        if "y" not in t:
            continue
        key = "yaxis" + str(t.get("yaxis") or "y")[1:]
        if t.get("type") in _NO_ZOOM or t.get("fill") in ("tozeroy", "tonexty"):
            values[key] = None  # drawn from 0 (a bar) or filled towards another trace: left alone
            continue
        if values.get(key, []) is not None:
            try:
                ys = np.asarray(t["y"], dtype=float).ravel()
            except (TypeError, ValueError):
                values[key] = None
                continue
            values.setdefault(key, []).append(ys[np.isfinite(ys)])
    for key, parts in values.items():
        axis = layout.get(key) or {}
        title = axis.get("title")
        text = title.get("text") if isinstance(title, dict) else title
        if (not parts or not text or NOT_FROM_ZERO.strip() in text or axis.get("range") is not None
                or axis.get("rangemode") or axis.get("type") in ("log", "category", "date") or axis.get("autorange") is False):
            continue
        ys = np.concatenate(parts)
        if ys.size and ys.min() > 0 and ys.min() > 0.05 * (ys.max() - ys.min()):
            layout[key] = {**axis, "title": {**(title if isinstance(title, dict) else {}), "text": text + NOT_FROM_ZERO}}


def theme_layout(data: list[dict], layout: dict, talk: bool = False) -> dict:
    """The look of ``apply_theme`` on plain dicts: ``layout`` (a figure's layout as plotly's JSON,
    nested keys, no ``title_text`` shorthands) is changed in place and returned, with the template
    (as JSON) set; ``data`` (trace dicts) only sizes the legend."""
    if not talk:
        changes = [dict(font=dict(size=14, color=TEXT), title=dict(font=dict(color=TEXT)), margin=dict(l=64, r=20, b=BOTTOM[False])),
                   _place_title_and_legend(data, layout, False, 13, 17, 24)]
        axis = dict(tickfont=dict(size=13, color=TEXT), title=dict(font=dict(size=14, color=TEXT)), gridcolor=GRID,
                    linecolor="#9AA0A6", zerolinecolor=GRID)
    else:
        changes = [dict(font=dict(size=20, color="#000000"), margin=dict(l=80, r=30, b=BOTTOM[True])),
                   _place_title_and_legend(data, layout, True, 18, 24, 30)]
        axis = dict(linewidth=2, ticks="outside", tickwidth=2)
    layout["template"] = _TEMPLATE_JSON[talk]
    _mark_zoomed_axes(data, layout)
    for change in changes:
        _merge(layout, change)
    for letter in "xy":
        for key in _axis_keys(layout, letter):
            layout[key] = _merge(layout.get(key) or {}, axis)
    _fit_axis_titles(layout, talk)
    _thin_uneven_ticks(layout, talk)
    layout.pop(FIT_WIDTH, None)  # not a plotly property
    return layout


def apply_theme(fig: go.Figure, talk: bool = False) -> go.Figure:
    """Style ``fig`` in place and return it (normal: clean white; talk: big, bold, white).

    Legends are horizontal, above the plot area and under the title, so a figure in a half-width
    column keeps its full width for data. Pages pass ``theme=None`` to ``st.plotly_chart`` so the
    screen shows exactly this look (the same as the downloaded files).

    The layout is changed in one assignment of a merged dict: plotly's ``update_*`` calls walk and
    validate the figure once per call (about 35 ms a figure for the dozen calls this look needs,
    against about 10 ms so), which made a page of ten figures slow. Builders that run on every
    slider move skip even that: ``themed_figure`` makes the figure, themed, from dicts at once.
    """
    names = _names(fig)
    layout = theme_layout(names, fig.layout.to_plotly_json(), talk)
    fig.layout = layout
    _rename(fig, names)
    if talk:
        _thicken(fig)
    return fig


def refit(fig: go.Figure, width: int, talk: bool = False, height: int | None = None) -> go.Figure:
    """A copy of the themed ``fig`` with its text laid out again for a figure ``width`` px wide (a
    row of three on a 1280 px screen): the title, legend names and axis titles unbroken, then
    broken and given room as ``theme_layout`` does for that width. ``height``: start again from it
    (the room a narrower layout added for a legend of many rows is given back)."""
    def whole(text):
        return text.replace("<br>", " ") if isinstance(text, str) else text

    out = go.Figure(fig)
    layout = out.layout.to_plotly_json()
    if isinstance(layout.get("title"), dict):
        layout["title"]["text"] = whole(layout["title"].get("text"))
    for key in [k for k in layout if k[1:5] == "axis" and isinstance(layout[k], dict)]:
        title = layout[key].get("title")
        if isinstance(title, dict) and title.get("text"):
            title["text"] = whole(title["text"]).replace(" (not from 0)", NOT_FROM_ZERO)
    layout.pop("margin", None)  # the look sets it anew
    if height:
        layout["height"] = height
    names = _names(out)
    for d in names:
        d["name"] = whole(d.get("name"))
    layout[FIT_WIDTH] = width
    out.layout = theme_layout(names, layout, talk)
    _rename(out, names)
    return out


def _rename(fig: go.Figure, names: list[dict]) -> None:
    """Give ``fig``'s traces the legend names ``theme_layout`` broke to the figure's width."""
    for trace, d in zip(fig.data, names):
        if d.get("name") is not None and d["name"] != trace.name:
            trace.name = d["name"]


def themed_figure(data: list[dict], layout: dict, talk: bool = False, *, overrides: dict | None = None) -> go.Figure:
    """``apply_theme(go.Figure(data=data, layout=layout), talk)``, made in one construction (about
    1-2 ms against 10-40 ms): the look is merged into the dicts first, and plotly's per-property
    validation is skipped (``_validate=False``, as plotly itself does for its built-in templates).
    ``data`` holds trace dicts with ``type``; ``layout`` uses nested keys (``title=dict(text=...)``,
    not ``title_text``). The builders that use it are checked against the validated construction
    in ``tests/app/figures/test_theme_layout.py`` (an unknown property there raises). ``overrides`` are
    merged into the layout after the look (settings the look must not change)."""
    layout = _merge(theme_layout(data, layout, talk), overrides or {})
    if talk:
        for trace in data:
            _thicken_trace(trace)
    return go.Figure(data=data, layout=layout, _validate=False)


def talk_width(width) -> float:
    """A line's width in talk mode: main lines (2 px and up, or unset) at least 4 px, thin ones
    (a run's single seed) 1.6 times as thick, and no line (width 0: a band's outline) stays none."""
    if width is None:
        return 4
    if width == 0:
        return 0
    return max(width, 4) if width >= 2 else width * 1.6


def _thicken_trace(trace: dict) -> None:
    """Talk mode on a trace dict: thick lines, big markers (as ``_thicken``)."""
    if trace.get("type", "scatter") not in ("scatter", "scattergl"):
        return
    mode = trace.get("mode") or "lines"
    if "lines" in mode:
        line = trace.setdefault("line", {})
        line["width"] = talk_width(line.get("width"))
    if "markers" in mode:
        marker = trace.setdefault("marker", {})
        size = marker.get("size")
        if size is None or isinstance(size, (int, float)):
            marker["size"] = (size or 6) * 1.6


def _thicken(fig: go.Figure) -> None:
    """Talk mode: thick lines, big markers."""
    for trace in fig.data:
        if trace.type not in ("scatter", "scattergl"):
            continue
        mode = trace.mode or "lines"
        if "lines" in mode:
            trace.line.width = talk_width(trace.line.width)
        if "markers" in mode:
            size = trace.marker.size
            if size is None or isinstance(size, (int, float)):
                trace.marker.size = (size or 6) * 1.6


# ---- the page around the figures ------------------------------------------------------------
TALK_CSS = """<style>
.stApp, [data-testid="stSidebar"], [data-testid="stHeader"] {background: #ffffff !important; color: #111 !important;}
.stApp p, .stApp li, .stApp label {font-size: 1.2rem;}
.stApp h1 {font-size: 2.6rem;} .stApp h2 {font-size: 2.1rem;} .stApp h3 {font-size: 1.7rem;}
[data-testid="stMainBlockContainer"] {padding-left: 2rem !important; padding-right: 2rem !important; padding-top: 3.5rem !important;}
[data-testid="stHeader"] {background: transparent !important;}
.fq-step-title {font-size: 1.9rem; font-weight: 700; line-height: 1.2;} .fq-step-of {font-size: 1.1rem; font-weight: 400; color: #555;}
.fq-takeaway {font-size: 1.25rem; line-height: 1.25; margin: 0.1rem 0 0.3rem 0;}
[data-testid="stColumn"]:has([data-testid="stPlotlyChart"], .js-plotly-plot) {min-width: min(100%, TALK_WIDTHpx) !important;}
.modebar-container {display: none !important;}
</style>""".replace("TALK_WIDTH", str(TALK_WIDTH))  # a column holding a figure: never under the width it is laid out for
PRESENTER_CSS = """<style>
[data-testid="stToolbar"], [data-testid="stDecoration"], footer {display: none !important;}
.modebar-container {display: none !important;}
</style>"""


def page_css(talk: bool, presenter: bool) -> list[str]:
    """The style blocks of the page in talk mode (white, large fonts) and presenter mode (no chrome)."""
    return ([TALK_CSS] if talk else []) + ([PRESENTER_CSS] if presenter else [])
