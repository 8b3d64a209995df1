"""The talk as files: a PDF deck (fpdf2), a PowerPoint deck (python-pptx) and a zip of every
figure as SVG + PDF with its CSV. A ``Slide`` (a lesson step, or one figure of "my deck") becomes
one or more pages: ``paginate`` lays every page out once, in points, and both decks draw that
layout, so the PDF and the PowerPoint file agree page for page.

The layout, built to be shown: the title is the step's takeaway (``Slide.takeaway``, the one
sentence a student can repeat; a slide without one, e.g. "my deck"'s, keeps its title), wrapped in
at most two lines at 20-28 pt; one figure large a page (``Slide.per_page`` side by side: compared
panels, on shared axis ranges, ``share_axes``); the footer (the step's name, the data's settings,
the page number). The step's sentences, numbers and p-values go to the speaker notes, never on a
page before its figures; a slide with no figure shows them. A step of several figures continues
on pages titled "... (1/3)". Each figure is rendered at the size and aspect of its box on the page
(``slide_fit``: ``PX_PER_PT`` layout px per point), so its text, at least ``MIN_TEXT_PX`` px, reads
as at least 14 pt on the page; a faded trace's legend entry is drawn at full opacity. A table
figure (plotly ``go.Table``, e.g. the claims summary) is drawn as a real table from its data,
whatever its columns, cell text wrapped, over as many pages as its rows need, its header repeated
on each.

Figures are rendered once per export by a ``Renderer`` (through ``app.export.files.figure_bytes``,
i.e. kaleido + Chromium) and the bytes are reused across the three files. Pure: no streamlit.
"""
from __future__ import annotations

import dataclasses
import io
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from PIL import Image

from app.export.files import figure_bytes
from app.figures.theme import apply_theme, wrap_words

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
PAGE_MM = (338.67, 190.5)    # 16:9, the size PowerPoint uses (13.333 x 7.5 in)


@dataclass
class SlideFigure:
    name: str                          # file stem of its exports
    fig: go.Figure
    data: pd.DataFrame | None = None   # the plotted numbers (CSV)
    caption: str = ""
    screen_only: bool = False          # drawn on the page only, not in the deck (the claims table in full: docs/claims.md)
    deck_only: bool = False            # in the deck only, not drawn on the page (the claims summary outside talk mode)


@dataclass
class Slide:
    """One screen of the lesson, one collected deck figure, one exported slide: the same thing."""
    title: str
    sentences: list[str] = field(default_factory=list)
    figures: list[SlideFigure] = field(default_factory=list)
    footer: str = ""
    problem: str | None = None         # what to run instead, when the data for a lesson step is missing
    notices: list[str] = field(default_factory=list)  # damaged files a lesson step left out (one line each)
    lead: str = ""                     # what the figure shows, in one line (under the takeaway, in "The numbers")
    takeaway: str = ""                 # the one sentence a student can repeat, on top (and the deck page's title)
    verdict_words: list[str] = field(default_factory=list)  # what verdicts wrote (the phrase test strips these)
    per_page: int = 1                  # figures on one deck page (2: compared panels side by side)
    rests_on: str = ""                 # the figure (name) showing the comparison the takeaway states: the deck's first


def from_step(content: Slide) -> Slide:
    """A lesson step as exported: a step that only names its problem says it as its sentence; the
    figures drawn on the screen only are left out; the figure the takeaway rests on comes first."""
    sentences = list(content.sentences) or ([content.problem] if content.problem else [])
    figures = [f for f in content.figures if not f.screen_only]
    figures.sort(key=lambda f: f.name != content.rests_on)  # the takeaway's own figure first (a stable sort)
    return dataclasses.replace(content, sentences=sentences, figures=figures)


def visible_text(page: Page) -> list[str]:
    """The text a page shows (title, sentences on the page, table cells, footer): what the phrase
    test reads."""
    out = [page.title, *(" ".join(lines) for lines in page.sentences), " ".join(page.footer)]
    if page.table:
        out += [" ".join(c) for c in page.table.header] + [" ".join(c) for row in page.table.rows for c in row]
    return out


