"""Fitting a figure: the one pipeline every figure goes through, on the screen, in talk and
presenter mode, re-fitted for a narrower column, on a deck page and in an exported file.

Call ``fit``. It gives a figure the look of its mode (``app.figures.palette``: the everyday
dashboard look, or talk mode's big fonts, thick lines and white background) and fits its text to
the width it is laid out for: the title and legend names broken onto lines, the legend placed
under the title, the plot area kept at least ``MIN_PLOT_HEIGHT`` high, long axis titles broken,
"(not from 0)" on a y axis plotly zooms in on, uneven tick labels thinned
(``app.figures.textfit`` holds these steps). Four uses, one function:

- ``fit(fig, talk)``: a figure a builder made, fitted for the column its mode assumes
  (``ASSUMED_WIDTH``, talk mode ``TALK_WIDTH``, or the layout's ``width`` / ``FIT_WIDTH``).
- ``fit((data, layout), talk, overrides=...)``: the same look on trace and layout dicts, built into
  the figure at once without plotly's per-property validation (1-2 ms against 10-40 ms a figure:
  the builders that run on every slider move). ``overrides`` are merged into the layout after the
  look (settings the look must not change).
- ``fit(go.Figure(fig), talk, width=w, height=h)``: a fitted figure laid out again for ``w`` px
  (a row of three on a 1280 px screen, the take-home file): its text unbroken first, then broken
  and given room for that width; ``height`` starts again from it.
- ``fit(fig, True, width=w, height=h, page=True)``: a figure drawn in a ``w`` x ``h`` px box of a
  deck page (``PX_PER_PT`` px a point): talk mode, every text at least ``PAGE_MIN_TEXT_PX`` px,
  a many-entry legend moved to the side, a faded trace's legend entry drawn at full opacity, and
  the axis titles fitted once, to the margins the legend leaves.

The figure passed is changed in place and returned (pass a copy, ``go.Figure(fig)``, to keep one
that is shown elsewhere). Pages pass ``theme=None`` to ``st.plotly_chart`` so the screen shows
exactly this look (the same as the downloaded files). The layout is set in one assignment of a
merged dict: plotly's ``update_*`` calls walk and validate the figure once per call (about 35 ms a
figure for the dozen calls the look needs, against about 10 ms so).
"""
from __future__ import annotations

import re

import plotly.graph_objects as go

from app.figures.palette import (BOTTOM, FONT, GRID, LEGEND_FONT, PAGE_FONT_PX, PAGE_MIN_TEXT_PX, TEXT, TITLE_FONT,
                                 TICK_FONT, TOP, _TEMPLATE_JSON, talk_width)
from app.figures.textfit import (FIT_WIDTH, NOT_FROM_ZERO, _axis_keys, _fit_axis_titles, _mark_zoomed_axes, _merge,
                                 _names, _place_title_and_legend, _thin_uneven_ticks)

# what the tests of the pipeline read of its steps (tests/app/figures/test_theme_layout.py)
from app.figures.palette import (DEFAULT_HEIGHT, LEGEND_ROW, MIN_PLOT_HEIGHT, TALK_CSS, TALK_WIDTH, _TEMPLATES,  # noqa: F401
                                 page_css)
from app.figures.textfit import _legend_rows, _panel_titles, _wrap_legend_names, _wrap_title  # noqa: F401
# what builders use beside ``fit``: a layout key and two text helpers
from app.figures.textfit import percent_format, wrap_words  # noqa: F401


def fit(fig, talk: bool = False, *, width: int | None = None, height: int | None = None, page: bool = False,
        overrides: dict | None = None) -> go.Figure:
    """The figure with its mode's look and its text fitted: see the module's docstring for the four
    uses. ``fig``: a ``go.Figure`` (changed in place) or a ``(data, layout)`` pair of dicts."""
    if isinstance(fig, tuple):
        if width or height or page:
            raise TypeError("fit((data, layout), ...) fits for the mode's width: width, height and page take a figure")
        data, layout = fig
        layout = _merge(theme_layout(data, layout, talk), overrides or {})
        if talk:
            for trace in data:
                _thicken_trace(trace)
        return go.Figure(data=data, layout=layout, _validate=False)
    if overrides or (height and not width):
        raise TypeError("fit(fig, ...): overrides take the (data, layout) form, and height comes with a width")
    if page:
        if not (width and height):
            raise ValueError("fit(..., page=True) needs the box's width and height in px")
        talk = True
    layout = fig.layout.to_plotly_json()
    names = _names(fig)
    if width:
        _unbreak(layout, names)
        if page:
            layout.update(width=width, height=height)
            _page_fonts(layout)
        else:
            layout[FIT_WIDTH] = width
            if height:
                layout["height"] = height
    fig.layout = theme_layout(names, layout, talk, titles=not page)
    _rename(fig, names)
    if talk:
        _thicken(fig)
    if page:
        _fit_page(fig, width or fig.layout.width, height or fig.layout.height)
    return fig


