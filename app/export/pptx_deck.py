"""The deck as a PowerPoint file (python-pptx): the same pages as the PDF, the step's sentences,
numbers and p-values as speaker notes."""
from __future__ import annotations

import io

from app.export.content import Slide
from app.export.pages import (BODY_LINE, BODY_PT, CELL_PAD, CONTENT_W, FOOTER_LINE, FOOTER_PT, HEADER_FILL, MARGIN,
                              PARA_GAP, TABLE_LINE, TABLE_PT, TITLE_TOP, TablePart, _rgb, _title_height)
from app.export.render import Renderer, _place

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

