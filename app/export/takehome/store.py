"""The file's figures, each stored once: keyed by a digest of its plotly JSON (a figure that does not
change along a slider move, or that two studies or steps share, is one entry), gzip-compressed and
base64-encoded where that is smaller than the JSON itself (the page decodes it with the browser's
``DecompressionStream``, no request). The figures are drawn by the file's plotly.js, the cartesian
bundle the figure switcher uses (``app.switcher.TRACE_TYPES``); a table figure (the claims table)
is drawn by the page as an HTML table from the same data, so a figure of any other type is
refused here, by name."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
from dataclasses import dataclass, field

import plotly.io as pio

from app.switcher import TRACE_TYPES

TABLE = "table"


def spec_of(fig) -> str:
    """The plotly JSON of ``fig`` as the dashboard sends it (``switcher.Panel.spec``: unvalidated)."""
    types = {t.type or "scatter" for t in fig.data}
    if TABLE in types and types != {TABLE}:
        raise ValueError(f"figure {fig.layout.title.text!r}: a table beside other traces cannot be drawn here")
    other = sorted(types - TRACE_TYPES - {TABLE})
    if other:
        raise ValueError(f"figure {fig.layout.title.text!r}: trace type(s) {other} are not in the take-home file's "
                         f"plotly.js bundle ({sorted(TRACE_TYPES)})")
    return pio.to_json(fig, validate=False)


@dataclass
class FigureStore:
    entries: dict[str, dict] = field(default_factory=dict)  # fid -> {"z": base64 gzip} or {"j": JSON text}
    raw_bytes: int = 0      # the JSON of every entry, before compression
    stored_bytes: int = 0   # as stored in the file
    added: int = 0          # figures handed in (before deduplication)

    def add_spec(self, spec: str) -> str:
        self.added += 1
        fid = hashlib.sha1(spec.encode()).hexdigest()[:16]
        if fid not in self.entries:
            raw = spec.encode()
            packed = base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode("ascii")
            self.entries[fid] = {"z": packed} if len(packed) < len(raw) else {"j": spec}
            self.raw_bytes += len(raw)
            self.stored_bytes += min(len(packed), len(raw))
        return fid

    def add(self, fig) -> str:
        return self.add_spec(spec_of(fig))


def decode(entry: dict) -> dict:
    """An entry back to the plotly figure dict (what the page's ``decode`` does, for tests)."""
    text = entry["j"] if "j" in entry else gzip.decompress(base64.b64decode(entry["z"])).decode()
    return json.loads(text)
