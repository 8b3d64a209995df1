"""The deck as a PDF (fpdf2): the pages ``app.export.pages.paginate`` laid out, drawn."""
from __future__ import annotations

import io

from app.export.content import Slide
from app.export.pages import (BODY_LINE, BODY_PT, CELL_PAD, CONTENT_W, FOOTER_LINE, FOOTER_PT, HEADER_FILL, MARGIN,
                              PARA_GAP, TABLE_LINE, TABLE_PT, TITLE_TOP, TablePart, _new_pdf, _rgb, _text)
from app.export.render import Renderer, _place


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

