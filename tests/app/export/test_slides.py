"""The talk export: a PDF with a page per figure (step 5's compared panels side by side), each
titled with its step's takeaway, a .pptx python-pptx reads back with the right slides, titles and
speaker notes (the step's numbers), a zip with SVG + PDF + CSV per figure; each figure rendered
once per format.
The structure tests use a stand-in renderer; one test renders two steps through kaleido."""
from __future__ import annotations

import io
import itertools
import re
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


def _of_step(title: str, s) -> bool:
    """A page of slide ``s``: its takeaway (else its title), alone or with "(k/n)"."""
    head = s.takeaway or s.title
    return title == head or re.fullmatch(re.escape(head) + r" \(\d+/\d+\)", title) is not None


def _is_table(f) -> bool:
    return bool(f.fig.data) and all(t.type == "table" for t in f.fig.data)


def test_whole_lesson_as_pdf_pptx_zip(steps):
    calls = []
    files = slides.export_all(steps, render=lambda fig, fmt: calls.append(fmt) or fake_render(fig, fmt))
    n_figs = sum(len(s.figures) for s in steps)
    n_pictures = sum(not _is_table(f) for s in steps for f in s.figures)  # a table is drawn as a table
    assert sorted(calls) == sorted(["png"] * n_pictures + ["svg", "pdf"] * n_figs)  # once per figure and format

    pdf = PdfReader(io.BytesIO(files["pdf"]))
    prs = Presentation(io.BytesIO(files["pptx"]))
    titles = [sl.shapes.title.text for sl in prs.slides]
    assert len(pdf.pages) == len(titles) >= len(lesson.STEPS)
    assert float(pdf.pages[0].mediabox.width) > float(pdf.pages[0].mediabox.height)  # landscape 16:9
    # the steps in order, each on one page or on "(1/n)" ... "(n/n)"
    owner = [next(k for k, s in enumerate(steps) if _of_step(t, s)) for t in titles]
    assert owner == sorted(owner) and set(owner) == set(range(len(steps)))
    texts = [" ".join(sh.text_frame.text for sh in sl.shapes if sh.has_text_frame) for sl in prs.slides]
    for k, s in enumerate(steps):
        pages = [n for n, o in enumerate(owner) if o == k]
        text = re.sub(r"\s+", " ", " ".join(pdf.pages[n].extract_text() for n in pages))  # lines joined
        # the takeaway as the title, the step's name and settings in the footer; the numbers in the notes
        assert s.takeaway and s.takeaway in text and s.title in text and s.footer[:40] in text
        assert s.sentences[0][:40] not in text  # no text wall before (or beside) the figure
        assert sum(len(pdf.pages[n].images) for n in pages) == sum(not _is_table(f) for f in s.figures)
        notes = " ".join(prs.slides[n].notes_slide.notes_text_frame.text for n in pages)
        assert all(t in notes for t in s.sentences)  # the numbers are editable text, in the speaker notes
        assert all(s.takeaway in texts[n] for n in pages)
        assert sum(sh.shape_type == 13 for n in pages for sh in prs.slides[n].shapes) == \
            sum(not _is_table(f) for f in s.figures)
    assert all(len(page.images) <= slides.MAX_PER_PAGE for page in pdf.pages)

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
    assert len(pdf.pages) >= 2 and "Label skew" in pdf.pages[0].extract_text()
    assert "FedQuad's idea" in pdf.pages[-1].extract_text()
    png = pdf.pages[-1].images[0].data
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


def test_animated_figures_export_as_stills():
    """An embedding animated over rounds on the page (play button, round slider) goes to the
    slides as the last frame without the play button and round slider."""
    import numpy as np

    from app.lesson.figures import animated_embedding

    rng = np.random.default_rng(0)
    fig = animated_embedding({r: rng.normal(size=(30, 2)) for r in (1, 2, 4)}, np.repeat(np.arange(3), 10))
    assert fig.frames and fig.layout.sliders and fig.layout.updatemenus  # on the page
    seen = []
    slides.export_all([slides.Slide("embedding", ["One picture."], [slides.SlideFigure("emb", fig)])], ("pdf",),
                      render=lambda fig, fmt: seen.append(fig) or fake_render(fig, fmt))
    assert seen and all(not f.frames and not f.layout.sliders and not f.layout.updatemenus for f in seen)


