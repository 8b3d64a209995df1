"""The talk as files: a PDF deck (fpdf2), a PowerPoint deck (python-pptx) and a zip of every
figure as SVG + PDF with its CSV. One slide per ``Slide``: title, figure(s), sentences, footer.

Figures are rendered once per export by a ``Renderer`` (through ``app.export.files.figure_bytes``,
i.e. kaleido + Chromium) and the bytes are reused across the three files. Pure: no streamlit.
"""
from __future__ import annotations

import dataclasses
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from app.export.files import figure_bytes

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
PAGE_MM = (338.67, 190.5)    # 16:9, the size PowerPoint uses (13.333 x 7.5 in)
FIG_SIZE = (1000, 620)       # px each figure is rendered at (PNG at scale 2)
BOX_ASPECT = 2.6             # width / height of a slide's figure area


@dataclass
class SlideFigure:
    name: str                          # file stem of its exports
    fig: go.Figure
    data: pd.DataFrame | None = None   # the plotted numbers (CSV)
    caption: str = ""


@dataclass
class Slide:
    """One screen of the lesson, one collected deck figure, one exported slide: the same thing."""
    title: str
    sentences: list[str] = field(default_factory=list)
    figures: list[SlideFigure] = field(default_factory=list)
    footer: str = ""
    problem: str | None = None         # what to run instead, when the data for a lesson step is missing
    notices: list[str] = field(default_factory=list)  # damaged files a lesson step left out (one line each)


def from_step(content: Slide) -> Slide:
    """A lesson step as exported: a step that only names its problem says it as its sentence."""
    sentences = list(content.sentences) or ([content.problem] if content.problem else [])
    return dataclasses.replace(content, sentences=sentences, figures=list(content.figures))


class Renderer:
    """Figure bytes by (slide, figure, format), each rendered at most once."""

    def __init__(self, slides: list[Slide], render=figure_bytes):
        self.slides, self._render, self._cache = slides, render, {}

    def get(self, i: int, j: int, fmt: str) -> bytes:
        key = (i, j, fmt)
        if key not in self._cache:
            src = self.slides[i].figures[j].fig
            fig = go.Figure(data=src.data, layout=src.layout)  # a still: no animation frames,
            fig.layout.updatemenus, fig.layout.sliders = None, None  # no play button or round slider
            if src.frames:  # the axes were fixed to hold every frame: fit the one shown
                fig.update_xaxes(autorange=True, range=None)
                fig.update_yaxes(autorange=True, range=None)
            n = len(self.slides[i].figures)
            if fig.layout.width is None:  # as wide as the figure's share of a 16:9 slide
                height = fig.layout.height or FIG_SIZE[1]
                fig.update_layout(width=int(min(1200, max(420, height * BOX_ASPECT / n))))
            self._cache[key] = self._render(fig, fmt)
        return self._cache[key]

    @property
    def renders(self) -> int:
        return len(self._cache)


def _stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "figure"


# ---- PDF -------------------------------------------------------------------------------------
def _pdf_fonts(pdf) -> tuple[str, bool]:
    """A Unicode TTF (DejaVu Sans) when installed, else Helvetica with text reduced to latin-1."""
    if (FONT_DIR / "DejaVuSans.ttf").is_file():
        pdf.add_font("DejaVu", "", str(FONT_DIR / "DejaVuSans.ttf"))
        bold = FONT_DIR / "DejaVuSans-Bold.ttf"
        pdf.add_font("DejaVu", "B", str(bold if bold.is_file() else FONT_DIR / "DejaVuSans.ttf"))
        return "DejaVu", True
    return "Helvetica", False


_ASCII = {"α": "alpha ", "×": "x", "±": "+/-", "−": "-", "₊": "+", "·": "-", "—": "-", "≥": ">=", "≤": "<=", "≈": "~"}


def _text(s: str, unicode: bool) -> str:
    if unicode:
        return s
    for k, v in _ASCII.items():
        s = s.replace(k, v)
    return s.encode("latin-1", "replace").decode("latin-1")


def _fit(w_px: int, h_px: int, box_w: float, box_h: float) -> tuple[float, float]:
    scale = min(box_w / w_px, box_h / h_px)
    return w_px * scale, h_px * scale


def _img_size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        return im.size