# ---- the page's geometry, in points (origin top left) -------------------------------------------
SLIDE_PT = (960, 540)         # the 16:9 page in points (13.333 x 7.5 in)
MARGIN = 30                   # left, right and top
TITLE_TOP, CONTENT_TOP = 20, 74
BOTTOM = 12                   # under the footer
GAP = 12                      # between figures, figures and text, text and footer
TITLE_PT, BODY_PT, FOOTER_PT, TABLE_PT = 32, 20, 14, 14  # readable from the back of a room
BODY_LINE, FOOTER_LINE, TABLE_LINE = BODY_PT * 1.25, FOOTER_PT * 1.2, TABLE_PT * 1.2
PARA_GAP = 4                  # after each sentence
CELL_PAD = 4                  # inside a table cell
WORD_CAP = 110                # a table cell's words up to this wide stay whole while the columns allow
MAX_PER_PAGE = 2              # figures side by side on one page
MAX_ASPECT = 1.75             # a figure's box is at most this much wider than tall
PX_PER_PT = 1.25              # a figure is laid out at 1.25 px per point of the box it lands in
FIG_FONT_PX = {"font": 20, "title": 24, "tick": 18, "legend": 18}  # 16, 19, 14.4, 14.4 pt on the page
MIN_TEXT_PX = 18              # no text in a slide figure smaller: 14.4 pt on the page
CONTENT_W = SLIDE_PT[0] - 2 * MARGIN
HEADER_FILL = "#eeeeee"


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float


@dataclass
class TablePart:
    """The rows of one table that one page shows (lines already wrapped to their column)."""
    columns: list[str]
    widths: list[float]
    header: list[list[str]]
    header_h: float
    rows: list[list[list[str]]]
    heights: list[float]
    fills: list[list[str | None]]
    box: Box


@dataclass
class Page:
    slide: int                                        # index of its Slide
    title: str
    sentences: list[list[str]]                        # each sentence as its wrapped lines
    text_box: Box | None
    figures: list[tuple[int, Box]]                    # (figure index in the Slide, its box)
    table: TablePart | None
    footer: list[str]                                 # wrapped lines, the page number included
    footer_box: Box
    notes: str
    title_lines: list[str] = field(default_factory=list)  # the title wrapped at ``title_size``
    title_size: float = TITLE_PT


# ---- text measurement (DejaVu Sans metrics: PowerPoint's default font is narrower, so it fits too) ----
def _pdf_fonts(pdf) -> tuple[str, bool]:
    """A Unicode TTF (DejaVu Sans) when installed, else Helvetica with text reduced to latin-1."""
    if (FONT_DIR / "DejaVuSans.ttf").is_file():
        pdf.add_font("DejaVu", "", str(FONT_DIR / "DejaVuSans.ttf"))
        bold = FONT_DIR / "DejaVuSans-Bold.ttf"
        pdf.add_font("DejaVu", "B", str(bold if bold.is_file() else FONT_DIR / "DejaVuSans.ttf"))
        return "DejaVu", True
    return "Helvetica", False


_ASCII = {"α": "alpha ", "×": "x", "±": "+/-", "−": "-", "₊": "+", "·": "-", "—": "-", "–": "-", "≥": ">=",
          "≤": "<=", "≈": "~"}


def _text(s: str, unicode: bool) -> str:
    if unicode:
        return s
    for k, v in _ASCII.items():
        s = s.replace(k, v)
    return s.encode("latin-1", "replace").decode("latin-1")


def _new_pdf():
    from fpdf import FPDF  # only when a deck is exported: 0.22 s to import (measured), off every Lesson page run

    pdf = FPDF(orientation="P", unit="pt", format=SLIDE_PT)  # (width, height) as given: landscape
    pdf.set_auto_page_break(False)
    font, uni = _pdf_fonts(pdf)
    return pdf, font, uni


class _Metrics:
    """Wraps text as the PDF draws it (fpdf2's own line breaking, same fonts and sizes)."""

    def __init__(self):
        self.pdf, self.font, self.uni = _new_pdf()
        self.pdf.add_page()
        self._lines: dict[tuple, list[str]] = {}

    def lines(self, text: str, width: float, size: float, bold: bool = False) -> list[str]:
        key = (str(text), round(width, 3), size, bold)
        if key not in self._lines:
            self.pdf.set_font(self.font, "B" if bold else "", size)
            plain = _text(str(text), self.uni)
            self._lines[key] = (self.pdf.multi_cell(width, size, plain, dry_run=True, output="LINES") or [""]) \
                if plain.strip() else [""]
        return self._lines[key]

    def width(self, text: str, size: float, bold: bool = False) -> float:
        self.pdf.set_font(self.font, "B" if bold else "", size)
        return self.pdf.get_string_width(_text(str(text), self.uni)) + 2 * self.pdf.c_margin


def _is_table(fig: go.Figure) -> bool:
    return bool(fig.data) and all(t.type == "table" for t in fig.data)


# ---- tables ------------------------------------------------------------------------------------
def _cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.3g}"
    return re.sub(r"<br\s*/?>", " ", str(v))