def test_decks_are_readable_from_the_back_of_a_room(steps):
    """The takeaway title at least 20 pt (PDF and PowerPoint), figures laid out at slide size with
    their text at least 14 pt there, the step's sentences as speaker notes and not on its pages (a
    slide with no figure shows them, at least 20 pt), no on-screen instruction."""
    seen = []
    files = slides.export_all(steps, ("pdf", "pptx"), render=lambda fig, fmt: seen.append(fig) or fake_render(fig, fmt))
    sizes: dict[str, float] = {}

    def visit(text, cm, tm, font, size):
        if text.strip():
            sizes[text.strip()] = size * abs(tm[0]) * abs(cm[0] or 1)

    pdf = PdfReader(io.BytesIO(files["pdf"]))
    prs = Presentation(io.BytesIO(files["pptx"]))
    with_body = set()  # the steps whose takeaway was found as a page's title
    for page, sl in zip(pdf.pages, prs.slides):
        s = next(s for s in steps if _of_step(sl.shapes.title.text, s))
        sizes.clear()
        page.extract_text(visitor_text=visit)
        body = [v for k, v in sizes.items() if len(k) >= 25 and any(k[:25] in t for t in s.sentences)
                and k[:25] not in s.footer and k[:25] not in s.takeaway]
        assert not body, (s.title, "sentences on a page with figures")
        # a title line: 30 characters or more of the takeaway (a table cell may repeat a verdict's words)
        head = [v for k, v in sizes.items() if len(k) >= 30 and k[:30] in s.takeaway]
        assert head and min(head) >= 20, (s.title, head)
        with_body |= {s.title} if head else set()
        assert all(r.font.size.pt >= 20 for p in sl.shapes.title.text_frame.paragraphs for r in p.runs)
        assert min(v for k, v in sizes.items() if k in s.footer or k.endswith(f"/{len(pdf.pages)}")) >= 14
        notes = sl.notes_slide.notes_text_frame.text
        assert all(t in notes for t in s.sentences)
        paras = [p for sh in sl.shapes if sh.has_text_frame and sh != sl.shapes.title
                 for p in sh.text_frame.paragraphs if p.text in s.sentences]
        assert all(p.font.size.pt >= 20 for p in paras)
    assert with_body == {s.title for s in steps}  # every step's takeaway heads its pages
    for fig in seen:
        pt = 1 / slides.PX_PER_PT  # a figure px on the page
        assert fig.layout.width * pt <= slides.SLIDE_PT[0] and fig.layout.font.size * pt >= 16
        assert min(fig.layout.xaxis.tickfont.size, fig.layout.yaxis.tickfont.size) * pt >= 14
        assert fig.layout.height - fig.layout.margin.t - fig.layout.margin.b >= 200  # a plot area remains
    words = " ".join(t for s in steps for t in s.sentences).lower()
    assert "press play" not in words and "click" not in words


def test_compared_panels_share_their_axes_and_legends_are_not_faded(steps):
    """Step 5's two panels side by side on one page, on the same x and y ranges; no figure of the
    deck has a legend entry drawn faded (a faded trace's entry is a full-opacity twin)."""
    seen = []
    slides.export_all(steps, ("pdf",), render=lambda fig, fmt: seen.append(fig) or fake_render(fig, fmt))
    idea = [f for f in seen if "quadruplet" in str(f.layout.title.text or "").lower()
            or any(t.name and "term 1" in t.name for t in f.data)]
    assert len(idea) == 2
    for axis in ("xaxis", "yaxis"):
        assert idea[0].layout[axis].range == idea[1].layout[axis].range and idea[0].layout[axis].range
    pages = slides.paginate(steps)
    assert [len(p.figures) for p in pages if p.slide == 4] == [2]
    for fig in seen:
        for t in fig.data:
            if t.showlegend is False or not t.name or t.type not in ("scatter", "scattergl"):
                continue
            op = t.marker.opacity
            assert (t.opacity is None or t.opacity == 1) and (op is None or not isinstance(op, (int, float)) or op == 1), \
                (t.name, t.opacity, op)


def test_a_faded_trace_gets_a_full_opacity_legend_twin():
    import plotly.graph_objects as go

    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], mode="markers", name="Shirt", marker=dict(color="#123456", opacity=0.15)),
                     go.Scatter(x=[0], y=[1], mode="markers", name="Bag", marker=dict(color="#654321"))])
    slides.slide_fit(fig, 400, 300)
    shown = {t.name: t for t in fig.data if t.showlegend is not False}
    assert shown["Shirt"].marker.opacity == 1 and list(shown["Shirt"].x) == [None]
    assert shown["Shirt"].marker.color == "#123456" and shown["Bag"].marker.opacity is None
    faded = next(t for t in fig.data if t.name == "Shirt" and t.showlegend is False)
    assert faded.legendgroup == shown["Shirt"].legendgroup  # clicking the entry still hides the points