def pdf_deck(slides: list[Slide], renderer: Renderer) -> bytes:
    """One 16:9 page per slide: title, the figures side by side, the sentences, the footer."""
    from fpdf import FPDF

    pdf = FPDF(orientation="P", unit="mm", format=PAGE_MM)  # (width, height) as given: landscape
    pdf.set_auto_page_break(False)
    font, uni = _pdf_fonts(pdf)
    W, H, M = PAGE_MM[0], PAGE_MM[1], 12
    for i, s in enumerate(slides):
        pdf.add_page()
        pdf.set_font(font, "B", 24)
        pdf.set_xy(M, M)
        pdf.cell(W - 2 * M, 12, _text(s.title, uni))
        n = len(s.figures)
        pdf.set_font(font, "", 12.5)
        text_h = 2 + sum(pdf.multi_cell(W - 2 * M, 5.6, _text(t, uni), dry_run=True, output="HEIGHT") + 1.5
                         for t in s.sentences)
        box_h = H - 2 * M - 16 - text_h - 4
        gap = 4
        box_w = (W - 2 * M - gap * max(n - 1, 0)) / max(n, 1)
        for j in range(n):
            png = renderer.get(i, j, "png")
            w, h = _fit(*_img_size(png), box_w, box_h)
            pdf.image(io.BytesIO(png), x=M + j * (box_w + gap) + (box_w - w) / 2, y=M + 16, w=w, h=h)
        pdf.set_font(font, "", 12.5)
        pdf.set_xy(M, H - M - text_h)
        for sentence in s.sentences:
            pdf.set_x(M)
            pdf.multi_cell(W - 2 * M, 5.6, _text(sentence, uni))
            pdf.set_y(pdf.get_y() + 1.5)
        pdf.set_font(font, "", 8.5)
        pdf.set_text_color(90, 90, 90)
        pdf.set_xy(M, H - M + 2)
        pdf.cell(W - 2 * M, 5, _text(f"{s.footer}   ·   {i + 1}/{len(slides)}".strip(" ·"), uni))
        pdf.set_text_color(0, 0, 0)
    return bytes(pdf.output())


# ---- PowerPoint --------------------------------------------------------------------------------
def pptx_deck(slides: list[Slide], renderer: Renderer) -> bytes:
    """One 16:9 slide per slide: the title in the title placeholder, figures as 2x PNGs, the
    sentences and footer as editable text boxes."""
    from pptx import Presentation
    from pptx.util import Emu, Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    layout = prs.slide_layouts[5]  # "Title Only"
    W, H, M = prs.slide_width, prs.slide_height, Inches(0.4)
    for i, s in enumerate(slides):
        slide = prs.slides.add_slide(layout)
        title = slide.shapes.title
        title.text = s.title
        title.left, title.top, title.width, title.height = M, Inches(0.2), W - 2 * M, Inches(0.9)
        title.text_frame.paragraphs[0].runs[0].font.size = Pt(32)
        n = max(len(s.figures), 1)
        text_h = Inches(0.35 + 0.38 * len(s.sentences))
        top, gap = Inches(1.15), Inches(0.15)
        box_w, box_h = (W - 2 * M - gap * (n - 1)) / n, H - top - text_h - Inches(0.6)
        for j in range(len(s.figures)):
            png = renderer.get(i, j, "png")
            w, h = _fit(*_img_size(png), box_w, box_h)
            slide.shapes.add_picture(io.BytesIO(png), Emu(int(M + j * (box_w + gap) + (box_w - w) / 2)), top,
                                     Emu(int(w)), Emu(int(h)))
        body = slide.shapes.add_textbox(M, H - text_h - Inches(0.45), W - 2 * M, text_h).text_frame
        body.word_wrap = True
        for k, sentence in enumerate(s.sentences):
            para = body.paragraphs[0] if k == 0 else body.add_paragraph()
            para.text = sentence
            para.font.size = Pt(17)
        foot = slide.shapes.add_textbox(M, H - Inches(0.4), W - 2 * M, Inches(0.3)).text_frame
        foot.text = s.footer
        foot.paragraphs[0].font.size = Pt(10)
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


# ---- figures zip --------------------------------------------------------------------------------
def figures_zip(slides: list[Slide], renderer: Renderer) -> bytes:
    """``NN_<slide>/<figure>.svg|.pdf|.csv`` for every figure, plus the deck's text as slides.md."""
    buf, notes = io.BytesIO(), []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, s in enumerate(slides):
            folder = f"{i + 1:02d}_{_stem(s.title)}"
            notes += [f"## {s.title}", *s.sentences, f"_{s.footer}_", ""]
            for j, f in enumerate(s.figures):
                for fmt in ("svg", "pdf"):
                    zf.writestr(f"{folder}/{_stem(f.name)}.{fmt}", renderer.get(i, j, fmt))
                if f.data is not None:
                    zf.writestr(f"{folder}/{_stem(f.name)}.csv", f.data.to_csv(index=False))
        zf.writestr("slides.md", "\n".join(notes))
    return buf.getvalue()


EXPORTS = {"pdf": (pdf_deck, "application/pdf"), "pptx": (pptx_deck,
           "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
           "zip": (figures_zip, "application/zip")}


def export_all(slides: list[Slide], formats=("pdf", "pptx", "zip"), render=figure_bytes) -> dict[str, bytes]:
    """Every requested file from one Renderer (each figure rendered once per format it needs)."""
    renderer = Renderer(slides, render)
    return {fmt: EXPORTS[fmt][0](slides, renderer) for fmt in formats}