def _plain(s) -> str:
    return re.sub(r"<[^>]+>", "", str(s)).strip()


def table_content(item: SlideFigure) -> tuple[list[str], list[list[str]], list[list[str | None]]]:
    """(columns, rows of cell text, cell fills) of a table figure: every column and row of its
    data when it has a DataFrame, else of the table trace; the fills (e.g. tinted verdicts) are
    the trace's, per column of the same name."""
    trace = item.fig.data[0]
    header = [_plain(h) for h in (trace.header.values or [])]
    cells = [list(c) for c in (trace.cells.values or [])]
    if item.data is not None and len(item.data.columns):
        columns = [str(c) for c in item.data.columns]
        rows = [[_cell(v) for v in row] for row in item.data.itertuples(index=False, name=None)]
    else:
        columns, rows = header, [[_cell(v) for v in row] for row in zip(*cells)]
    fill = trace.cells.fill.color if trace.cells.fill else None
    by_name: dict[str, list] = {}
    if isinstance(fill, (list, tuple)) and len(fill) == len(header) and all(isinstance(c, (list, tuple)) for c in fill):
        by_name = {h: list(c) for h, c in zip(header, fill)}
    fills = [[(by_name[c][r] if c in by_name and r < len(by_name[c]) else None) for c in columns]
             for r in range(len(rows))]
    return columns, rows, fills


def _column_widths(m: _Metrics, columns: list[str], rows: list[list[str]], total: float) -> list[float]:
    """Widths summing to ``total`` that keep the table short: every column starts at its header's
    longest word (bold) and its cells' longest word (up to ``WORD_CAP``: a longer one may break),
    then the spare width goes, a slice at a time, to the column whose widening saves the most
    wrapped lines (the table's rows are as tall as their longest cell)."""
    pad = 2 * CELL_PAD
    heads = [max(m.width(w, TABLE_PT, bold=True) for w in (str(name).split() or [""])) for name in columns]
    words = [max([m.width(w, TABLE_PT) for r in rows for w in str(r[k]).split()] or [0]) for k in range(len(columns))]
    for cap in range(WORD_CAP, 40, -10):  # the longest words kept whole that leave some width to share
        floor = [max(h, min(w, cap)) + pad for h, w in zip(heads, words)]
        if sum(floor) <= 0.92 * total:
            break
    if sum(floor) >= total:
        return [w * total / sum(floor) for w in floor]
    widths, cache = list(floor), {}

    def lines(k: int, w: float) -> list[int]:
        if (k, w) not in cache:
            cache[k, w] = [len(m.lines(r[k], w - pad, TABLE_PT)) for r in rows]
        return cache[k, w]

    def height(ws: list[float]) -> tuple[int, int]:  # the rows' lines, then every cell's (a tie-break)
        per = [lines(k, w) for k, w in enumerate(ws)]
        return sum(max(col[r] for col in per) for r in range(len(rows))), sum(map(sum, per))

    slices = 24
    step, left = (total - sum(floor)) / slices, slices
    while left:  # a column may need several slices before a line goes: look 1, 3 and 8 slices ahead
        now, best = height(widths), None
        for k in range(len(columns)):
            for n in (1, 3, 8):
                if n > left:
                    break
                h = height(widths[:k] + [widths[k] + n * step] + widths[k + 1:])
                gain = ((now[0] - h[0]) / n, (now[1] - h[1]) / n, -n)
                if best is None or gain > best[0]:
                    best = (gain, k, n)
        _, k, n = best
        widths[k] += n * step
        left -= n
    return [w * total / sum(widths) for w in widths]


def _table_rows(m: _Metrics, item: SlideFigure):
    columns, rows, fills = table_content(item)
    widths = _column_widths(m, columns, rows, CONTENT_W)
    inner = [w - 2 * CELL_PAD for w in widths]
    header = [m.lines(c, w, TABLE_PT, bold=True) for c, w in zip(columns, inner)]
    header_h = max(len(ln) for ln in header) * TABLE_LINE + 2 * CELL_PAD
    cells = [[m.lines(t, w, TABLE_PT) for t, w in zip(row, inner)] for row in rows]
    heights = [max(len(ln) for ln in row) * TABLE_LINE + 2 * CELL_PAD for row in cells]
    return columns, widths, header, header_h, cells, heights, fills


# ---- the layout ----------------------------------------------------------------------------------
def _figure_boxes(n: int, top: float, height: float) -> list[Box]:
    """``n`` boxes side by side across the content width, centred, each at most ``MAX_ASPECT``
    times wider than tall."""
    w = (CONTENT_W - GAP * (n - 1)) / n
    w = min(w, height * MAX_ASPECT)
    left = MARGIN + (CONTENT_W - n * w - GAP * (n - 1)) / 2
    return [Box(left + k * (w + GAP), top, w, height) for k in range(n)]


