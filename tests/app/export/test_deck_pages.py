"""The talk deck as a lecturer gets it: the eight Lesson steps built from the shipped recordings
(``assets/recorded``, talk mode, as the Lesson page exports them), rendered through kaleido +
Chromium, and the files read back the way a viewer sees them.

PDF (poppler: ``pdftoppm``, ``pdftotext -bbox``, ``pdfimages -list``; plus the page's own image
placements): every figure at least ``MIN_W_IN`` x ``MIN_H_IN`` inches, at most two a page, inside
the page's margins; every text inside a figure at least 14 pt on the page (the font sizes kaleido
wrote into the figure's SVG, scaled by the image's size on the page); every word on the page, the
footer included, inside the page; nothing drawn at the page's edge; the claims table's summary
(one line per claim) on at most two pages, every line and cell present as text, the full table
linked (docs/claims.md). PowerPoint (python-pptx): every shape inside the slide, text frames
wrapping, pictures as large as in the PDF with the same text size, every summary line and cell in
the slide tables, the step's numbers in the speaker notes.
"""
from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.util import Emu
from pypdf import PdfReader
from pypdf.generic import ContentStream

from app.export import slides
from app.export.files import export_available
from app.lesson import steps as lesson
from app.lesson.data import LessonData, read_studies

REPO = Path(__file__).resolve().parents[3]
RECORDED = REPO / "assets" / "recorded"
MIN_W_IN, MIN_H_IN = 4.0, 3.0     # no figure smaller on a page (the old deck had 0.8 x 1.1 in)
MIN_FIGURE_PT = 14.0              # text inside a figure, at the page's physical size
PAGE_W, PAGE_H = 960, 540           # 13.333 x 7.5 in
MAX_PER_PAGE = 2                  # figures on one page
CLAIMS_STEP = 8
pytestmark = pytest.mark.slow  # the whole lesson through kaleido: about a minute on 2 busy cores


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    ok, why = export_available()
    assert ok, why
    for tool in ("pdftoppm", "pdftotext", "pdfimages"):
        assert shutil.which(tool), f"{tool} missing: apt-get install poppler-utils (scripts/setup.sh does)"
    studies = {s["name"]: s for s in read_studies(RECORDED)}
    if "digits-local" not in studies or "fmnist-skew" not in studies:
        pytest.skip(f"the recorded studies are not in {RECORDED}")
    data = LessonData(RECORDED, studies["digits-local"], "recorded", studies=studies)
    steps = [slides.from_step(lesson.build_step(i, data, talk=True)) for i in range(1, len(lesson.STEPS) + 1)]
    assert all(not s.problem for s in steps), [s.problem for s in steps if s.problem]
    files = slides.export_all(steps)
    steps = (steps, [p.slide + 1 for p in slides.paginate(steps)])  # the steps, and each page's step
    out = tmp_path_factory.mktemp("deck")
    for fmt, payload in files.items():
        (out / f"deck.{fmt}").write_bytes(payload)
    return steps, files, out


