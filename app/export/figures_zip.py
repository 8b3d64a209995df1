"""Every figure of the deck as SVG + PDF with its CSV, and the deck's text as slides.md, in a zip."""
from __future__ import annotations

import io
import re
import zipfile

from app.export.content import Slide
from app.export.render import Renderer


def _stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "figure"



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