def _text_height(sentences: list[list[str]]) -> float:
    return sum(len(s) * BODY_LINE + PARA_GAP for s in sentences)


def _split_text(sentences: list[list[str]], room: float) -> list[list[list[str]]]:
    """Sentences over pages of ``room`` points each (a sentence is never split)."""
    pages, cur = [], []
    for s in sentences:
        if cur and _text_height(cur + [s]) > room:
            pages.append(cur)
            cur = []
        cur.append(s)
    return pages + ([cur] if cur else [])


def _footer_lines(m: _Metrics, footer: str, page: str) -> list[str]:
    text = f"{footer}   ·   {page}" if footer else page
    return m.lines(text, CONTENT_W, FOOTER_PT)


TITLE_SIZES = (28, 24, 22, 20)   # a takeaway title: the largest of these that fits in two lines


def _title_lines(m: _Metrics, title: str) -> tuple[list[str], float]:
    """A page's title wrapped to the content width: the largest ``TITLE_SIZES`` size that holds it
    in two lines (else the smallest, on as many as it needs)."""
    for size in TITLE_SIZES:
        lines = m.lines(title, CONTENT_W, size, bold=True)
        if len(lines) <= 2:
            return lines, size
    return m.lines(title, CONTENT_W, TITLE_SIZES[-1], bold=True), TITLE_SIZES[-1]


def _title_height(lines: list[str], size: float) -> float:
    return len(lines) * size * 1.2


def _slide_pages(m: _Metrics, i: int, s: Slide) -> list[dict]:
    """The pages of one slide, unnumbered: dicts of the Page fields but title, footer, notes.

    A page shows: its title (the step's takeaway), one figure large (``s.per_page`` side by side:
    compared panels), or a table's rows, and the footer. The step's sentences, numbers and
    p-values go to the speaker notes; a slide without figures (a step that names its problem)
    shows them on the page."""
    reserved, title_size = _title_lines(m, (s.takeaway or s.title) + " (9/9)")  # room for a "(k/n)"
    title_lines = m.lines(s.takeaway or s.title, CONTENT_W, title_size, bold=True)
    top = max(CONTENT_TOP, TITLE_TOP + _title_height(reserved, title_size) + GAP)
    placeholder = _footer_lines(m, _footer_text(s), "999/999")  # the widest page number: room reserved
    footer_h = len(placeholder) * FOOTER_LINE
    bottom = SLIDE_PT[1] - BOTTOM - footer_h - GAP
    room = bottom - top
    figs = [j for j, f in enumerate(s.figures) if not _is_table(f.fig)]
    per = max(1, min(s.per_page, MAX_PER_PAGE))
    chunks: list[tuple[str, object]] = [("figures", figs[k:k + per]) for k in range(0, len(figs), per)]
    chunks += [("table", _table_rows(m, f)) for f in s.figures if _is_table(f.fig)]
    pages: list[dict] = []

    def page(**kw) -> dict:
        base = dict(slide=i, sentences=[], text_box=None, figures=[], table=None, footer_h=footer_h,
                    title_lines=title_lines, title_size=title_size)
        pages.append({**base, **kw})
        return pages[-1]

    if not chunks:  # no figure: the sentences on the page, on as many pages as they need
        sentences = [m.lines(t, CONTENT_W, BODY_PT) for t in s.sentences]
        for part in _split_text(sentences, room) if sentences else [[]]:
            page(sentences=part, text_box=Box(MARGIN, top, CONTENT_W, _text_height(part)) if part else None)
    for kind, chunk in chunks:
        if kind == "figures":
            page(figures=list(zip(chunk, _figure_boxes(len(chunk), top, room))))
            continue
        columns, widths, header, header_h, cells, heights, fills = chunk
        r = 0
        while r < len(cells) or r == 0:
            used, start = header_h, r
            while r < len(cells) and (r == start or used + heights[r] <= room):
                used += heights[r]
                r += 1
            page(table=TablePart(columns, widths, header, header_h, cells[start:r], heights[start:r], fills[start:r],
                                 Box(MARGIN, top, CONTENT_W, used)))
            if not cells:
                break
    return pages


def _footer_text(s: Slide) -> str:
    """The footer: the step's name under a takeaway title, then the data's settings."""
    return " · ".join(x for x in ((s.title if s.takeaway else ""), s.footer) if x)


