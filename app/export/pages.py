"""The deck's pages, laid out once, in points: ``paginate`` turns the ``Slide``s into ``Page``s
(title, figure boxes or a table's rows, sentences, footer, speaker notes) that the PDF
(``app.export.pdf_deck``) and the PowerPoint file (``app.export.pptx_deck``) both draw, so they
agree page for page. Text is measured as the PDF draws it (fpdf2, DejaVu Sans). A table figure
(plotly ``go.Table``) is laid out as a real table from its data, cell text wrapped, over as many
pages as its rows need, its header repeated on each.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import plotly.graph_objects as go

from app.export.content import Slide, SlideFigure, untagged

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
PAGE_MM = (338.67, 190.5)    # 16:9, the size PowerPoint uses (13.333 x 7.5 in)


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

@dataclass
class _Frame:
    """What every page of one slide shares: its title, the room under it, the footer's height."""
    slide: int
    title_lines: list[str]
    title_size: float
    top: float
    room: float
    footer_h: float

    def page(self, **kw) -> dict:
        """A page's fields (a dict of the Page fields but title, footer, notes)."""
        return dict(slide=self.slide, sentences=[], text_box=None, figures=[], table=None, footer_h=self.footer_h,
                    title_lines=self.title_lines, title_size=self.title_size) | kw


def _frame(m: _Metrics, i: int, s: Slide) -> _Frame:
    """The title (room reserved for a "(k/n)" and for the widest page number in the footer) and
    the room left between them."""
    reserved, title_size = _title_lines(m, (s.takeaway or s.title) + " (9/9)")
    title_lines = m.lines(s.takeaway or s.title, CONTENT_W, title_size, bold=True)
    top = max(CONTENT_TOP, TITLE_TOP + _title_height(reserved, title_size) + GAP)
    footer_h = len(_footer_lines(m, _footer_text(s), "999/999")) * FOOTER_LINE
    bottom = SLIDE_PT[1] - BOTTOM - footer_h - GAP
    return _Frame(i, title_lines, title_size, top, bottom - top, footer_h)


def _text_pages(m: _Metrics, s: Slide, f: _Frame) -> list[dict]:
    """A slide without figures: its sentences on the page, on as many pages as they need."""
    sentences = [m.lines(t, CONTENT_W, BODY_PT) for t in s.sentences]
    return [f.page(sentences=part, text_box=Box(MARGIN, f.top, CONTENT_W, _text_height(part)) if part else None)
            for part in (_split_text(sentences, f.room) if sentences else [[]])]


def _figure_pages(s: Slide, f: _Frame) -> list[dict]:
    """The slide's figures (not tables), ``s.per_page`` side by side a page."""
    figs = [j for j, fig in enumerate(s.figures) if not _is_table(fig.fig)]
    per = max(1, min(s.per_page, MAX_PER_PAGE))
    return [f.page(figures=list(zip(chunk, _figure_boxes(len(chunk), f.top, f.room))))
            for chunk in (figs[k:k + per] for k in range(0, len(figs), per))]


def _table_pages(m: _Metrics, item: SlideFigure, f: _Frame) -> list[dict]:
    """A table's rows over as many pages as they need (its header on each; a row never split)."""
    columns, widths, header, header_h, cells, heights, fills = _table_rows(m, item)
    pages, r = [], 0
    while r < len(cells) or r == 0:
        used, start = header_h, r
        while r < len(cells) and (r == start or used + heights[r] <= f.room):
            used += heights[r]
            r += 1
        pages.append(f.page(table=TablePart(columns, widths, header, header_h, cells[start:r], heights[start:r],
                                            fills[start:r], Box(MARGIN, f.top, CONTENT_W, used))))
        if not cells:
            break
    return pages


def _slide_pages(m: _Metrics, i: int, s: Slide) -> list[dict]:
    """The pages of one slide, unnumbered: dicts of the Page fields but title, footer, notes.

    A page shows: its title (the step's takeaway), one figure large (``s.per_page`` side by side:
    compared panels), or a table's rows, and the footer. The step's sentences, numbers and
    p-values go to the speaker notes; a slide without figures (a step that names its problem)
    shows them on the page."""
    f = _frame(m, i, s)
    if not s.figures:
        return _text_pages(m, s, f)
    return _figure_pages(s, f) + [p for item in s.figures if _is_table(item.fig) for p in _table_pages(m, item, f)]


def _footer_text(s: Slide) -> str:
    """The footer: the step's name under a takeaway title, the data's settings, then what the
    registered confirmation on fresh seeds says of the step's claims (its numbers: the notes)."""
    # each row and its verdict, without the claim's tag (the footer's room is the figure's)
    confirmed = ("Fresh seeds: " + "; ".join(untagged(s.confirmed))) if s.confirmed else ""
    return " · ".join(x for x in ((s.title if s.takeaway else ""), s.footer, confirmed) if x)


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
        notes = "\n".join([*([s.title] if s.takeaway else []), *([s.lead] if s.lead else []), *s.sentences, *s.confirmed_numbers, *captions,
                            s.footer]).strip()
        out.append(Page(title=title, footer=footer, footer_box=box, notes=notes, **p))
    return out



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

