"""The talk export: a PDF with one page per step, a .pptx python-pptx reads back with the right
slides and titles, a zip with SVG + PDF + CSV per figure; each figure rendered once per format.
The structure tests use a stand-in renderer; one test renders two steps through kaleido."""
from __future__ import annotations

import io
import itertools
import zipfile

import pytest
from pptx import Presentation
from pypdf import PdfReader

from app.lesson import steps as lesson
from app.export import slides
from app.export.deck import as_slides
from app.export.files import export_available
from app.lesson.data import LessonData, read_studies
from lesson_helpers import write_lesson_root


_shades = itertools.cycle(range(256))


def fake_render(fig, fmt: str) -> bytes:
    """A small real PNG / SVG / PDF of the figure's size, without a browser."""
    w, h = int(fig.layout.width or 800), int(fig.layout.height or 450)
    if fmt == "png":
        from PIL import Image

        buf = io.BytesIO()
        shade = next(_shades)  # distinct images (a PDF stores identical ones once)
        Image.new("RGB", (w // 4, h // 4), (shade, 255 - shade, 128)).save(buf, "PNG")
        return buf.getvalue()
    if fmt == "svg":
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"/>'.encode()
    return b"%PDF-1.4 stand-in"


@pytest.fixture(scope="module")
def steps(tmp_path_factory):
    d = lesson_data(tmp_path_factory.mktemp("slides") / "rec")
    return [slides.from_step(lesson.build_step(i, d)) for i in range(1, len(lesson.STEPS) + 1)]


def lesson_data(root) -> LessonData:
    write_lesson_root(root)
    studies = {s["name"]: s for s in read_studies(root)}
    return LessonData(root, studies["digits-local"], "recorded", studies=studies)


def test_whole_lesson_as_pdf_pptx_zip(steps):
    calls = []
    files = slides.export_all(steps, render=lambda fig, fmt: calls.append(fmt) or fake_render(fig, fmt))
    n_figs = sum(len(s.figures) for s in steps)
    assert sorted(calls) == sorted(["png", "svg", "pdf"] * n_figs)  # once per figure and format

    pdf = PdfReader(io.BytesIO(files["pdf"]))
    assert len(pdf.pages) == len(lesson.STEPS)
    assert float(pdf.pages[0].mediabox.width) > float(pdf.pages[0].mediabox.height)  # landscape 16:9
    for page, s in zip(pdf.pages, steps):
        text = page.extract_text()
        assert s.title in text and s.sentences[0][:40] in text and s.footer[:40] in text
        assert len(page.images) == len(s.figures)

    prs = Presentation(io.BytesIO(files["pptx"]))
    assert [sl.shapes.title.text for sl in prs.slides] == [s.title for s in steps]
    texts = [" ".join(sh.text_frame.text for sh in sl.shapes if sh.has_text_frame) for sl in prs.slides]
    assert all(s.sentences[-1] in t for s, t in zip(steps, texts))  # sentences are editable text
    assert [sum(sh.shape_type == 13 for sh in sl.shapes) for sl in prs.slides] == [len(s.figures) for s in steps]

    names = zipfile.ZipFile(io.BytesIO(files["zip"])).namelist()
    assert "slides.md" in names
    for i, s in enumerate(steps):
        for f in s.figures:
            assert sum(n.startswith(f"{i + 1:02d}_") and slides._stem(f.name) in n for n in names) == 3


def test_my_deck_exports_one_slide_per_figure(steps):
    items = [{"fig": f.fig, "title": f"figure {k}", "caption": "seen on Geometry", "data": f.data, "name": f.name}
             for k, f in enumerate(steps[3].figures)]
    files = slides.export_all(as_slides(items), ("pdf", "pptx"), render=fake_render)
    assert len(PdfReader(io.BytesIO(files["pdf"])).pages) == 3
    assert [sl.shapes.title.text for sl in Presentation(io.BytesIO(files["pptx"])).slides] == \
        ["figure 0", "figure 1", "figure 2"]


def test_two_steps_through_kaleido(steps):
    ok, why = export_available()
    assert ok, why
    files = slides.export_all([steps[0], steps[4]])
    pdf = PdfReader(io.BytesIO(files["pdf"]))
    assert len(pdf.pages) == 2 and "Label skew" in pdf.pages[0].extract_text()
    png = pdf.pages[1].images[0].data
    assert png[:4] == b"\x89PNG" and len(png) > 10_000
    zf = zipfile.ZipFile(io.BytesIO(files["zip"]))
    svg = next(n for n in zf.namelist() if n.endswith(".svg"))
    assert zf.read(svg).lstrip().startswith(b"<svg")
    assert zf.read(svg.replace(".svg", ".pdf"))[:5] == b"%PDF-"


def test_talk_mode_figures_go_into_the_export(tmp_path):
    """The export renders the figures it is given; in talk mode the steps build talk-styled ones."""
    d = lesson_data(tmp_path / "rec")
    seen = []
    slides.export_all([slides.from_step(lesson.build_step(2, d, talk=True))], ("pdf",),
                      render=lambda fig, fmt: seen.append(fig.layout.font.size) or fake_render(fig, fmt))
    assert seen and all(size == 20 for size in seen)  # app.figures.theme's talk font


def test_animated_figures_export_as_stills(steps):
    """Step 6's embeddings are animated on the page; the slides get the last frame without the
    play button and round slider."""
    seen = []
    slides.export_all([steps[5]], ("pdf",), render=lambda fig, fmt: seen.append(fig) or fake_render(fig, fmt))
    assert steps[5].figures[0].fig.frames and steps[5].figures[0].fig.layout.sliders  # on the page
    assert seen and all(not f.frames and not f.layout.sliders and not f.layout.updatemenus for f in seen)