def paginate(slides: list[Slide]) -> list[Page]:
    """Every page of the deck, laid out in points (the PDF and the PowerPoint file draw this)."""
    m = _Metrics()
    raw = [(s, p) for i, s in enumerate(slides) for p in _slide_pages(m, i, s)]
    per_slide = {i: sum(1 for _, p in raw if p["slide"] == i) for i in range(len(slides))}
    seen: dict[int, int] = {}
    out = []
    for n, (s, p) in enumerate(raw, start=1):
        k = seen[p["slide"]] = seen.get(p["slide"], 0) + 1
        head = s.takeaway or s.title
        title = head if per_slide[p["slide"]] == 1 else f"{head} ({k}/{per_slide[p['slide']]})"
        if title != head:
            p["title_lines"] = m.lines(title, CONTENT_W, p["title_size"], bold=True)
        footer = _footer_lines(m, _footer_text(s), f"{n}/{len(raw)}")
        footer_h = p.pop("footer_h")
        box = Box(MARGIN, SLIDE_PT[1] - BOTTOM - footer_h, CONTENT_W, footer_h)
        captions = [f.caption for f in s.figures if f.caption]
        notes = "\n".join([*([s.title] if s.takeaway else []), *([s.lead] if s.lead else []), *s.sentences, *captions,
                            s.footer]).strip()
        out.append(Page(title=title, footer=footer, footer_box=box, notes=notes, **p))
    return out


# ---- figures laid out for their box ------------------------------------------------------------
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


def _wrap(text: str, per_line: int) -> list[str]:
    return wrap_words(text, per_line)


def _fit_axis_titles(fig: go.Figure, w: int, h: int) -> None:
    """An axis title longer than its axis is broken onto lines (at spaces) and the margin widened
    to hold them: a long y title otherwise runs into the legend above and out of the figure below."""
    lay = fig.layout
    mt, mb, ml, mr = (lay.margin.t or 0), (lay.margin.b or 0), (lay.margin.l or 0), (lay.margin.r or 0)
    for name in [k for k in lay if re.fullmatch(r"[xy]axis\d*", k)]:
        axis = lay[name]
        text = axis.title.text if axis.title else None
        if not text or "<br>" in text or axis.visible is False:
            continue
        size = axis.title.font.size or lay.font.size or 20
        lo, hi = axis.domain or (0, 1)
        span = (hi - lo) * ((h - mt - mb) if name[0] == "y" else (w - ml - mr)) - 10
        per_line = max(8, int(span / (0.6 * size)))
        if len(_strip(text)) <= per_line:
            continue
        lines = _wrap(text, per_line)
        axis.title.text = "<br>".join(lines)
        extra = int((len(lines) - 1) * size * 1.3)
        if name[0] == "y":
            lay.margin.l = ml = ml + extra
        else:
            lay.margin.b = mb = mb + extra


def _side_legend(fig: go.Figure, w: int, h: int) -> None:
    """A legend of many entries on top leaves the plot area little height (an embedding's ten
    classes): it goes to the right, one entry a row, when the figure is wide enough."""
    names = [str(t.name) for t in fig.data if t.name and t.showlegend is not False]
    mt, mb = (fig.layout.margin.t or 0), (fig.layout.margin.b or 0)
    if len(names) < 5 or h - mt - mb > 0.55 * h:
        return
    size = fig.layout.legend.font.size or MIN_TEXT_PX
    legend_w = max(0.62 * size * len(n) for n in names + [_strip(fig.layout.legend.title.text or "")]) + 2.6 * size + 20
    if legend_w > 0.4 * w:
        return
    title = fig.layout.title.text or ""
    lines = title.count("<br>") + 1 if title else 0
    tsize = fig.layout.title.font.size or FIG_FONT_PX["title"]
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


def slide_fit(fig: go.Figure, width_pt: float, height_pt: float) -> go.Figure:
    """Lay ``fig`` out at the size of its box on the page (``PX_PER_PT`` px a point, so the image
    drawn in the box has the box's aspect), in talk mode's look, every text at least
    ``MIN_TEXT_PX`` px (a 18 px tick label reads as 14.4 pt on the page; rendered at scale 2 for
    sharpness); a many-entry legend moves to the side, long axis titles wrap."""
    w, h = round(width_pt * PX_PER_PT), round(height_pt * PX_PER_PT)
    f = FIG_FONT_PX
    if fig.layout.title.text:  # wrapped for the page's column: wrapped again for this width
        fig.layout.title.text = re.sub(r"<br\s*/?>", " ", fig.layout.title.text)
    fig.update_layout(width=w, height=h, font_size=f["font"], title_font_size=f["title"], legend_font_size=f["legend"])
    apply_theme(fig, talk=True)  # talk mode's big fonts, thick lines, white background; wraps the title
    fig.update_xaxes(tickfont_size=f["tick"], title_font_size=f["font"])
    fig.update_yaxes(tickfont_size=f["tick"], title_font_size=f["font"])
    layout = fig.layout.to_plotly_json()
    if _raise_fonts(layout, MIN_TEXT_PX):
        fig.layout = layout
    traces = [t.to_plotly_json() for t in fig.data]
    raised = [_raise_fonts(t, MIN_TEXT_PX) for t in traces]  # every trace, not the first only
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
    _fit_axis_titles(fig, w, h)
    fig.update_layout(width=w, height=h)
    return fig


