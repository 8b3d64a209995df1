"""The text-fitting steps of ``app.figures.fit``: each breaks one kind of text (the title, legend
names, axis titles, uneven tick labels) to the width a figure is laid out for and makes the room
it then needs. They work on plain dicts (a figure's layout as plotly's JSON, trace dicts), so the
fast path (a figure built at once from dicts) and a built figure share them. Call ``fit``, not
these: it runs them in their order.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import plotly.graph_objects as go

from app.figures.palette import (ASSUMED_WIDTH, BOTTOM, CHAR, DEFAULT_HEIGHT, FONT, LEGEND_FONT, LEGEND_ROW, LINE,
                                 MIN_PLOT_HEIGHT, SIDE_MARGINS, TALK_WIDTH, TICK_FONT)


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


# traces plotly leaves out of the legend unless told (``showlegend`` defaults to false for them)
NOT_IN_LEGEND = {"heatmap", "table", "contour", "surface", "histogram2d", "histogram2dcontour"}


def _legend_shown(data: list[dict], layout: dict) -> list[dict]:
    """The traces plotly puts in the legend: named, not hidden, not a heatmap or table (unless
    asked), and none when the layout hides the legend or a single entry would stand alone."""
    if layout.get("showlegend") is False:
        return []
    shown = [t for t in data if t.get("name") and (t.get("showlegend") is True or (
        t.get("showlegend") is not False and t.get("type", "scatter") not in NOT_IN_LEGEND))]
    return [] if not shown or (len(shown) == 1 and layout.get("showlegend") is not True) else shown


# plotly's horizontal legend (plotly.js legend/draw.js): the entries wrap at the plot area's width;
# an entry is its text plus 45 px (symbol 30, gaps); when they do not all fit in one row, every
# entry takes the widest one's width, in a grid.
ENTRY_EXTRA = 45


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
    size = FONT[talk]
    margin = layout.setdefault("margin", {})
    height = layout.get("height") or DEFAULT_HEIGHT[talk]
    width = _laid_out(layout, LEGEND_FONT[talk])
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
    width = _laid_out(layout, LEGEND_FONT[talk])
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
        font = (axis.get("tickfont") or {}).get("size") or (layout.get("font") or {}).get("size") or TICK_FONT[talk]
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

