"""Figures laid out for their box on a page and rendered once: ``slide_fit`` (the one figure
fitting, ``app.figures.fit.fit``, in its page use), ``share_axes`` for compared panels, and the
``Renderer``, the export's cache of figure bytes by (slide, figure, format).
"""
from __future__ import annotations

import io

import plotly.graph_objects as go
from PIL import Image

from app.export.content import Slide
from app.export.files import figure_bytes
from app.export.pages import CONTENT_TOP, CONTENT_W, SLIDE_PT, Box, Page, _is_table, paginate
from app.figures.fit import fit
from app.figures.palette import PAGE_FONT_PX as FIG_FONT_PX, PAGE_MIN_TEXT_PX as MIN_TEXT_PX, PX_PER_PT  # noqa: F401


def slide_fit(fig: go.Figure, width_pt: float, height_pt: float) -> go.Figure:
    """Lay ``fig`` out, in place, at the size of its box on the page (``PX_PER_PT`` px a point, so
    the image drawn in the box has the box's aspect): ``fit``'s page use (talk mode's look, every
    text at least ``MIN_TEXT_PX`` px, a 18 px tick label reading as 14.4 pt on the page, rendered at
    scale 2 for sharpness; a many-entry legend at the side; long titles broken)."""
    return fit(fig, True, width=round(width_pt * PX_PER_PT), height=round(height_pt * PX_PER_PT), page=True)


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



def _fit(w_px: int, h_px: int, box_w: float, box_h: float) -> tuple[float, float]:
    scale = min(box_w / w_px, box_h / h_px)
    return w_px * scale, h_px * scale


def _img_size(png: bytes) -> tuple[int, int]:

    with Image.open(io.BytesIO(png)) as im:
        return im.size



def _place(png: bytes, box: Box) -> tuple[float, float, float, float]:
    """x, y, w, h of the image in its box (its aspect kept, centred)."""
    w, h = _fit(*_img_size(png), box.w, box.h)
    return box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h