def share_axes(fig: go.Figure, panels: list[go.Figure]) -> None:
    """Compared panels (a slide of ``per_page`` > 1) on one scale: every panel's x and y ranges
    the union of the panels' ranges (fixed, the plot area shrinking instead of the range growing
    where an axis keeps its aspect), and one top margin, so their titles take the same room."""
    for axis in ("xaxis", "yaxis"):
        ranges = [p.layout[axis].range for p in panels if p.layout[axis].range]
        if ranges:
            lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
            fig.layout[axis].update(range=[lo, hi], autorange=False, constrain="domain")
    tops = [p.layout.margin.t for p in panels if p.layout.margin.t is not None]
    if tops:
        fig.update_layout(margin_t=max(tops))


def _still(src: go.Figure) -> go.Figure:
    fig = go.Figure(data=src.data, layout=src.layout)  # a still: no animation frames,
    fig.layout.updatemenus, fig.layout.sliders = None, None  # no play button or round slider
    if src.frames:  # the axes were fixed to hold every frame: fit the one shown
        fig.update_xaxes(autorange=True, range=None)
        fig.update_yaxes(autorange=True, range=None)
    return fig


class Renderer:
    """Figure bytes by (slide, figure, format), each rendered at most once, at the size of its
    box in ``pages`` (the deck's layout, made on first use)."""

    def __init__(self, slides: list[Slide], render=figure_bytes):
        self.slides, self._render, self._cache, self._pages = slides, render, {}, None

    @property
    def pages(self) -> list[Page]:
        if self._pages is None:
            self._pages = paginate(self.slides)
        return self._pages

    def box(self, i: int, j: int) -> Box | None:
        return next((b for p in self.pages if p.slide == i for k, b in p.figures if k == j), None)

    def get(self, i: int, j: int, fmt: str) -> bytes:
        key = (i, j, fmt)
        if key not in self._cache:
            fig = _still(self.slides[i].figures[j].fig)
            if fmt != "html":
                if _is_table(fig):  # the zip's copy of a table: every row, the page's width
                    fig.update_layout(width=int(CONTENT_W * PX_PER_PT))
                else:
                    box = self.box(i, j) or Box(0, 0, CONTENT_W / 2, SLIDE_PT[1] - CONTENT_TOP - 60)
                    slide_fit(fig, box.w, box.h)
                    if self.slides[i].per_page > 1:
                        share_axes(fig, self._fitted_siblings(i))
            self._cache[key] = self._render(fig, fmt)
        return self._cache[key]

    def _fitted_siblings(self, i: int) -> list[go.Figure]:
        """The slide's figures laid out for their boxes (not rendered): the panels compared."""
        out = []
        for j, f in enumerate(self.slides[i].figures):
            box = self.box(i, j)
            if box is not None and not _is_table(f.fig):
                out.append(slide_fit(_still(f.fig), box.w, box.h))
        return out

    @property
    def renders(self) -> int:
        return len(self._cache)


def _stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "figure"


def _fit(w_px: int, h_px: int, box_w: float, box_h: float) -> tuple[float, float]:
    scale = min(box_w / w_px, box_h / h_px)
    return w_px * scale, h_px * scale


def _img_size(png: bytes) -> tuple[int, int]:

    with Image.open(io.BytesIO(png)) as im:
        return im.size


def _rgb(color) -> tuple[int, int, int] | None:
    if not color:
        return None
    c = str(color).strip().lower()
    if c == "white":
        return 255, 255, 255
    if re.fullmatch(r"#[0-9a-f]{6}", c):
        return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)
    if re.fullmatch(r"#[0-9a-f]{3}", c):
        return tuple(int(ch * 2, 16) for ch in c[1:])
    m = re.fullmatch(r"rgba?\((\d+),\s*(\d+),\s*(\d+).*\)", c)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _place(png: bytes, box: Box) -> tuple[float, float, float, float]:
    """x, y, w, h of the image in its box (its aspect kept, centred)."""
    w, h = _fit(*_img_size(png), box.w, box.h)
    return box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h