def _unbreak(layout: dict, names: list[dict]) -> None:
    """The title, axis titles and legend names whole again (a fitting for another width broke
    them), and the margins left for the look to set anew."""
    def whole(text):
        return text.replace("<br>", " ") if isinstance(text, str) else text

    if isinstance(layout.get("title"), dict):
        layout["title"]["text"] = whole(layout["title"].get("text"))
    for key in [k for k in layout if k[1:5] == "axis" and isinstance(layout[k], dict)]:
        title = layout[key].get("title")
        if isinstance(title, dict) and title.get("text"):
            title["text"] = whole(title["text"]).replace(" (not from 0)", NOT_FROM_ZERO)
    layout.pop("margin", None)
    for d in names:
        d["name"] = whole(d.get("name"))


def theme_layout(data: list[dict], layout: dict, talk: bool = False, *, titles: bool = True) -> dict:
    """The look of ``fit`` on plain dicts: ``layout`` (a figure's layout as plotly's JSON,
    nested keys, no ``title_text`` shorthands) is changed in place and returned, with the template
    (as JSON) set; ``data`` (trace dicts) only sizes the legend. ``titles``: fit the axis titles
    (``fit``'s page use fits them once, after it has placed the legend)."""
    if not talk:
        changes = [dict(font=dict(size=FONT[False], color=TEXT), title=dict(font=dict(color=TEXT)),
                        margin=dict(l=64, r=20, b=BOTTOM[False])),
                   _place_title_and_legend(data, layout, False, LEGEND_FONT[False], TITLE_FONT[False], TOP[False])]
        axis = dict(tickfont=dict(size=TICK_FONT[False], color=TEXT), title=dict(font=dict(size=FONT[False], color=TEXT)),
                    gridcolor=GRID, linecolor="#9AA0A6", zerolinecolor=GRID)
    else:
        changes = [dict(font=dict(size=FONT[True], color="#000000"), margin=dict(l=80, r=30, b=BOTTOM[True])),
                   _place_title_and_legend(data, layout, True, LEGEND_FONT[True], TITLE_FONT[True], TOP[True])]
        axis = dict(linewidth=2, ticks="outside", tickwidth=2)
    layout["template"] = _TEMPLATE_JSON[talk]
    _mark_zoomed_axes(data, layout)
    for change in changes:
        _merge(layout, change)
    for letter in "xy":
        for key in _axis_keys(layout, letter):
            layout[key] = _merge(layout.get(key) or {}, axis)
    if titles:
        _fit_axis_titles(layout, talk)
    _thin_uneven_ticks(layout, talk)
    layout.pop(FIT_WIDTH, None)  # not a plotly property
    return layout


def _rename(fig: go.Figure, names: list[dict]) -> None:
    """Give ``fig``'s traces the legend names ``theme_layout`` broke to the figure's width."""
    for trace, d in zip(fig.data, names):
        if d.get("name") is not None and d["name"] != trace.name:
            trace.name = d["name"]



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


# ---- a figure in its box on a deck page --------------------------------------------------------------
def _page_fonts(layout: dict) -> None:
    """The page's fonts, set before the look (which keeps them)."""
    f = PAGE_FONT_PX
    _merge(layout, dict(font=dict(size=f["font"]), title=dict(font=dict(size=f["title"])),
                        legend=dict(font=dict(size=f["legend"]))))