def _svg_fonts(files) -> dict[str, list[tuple[int, int, float]]]:
    """Per step folder ("NN_"): (width px, height px, smallest font px) of each figure's SVG."""
    out: dict[str, list] = {}
    with zipfile.ZipFile(io.BytesIO(files["zip"])) as zf:
        for name in zf.namelist():
            if name.endswith(".svg"):
                svg = zf.read(name).decode()
                w, h = (int(float(v)) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
                sizes = [float(v) for v in re.findall(r"font-size:\s*([\d.]+)px", svg)]
                out.setdefault(name[:3], []).append((w, h, min(sizes)))
    return out


MAX_CLAIMS_PAGES = 2  # the claims table on at most two slides (the rest: docs/claims.md)


def _title(words) -> str:
    """The page's first line of text: its title."""
    top = min(y0 for _, y0, _, _, _ in words)
    return " ".join(w for _, y0, _, _, w in words if abs(y0 - top) < 2)


def _figure_pt(fonts, step: int, px_w: int, px_h: int, placed_w_pt: float) -> float:
    """The smallest figure text in points, for an image of ``px_w`` x ``px_h`` (2x PNG) placed
    ``placed_w_pt`` wide: every SVG of the step with those dimensions is a candidate, the smallest
    of their fonts counts."""
    cands = [(w, f) for w, h, f in fonts.get(f"{step:02d}_", []) if abs(2 * w - px_w) <= 2 and abs(2 * h - px_h) <= 2]
    assert cands, f"step {step}: no SVG of the image's size {px_w}x{px_h} px"
    return min(f * placed_w_pt / w for w, f in cands)


def _placements(reader: PdfReader, page) -> list[tuple[float, float, float, float]]:
    """(x, top, w, h) in points, origin top left, of every image the page draws (its ``cm`` + ``Do``)."""
    out, cm = [], None
    for operands, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"cm":
            cm = [float(v) for v in operands]
        elif op == b"Do" and cm:
            a, _, _, d, e, f = cm
            out.append((e, PAGE_H - f - d, a, d))
    return out


def _words(pdf: Path, page: int) -> list[tuple[float, float, float, float, str]]:
    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    return [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in
            re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', html)]


def _flat(s) -> str:
    s = str(s).replace("&apos;", "'").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    return re.sub(r"\s+", "", s)


def _is_table(fig) -> bool:
    return bool(fig.data) and all(t.type == "table" for t in fig.data)


def _cell(v) -> str:
    """A table cell as the deck writes it: text as is, a number to 3 significant digits."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def _claims_table(steps):
    """The claims step, and its table as the deck gives it: the summary, one line per claim, every
    column and row of its data (the full table stays on the screen and in docs/claims.md)."""
    step = steps[CLAIMS_STEP - 1]
    assert not any(f.name == "paper_claims" for f in step.figures)  # the full table: not in the deck
    item = next(f for f in step.figures if f.name == "paper_claims_summary")
    columns = [str(c) for c in item.data.columns]
    rows = [[_cell(v) for v in row] for row in item.data.itertuples(index=False, name=None)]
    assert len(rows) >= 8 and len(columns) == 3, (len(rows), columns)
    return step, columns, rows


def test_pdf_pages(deck):
    (steps, step_of), files, out = deck
    pdf = out / "deck.pdf"
    reader = PdfReader(io.BytesIO(files["pdf"]))
    fonts = _svg_fonts(files)
    listed = [ln.split() for ln in subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                                                  check=True).stdout.splitlines()[2:]]
    subprocess.run(["pdftoppm", "-r", "36", "-png", str(pdf), str(out / "page")], check=True)
    pngs = sorted(out.glob("page-*.png"))
    assert len(pngs) == len(reader.pages)
    report, k = [], 0
    for n, page in enumerate(reader.pages, start=1):
        words = _words(pdf, n)
        step = step_of[n - 1]
        title = _title(words)
        assert title and title.split()[0] in (steps[step - 1].takeaway or steps[step - 1].title), (n, title)
        # every word, the footer's too, inside the page with a margin; the footer's last line near the bottom
        for x0, y0, x1, y1, w in words:
            assert x0 >= 20 and x1 <= PAGE_W - 20 and y0 >= 10 and y1 <= PAGE_H - 4, (n, w, x0, x1, y1)
        assert f"{n}/{len(reader.pages)}" in [w for *_, w in words], f"page {n}: no page number in the footer"
        # nothing drawn in the outer 8 pt (4 px at 36 dpi) of the rendered page
        px = np.asarray(Image.open(pngs[n - 1]).convert("L"))
        edge = np.concatenate([px[:4].ravel(), px[-4:].ravel(), px[:, :4].ravel(), px[:, -4:].ravel()])
        assert edge.min() > 240, f"page {n}: something is drawn at the page's edge"
        placed = _placements(reader, page)
        assert len(placed) <= MAX_PER_PAGE, (n, len(placed))
        for x, top, w, h in placed:
            row = listed[k]
            k += 1
            assert int(row[0]) == n
            px_w, px_h, ppi = int(row[3]), int(row[4]), float(row[12])
            assert abs(px_w / ppi * 72 - w) < 1.5  # poppler agrees on the size on the page
            assert w / 72 >= MIN_W_IN and h / 72 >= MIN_H_IN, f"page {n}: figure {w / 72:.2f} x {h / 72:.2f} in"
            assert x >= 20 and top >= 60 and x + w <= PAGE_W - 20 and top + h <= PAGE_H - 30, (n, x, top, w, h)
            text_pt = _figure_pt(fonts, step, px_w, px_h, w)
            assert text_pt >= MIN_FIGURE_PT, f"page {n}: figure text {text_pt:.1f} pt"
            report.append(f"p{n} {w / 72:.2f}x{h / 72:.2f} in, text >= {text_pt:.1f} pt")
    assert k == len(listed)
    n_figs = sum(1 for s in steps for f in s.figures if not _is_table(f.fig))
    assert k == n_figs, (k, n_figs)  # every figure is on a page, once
    print("\n".join(report))


def test_pdf_claims_table_has_every_row(deck):
    (steps, step_of), files, out = deck
    step, columns, rows = _claims_table(steps)
    reader = PdfReader(io.BytesIO(files["pdf"]))
    stream = {c: [] for c in columns}
    pages = 0
    for n in range(1, len(reader.pages) + 1):
        words = _words(out / "deck.pdf", n)
        if step_of[n - 1] != CLAIMS_STEP:
            continue
        assert "docs/claims.md" in " ".join(w[4] for w in words)  # the full table, linked
        body = [w for w in words if 60 < w[1] < PAGE_H - 60]
        heads = {}
        for c in columns:  # the header cell: the topmost occurrence of the column name's first word
            hits = [w for w in body if w[4] == str(c).split()[0]]
            if hits:
                heads[c] = min(hits, key=lambda w: (w[1], w[0]))
        if not heads:
            continue  # the step's sentences alone
        assert len(heads) == len(columns), f"page {n}: no header for {set(columns) - set(heads)}"
        pages += 1
        top = max(h[3] for h in heads.values())
        edges = sorted((h[0], c) for c, h in heads.items())
        for i, (x0, c) in enumerate(edges):
            x1 = edges[i + 1][0] if i + 1 < len(edges) else PAGE_W
            cells = sorted((w for w in body if w[1] > top and x0 - 3 <= w[0] < x1 - 3), key=lambda w: (round(w[1]), w[0]))
            stream[c].append(" ".join(w[4] for w in cells))
    assert 1 <= pages <= MAX_CLAIMS_PAGES
    flat = {c: _flat(" ".join(v)) for c, v in stream.items()}
    found = [r for r in rows if all(_flat(cell) in flat[c] for c, cell in zip(columns, r))]
    assert len(found) == len(rows), [r[0] for r in rows if r not in found]
    print(f"claims: {len(found)}/{len(rows)} rows, {len(columns)} columns, over {pages} pages")


def test_pptx_slides(deck):
    (steps, step_of), files, _ = deck
    prs = Presentation(io.BytesIO(files["pptx"]))
    W, H = prs.slide_width, prs.slide_height
    assert len(prs.slides) == len(PdfReader(io.BytesIO(files["pdf"])).pages)  # page for page
    fonts = _svg_fonts(files)
    _, columns, rows = _claims_table(steps)
    cells: dict[int, list[str]] = {c: [] for c in range(len(columns))}
    pictures = 0
    for n, sl in enumerate(prs.slides, start=1):
        step = step_of[n - 1]
        assert sl.shapes.title.text.startswith(steps[step - 1].takeaway or steps[step - 1].title)
        notes = sl.notes_slide.notes_text_frame.text
        assert all(t in notes for t in steps[step - 1].sentences)  # the numbers: speaker notes
        pics = [sh for sh in sl.shapes if sh.shape_type == 13]
        assert len(pics) <= MAX_PER_PAGE
        for sh in sl.shapes:
            assert sh.left >= 0 and sh.top >= 0 and sh.left + sh.width <= W and sh.top + sh.height <= H, \
                (n, sh.name, sh.left, sh.top, sh.width, sh.height)
            if sh.has_text_frame and sh.text_frame.text.strip():
                assert sh.text_frame.word_wrap is True, (n, sh.name)  # wraps at its width: stays inside
            if sh.has_table:
                tbl = sh.table
                assert sum(r.height for r in tbl.rows) <= sh.height + Emu(12700)
                assert sum(c.width for c in tbl.columns) <= W - sh.left
                assert all(p.font.size.pt >= 14 for r in range(1, len(tbl.rows)) for c in range(len(tbl.columns))
                           for p in tbl.cell(r, c).text_frame.paragraphs)
                if step != CLAIMS_STEP:  # step 9's registered rows: a table of its own
                    continue
                assert [tbl.cell(0, c).text for c in range(len(columns))] == [str(c) for c in columns]
                for r in range(1, len(tbl.rows)):
                    for c in range(len(columns)):
                        cells[c].append(tbl.cell(r, c).text)
        for sh in pics:
            w_in, h_in = sh.width / 914400, sh.height / 914400
            assert w_in >= MIN_W_IN and h_in >= MIN_H_IN, (n, w_in, h_in)
            px_w, px_h = sh.image.size
            assert _figure_pt(fonts, step, px_w, px_h, w_in * 72) >= MIN_FIGURE_PT
            pictures += 1
        foot = [sh for sh in sl.shapes if sh.has_text_frame and f"{n}/{len(prs.slides)}" in sh.text_frame.text]
        assert foot and all(sh.top + sh.height <= H for sh in foot)
    assert pictures == sum(1 for s in steps for f in s.figures if not _is_table(f.fig))
    flat = [_flat(" ".join(cells[c])) for c in range(len(columns))]
    found = [r for r in rows if all(_flat(cell) in flat[c] for c, cell in enumerate(r))]
    assert len(found) == len(rows) and len(cells[0]) == len(rows), (len(found), len(cells[0]), len(rows))


def test_the_docs_give_this_decks_page_count(deck):
    """docs/lesson.md and docs/talk.md ("Open the PDF once before the talk") state the deck's page
    count: it is the page count of the deck the recorded lesson gives."""
    _, files, _ = deck
    pages = len(PdfReader(io.BytesIO(files["pdf"])).pages)
    said = {page: re.findall(r"(\d+) pages(?:,\s+PDF| for the nine steps)", (REPO / "docs" / page).read_text())
            for page in ("lesson.md", "talk.md")}
    assert said == {"lesson.md": [str(pages)], "talk.md": [str(pages)]}, f"the docs say {said}; the deck has {pages}"