# ---- PDF -------------------------------------------------------------------------------------
def pdf_deck(slides: list[Slide], renderer: Renderer) -> bytes:
    """The pages of ``renderer.pages``: the takeaway as title, a figure (or a table), the footer (the
    numbers are the PowerPoint file's speaker notes and the zip's slides.md)."""
    pdf, font, uni = _new_pdf()
    for p in renderer.pages:
        pdf.add_page()
        pdf.set_font(font, "B", p.title_size)
        for k, line in enumerate(p.title_lines or [p.title]):
            pdf.set_xy(MARGIN, TITLE_TOP + k * p.title_size * 1.2)
            pdf.cell(CONTENT_W, p.title_size * 1.2, _text(line, uni))
        for j, box in p.figures:
            png = renderer.get(p.slide, j, "png")
            x, y, w, h = _place(png, box)
            pdf.image(io.BytesIO(png), x=x, y=y, w=w, h=h)
        if p.table:
            _pdf_table(pdf, font, uni, p.table)
        if p.text_box:
            pdf.set_font(font, "", BODY_PT)
            y = p.text_box.y
            for lines in p.sentences:
                for line in lines:
                    pdf.set_xy(p.text_box.x, y)
                    pdf.cell(p.text_box.w, BODY_LINE, line)
                    y += BODY_LINE
                y += PARA_GAP
        pdf.set_font(font, "", FOOTER_PT)
        pdf.set_text_color(90, 90, 90)
        for k, line in enumerate(p.footer):
            pdf.set_xy(MARGIN, p.footer_box.y + k * FOOTER_LINE)
            pdf.cell(CONTENT_W, FOOTER_LINE, line)
        pdf.set_text_color(0, 0, 0)
    return bytes(pdf.output())


def _pdf_table(pdf, font: str, uni: bool, t: TablePart) -> None:
    pdf.set_draw_color(170, 170, 170)
    pdf.set_line_width(0.6)
    rows = [(t.header, t.header_h, [HEADER_FILL] * len(t.columns), True)]
    rows += [(cells, h, fill, False) for cells, h, fill in zip(t.rows, t.heights, t.fills)]
    y = t.box.y
    for cells, h, fills, bold in rows:
        x = t.box.x
        for lines, w, fill in zip(cells, t.widths, fills):
            rgb = _rgb(fill) or (255, 255, 255)
            pdf.set_fill_color(*rgb)
            pdf.rect(x, y, w, h, style="DF")
            pdf.set_font(font, "B" if bold else "", TABLE_PT)
            for k, line in enumerate(lines):
                pdf.set_xy(x + CELL_PAD, y + CELL_PAD + k * TABLE_LINE)
                pdf.cell(w - 2 * CELL_PAD, TABLE_LINE, line)
            x += w
        y += h


# ---- PowerPoint --------------------------------------------------------------------------------
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


def pptx_deck(slides: list[Slide], renderer: Renderer) -> bytes:
    """The pages of ``renderer.pages`` as 16:9 slides: the takeaway in the title placeholder,
    figures as 2x PNGs, a table as a PowerPoint table, the footer as a wrapped text box; the step's
    sentences, numbers and p-values as speaker notes."""
    # only when a deck is exported as PPTX: python-pptx is 0.17 s to import (measured)
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    layout = prs.slide_layouts[5]  # "Title Only"
    for p in renderer.pages:
        slide = prs.slides.add_slide(layout)
        title = slide.shapes.title
        title.text = p.title
        lines = max(1, len(p.title_lines))
        title.left, title.top, title.width = Pt(MARGIN), Pt(TITLE_TOP), Pt(CONTENT_W)
        title.height = Pt(_title_height([""] * lines, p.title_size) + 4)
        _frame(title.text_frame)
        from pptx.enum.text import PP_ALIGN  # python-pptx: only when a deck is exported (see pptx_deck)

        para = title.text_frame.paragraphs[0]
        para.alignment = PP_ALIGN.LEFT
        para.runs[0].font.size, para.runs[0].font.bold = Pt(p.title_size), True
        for j, box in p.figures:
            png = renderer.get(p.slide, j, "png")
            x, y, w, h = _place(png, box)
            slide.shapes.add_picture(io.BytesIO(png), Pt(x), Pt(y), Pt(w), Pt(h))
        if p.table:
            _pptx_table(slide, p.table)
        if p.text_box:
            b = p.text_box
            body = slide.shapes.add_textbox(Pt(b.x), Pt(b.y), Pt(b.w), Pt(b.h)).text_frame
            _frame(body)
            for k, lines in enumerate(p.sentences):
                para = body.paragraphs[0] if k == 0 else body.add_paragraph()
                para.text = " ".join(lines)
                para.font.size = Pt(BODY_PT)
                para.line_spacing, para.space_after = Pt(BODY_LINE), Pt(PARA_GAP)
        b = p.footer_box
        foot = slide.shapes.add_textbox(Pt(b.x), Pt(b.y), Pt(b.w), Pt(b.h)).text_frame
        _frame(foot)
        foot.text = " ".join(p.footer)
        foot.paragraphs[0].font.size = Pt(FOOTER_PT)
        foot.paragraphs[0].line_spacing = Pt(FOOTER_LINE)
        slide.notes_slide.notes_text_frame.text = p.notes  # speaker notes
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def _frame(tf) -> None:
    """A text frame that wraps at its width and keeps the PDF's insets."""
    # python-pptx: only when a deck is exported (see pptx_deck)
    from pptx.enum.text import MSO_AUTO_SIZE
    from pptx.util import Pt

    tf.word_wrap = True
    tf.auto_size = MSO_AUTO_SIZE.NONE
    tf.margin_left = tf.margin_right = Pt(2.83)  # fpdf2's cell margin
    tf.margin_top = tf.margin_bottom = 0