def _fit_page(fig: go.Figure, w: int, h: int) -> None:
    """After the look: tick labels and axis titles at the page's sizes, no text under
    ``PAGE_MIN_TEXT_PX``, an embedding's bare axes without room for ticks, faded legend entries
    opaque, a many-entry legend at the side; then the axis titles fitted to the margins left, and
    the figure exactly ``w`` x ``h`` px."""
    f = PAGE_FONT_PX
    fig.update_xaxes(tickfont_size=f["tick"], title_font_size=f["font"])
    fig.update_yaxes(tickfont_size=f["tick"], title_font_size=f["font"])
    layout = fig.layout.to_plotly_json()
    if _raise_fonts(layout, PAGE_MIN_TEXT_PX):
        fig.layout = layout
    traces = [t.to_plotly_json() for t in fig.data]
    raised = [_raise_fonts(t, PAGE_MIN_TEXT_PX) for t in traces]  # every trace, not the first only
    if any(raised):
        fig.data = []
        fig.add_traces(traces)
    bare = [a for a in ("xaxis", "yaxis") if fig.layout[a].showticklabels is False and not fig.layout[a].title.text]
    if len(bare) == 2:  # an embedding: no ticks to hold room for
        fig.update_layout(margin=dict(l=20, b=20))
        fig.update_xaxes(ticks="", showline=False)
        fig.update_yaxes(ticks="", showline=False)
    _opaque_legend(fig)
    _side_legend(fig, w, h)
    layout = fig.layout.to_plotly_json()
    layout.update(width=w, height=h)
    _fit_axis_titles(layout, True)
    fig.layout = layout


def _strip(s: str) -> str:
    return re.sub(r"<[^>]+>", "", s or "")


def _raise_fonts(obj, px: float, in_font: bool = False) -> bool:
    """Every ``size`` inside a font dict of ``obj`` (a figure's JSON) raised to ``px``."""
    changed = False
    if isinstance(obj, dict):
        for k, v in obj.items():
            if in_font and k == "size" and isinstance(v, (int, float)) and v < px:
                obj[k], changed = px, True
            elif isinstance(v, (dict, list)):
                changed |= _raise_fonts(v, px, "font" in k)
    elif isinstance(obj, list):
        for v in obj:
            changed |= _raise_fonts(v, px, in_font)
    return changed


def _side_legend(fig: go.Figure, w: int, h: int) -> None:
    """A legend of many entries on top leaves the plot area little height (an embedding's ten
    classes): it goes to the right, one entry a row, when the figure is wide enough."""
    names = [str(t.name) for t in fig.data if t.name and t.showlegend is not False]
    mt, mb = (fig.layout.margin.t or 0), (fig.layout.margin.b or 0)
    if len(names) < 5 or h - mt - mb > 0.55 * h:
        return
    size = fig.layout.legend.font.size or PAGE_MIN_TEXT_PX
    legend_w = max(0.62 * size * len(n) for n in names + [_strip(fig.layout.legend.title.text or "")]) + 2.6 * size + 20
    if legend_w > 0.4 * w:
        return
    title = fig.layout.title.text or ""
    lines = title.count("<br>") + 1 if title else 0
    tsize = fig.layout.title.font.size or PAGE_FONT_PX["title"]
    fig.update_layout(legend=dict(orientation="v", xref="paper", x=1.02, xanchor="left", yref="paper", y=1.0,
                                  yanchor="top", title=dict(side="top")),
                      margin=dict(t=int(lines * tsize * 1.3 + 24) if lines else 30, r=int(legend_w) + 10))


def _faded(t) -> bool:
    op = getattr(t, "opacity", None)
    mop = getattr(getattr(t, "marker", None), "opacity", None) if t.type in ("scatter", "scattergl") else None
    return (op is not None and op < 1) or (isinstance(mop, (int, float)) and mop < 1)


def _opaque_legend(fig: go.Figure) -> None:
    """A legend entry of a faded trace (an embedding's classes a client does not hold) reads faded
    on a projector: the trace leaves the legend and a twin with no points and full opacity, of the
    same name, colour and legend group, takes its place."""
    twins = []
    for t in fig.data:
        if not _faded(t) or t.showlegend is False or not t.name or t.type not in ("scatter", "scattergl"):
            continue
        group = t.legendgroup or f"fade:{t.name}"
        t.update(legendgroup=group, showlegend=False)
        twins.append(go.Scatter(x=[None], y=[None], mode=t.mode or "markers", name=t.name, legendgroup=group,
                                showlegend=True, marker=dict(color=t.marker.color, symbol=t.marker.symbol,
                                                             size=t.marker.size, opacity=1),
                                line=dict(color=t.line.color, dash=t.line.dash), opacity=1, hoverinfo="skip"))
    for tw in twins:
        fig.add_trace(tw)
