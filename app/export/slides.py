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

This module is the deck's front door (``export_all``, ``EXPORTS``, and the names callers use); the
work is in one module per concern: ``content`` (``Slide``, ``SlideFigure``, ``from_step``),
``pages`` (layout, text measurement, table pagination), ``render`` (``slide_fit``: the one figure
fitting, ``app.figures.fit.fit``, for a page's box; ``share_axes``; the ``Renderer`` cache),
``pdf_deck``, ``pptx_deck`` and ``figures_zip``.
"""
from __future__ import annotations

from app.export.content import Slide, SlideFigure, from_step  # noqa: F401
from app.export.figures_zip import _stem, figures_zip  # noqa: F401
from app.export.files import figure_bytes
from app.export.pages import (MAX_PER_PAGE, SLIDE_PT, Page, paginate, table_content, visible_text)  # noqa: F401
from app.export.pdf_deck import pdf_deck
from app.export.pptx_deck import PPTX_MIME, pptx_deck
from app.export.render import PX_PER_PT, Renderer, share_axes, slide_fit  # noqa: F401

EXPORTS = {"pdf": (pdf_deck, "application/pdf"), "pptx": (pptx_deck, PPTX_MIME),
           "zip": (figures_zip, "application/zip")}


def export_all(slides: list[Slide], formats=("pdf", "pptx", "zip"), render=figure_bytes) -> dict[str, bytes]:
    """Every requested file from one Renderer (each figure rendered once per format it needs)."""
    renderer = Renderer(slides, render)
    return {fmt: EXPORTS[fmt][0](slides, renderer) for fmt in formats}