def _pptx_table(slide, t: TablePart) -> None:
    # python-pptx: only when a deck is exported (see pptx_deck)
    from pptx.dml.color import RGBColor
    from pptx.util import Pt

    n = len(t.rows) + 1
    shape = slide.shapes.add_table(n, len(t.columns), Pt(t.box.x), Pt(t.box.y), Pt(t.box.w), Pt(t.box.h))
    table = shape.table
    table.first_row, table.horz_banding = True, False
    for c, w in enumerate(t.widths):
        table.columns[c].width = Pt(w)
    rows = [(t.header, t.header_h, [HEADER_FILL] * len(t.columns), True)]
    rows += [(cells, h, fill, False) for cells, h, fill in zip(t.rows, t.heights, t.fills)]
    for r, (cells, h, fills, bold) in enumerate(rows):
        table.rows[r].height = Pt(h)
        for c, (lines, fill) in enumerate(zip(cells, fills)):
            cell = table.cell(r, c)
            cell.margin_left = cell.margin_right = Pt(CELL_PAD + 2.83)
            cell.margin_top = cell.margin_bottom = Pt(CELL_PAD)
            cell.text = " ".join(lines)
            para = cell.text_frame.paragraphs[0]
            para.font.size, para.font.bold = Pt(TABLE_PT), bold
            para.font.color.rgb = RGBColor(0, 0, 0)
            para.line_spacing = Pt(TABLE_LINE)
            cell.fill.solid()
            cell.fill.fore_color.rgb = RGBColor(*(_rgb(fill) or (255, 255, 255)))


# ---- figures zip --------------------------------------------------------------------------------
def figures_zip(slides: list[Slide], renderer: Renderer) -> bytes:
    """``NN_<slide>/<figure>.svg|.pdf|.csv`` for every figure (laid out as on its page), plus the
    deck's text as slides.md."""
    buf, notes = io.BytesIO(), []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, s in enumerate(slides):
            folder = f"{i + 1:02d}_{_stem(s.title)}"
            notes += [f"## {s.title}", *([f"**{s.takeaway}**"] if s.takeaway else []), *s.sentences, f"_{s.footer}_", ""]
            for j, f in enumerate(s.figures):
                for fmt in ("svg", "pdf"):
                    zf.writestr(f"{folder}/{_stem(f.name)}.{fmt}", renderer.get(i, j, fmt))
                if f.data is not None:
                    zf.writestr(f"{folder}/{_stem(f.name)}.csv", f.data.to_csv(index=False))
        zf.writestr("slides.md", "\n".join(notes))
    return buf.getvalue()


EXPORTS = {"pdf": (pdf_deck, "application/pdf"), "pptx": (pptx_deck, PPTX_MIME),
           "zip": (figures_zip, "application/zip")}


def export_all(slides: list[Slide], formats=("pdf", "pptx", "zip"), render=figure_bytes) -> dict[str, bytes]:
    """Every requested file from one Renderer (each figure rendered once per format it needs)."""
    renderer = Renderer(slides, render)
    return {fmt: EXPORTS[fmt][0](slides, renderer) for fmt in formats}
