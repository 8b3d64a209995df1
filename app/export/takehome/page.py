"""The take-home file itself: ``template.html`` with the styles (``takehome.css``), plotly.js (the
figure switcher's cartesian bundle, once), the page's script (``takehome.js``) and the data (the
lesson, the studies' positions, the figures stored once each: ``store``) written into it, and the
first screen (what the file is, its studies and data sets, when and from which version it was
exported, and that its numbers are recorded runs with the claims table's verdict words).

``html(export)`` returns the file's text and what each part of it weighs."""
from __future__ import annotations

import datetime as dt
import html as h
import json
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pandas as pd

from app import service
from app.export.takehome.collect import Export
from app.export.takehome.store import FigureStore
from app.lesson.confirmation import HEAD as CONFIRMED_HEAD
from app.lesson.quadruplet import DEFAULT_M1, DEFAULT_M2
from fedquad_core.api import engine_fingerprint
from app.switcher import FRONTEND, PLOTLY_JS, pos_key

HERE = Path(__file__).parent
NUMBERS_ROWS = 60  # rows of a figure's numbers written into the file (the rest named, not shown)
PROJECT = "FedQuad Lab"


@dataclass
class Built:
    text: str
    sizes: dict[str, int]      # bytes of each part of the file (UTF-8)
    figures: int               # figures stored (after deduplication)
    figures_added: int         # figures handed in
    figures_raw: int           # their JSON before compression, bytes
    positions: int             # Explore positions over all studies
    data: dict                 # the page's data (for tests)
    damaged: list[str]         # recorded study files left out (damaged), one line each


def version() -> str:
    """The project's version, the engine fingerprint and, in a git checkout, the commit."""
    try:
        v = metadata.version("fedquad-lab")
    except metadata.PackageNotFoundError:
        v = "unknown"
    parts = [f"version {v}", f"engine {engine_fingerprint()}"]
    try:
        out = subprocess.run(["git", "-C", str(service.REPO_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        if out.returncode == 0 and out.stdout.strip():
            parts.append(f"commit {out.stdout.strip()}")
    except (OSError, subprocess.SubprocessError):
        pass  # not a git checkout: the version and the fingerprint say it
    return ", ".join(parts)


def numbers_html(data) -> tuple[str | None, int, int]:
    """A figure's plotted numbers as an HTML table (escaped), at most ``NUMBERS_ROWS`` rows."""
    if not isinstance(data, pd.DataFrame) or data.empty:
        return None, 0, 0
    shown = data.head(NUMBERS_ROWS)
    text = shown.to_html(index=False, na_rep="", border=0, escape=True,
                         float_format=lambda x: f"{x:.4g}")
    return text, len(data), len(shown)


def _lesson(export: Export, store: FigureStore) -> list[dict]:
    out = []
    for slide in export.steps:
        figures = []
        for f in slide.figures:
            if f.deck_only:  # the step as the Lesson page draws it (the deck's own figures left out)
                continue
            numbers, rows, shown = numbers_html(f.data)
            figures.append({"fid": store.add(f.fig), "name": f.name, "caption": f.caption or "", "numbers": numbers,
                            "rows": rows, "shown": shown})
        out.append({"title": slide.title, "takeaway": slide.takeaway, "lead": slide.lead, "sentences": list(slide.sentences),
                    "confirmed": list(slide.confirmed), "confirmed_numbers": list(slide.confirmed_numbers), "figures": figures,
                    "footer": slide.footer, "problem": slide.problem, "notices": list(slide.notices)})
    if export.margins:
        out[IDEA - 1]["margins"] = _margins(export, store)
    return out


IDEA = 5  # the Lesson's step with the quadruplet and its margin sliders


def _margins(export: Export, store: FigureStore) -> dict:
    """Step 5 at every (m1, m2) of ``collect.MARGINS``: its sentences, figures and numbers."""
    label = lambda v: f"{v:g}"  # noqa: E731
    at = {}
    for (m1, m2), slide in export.margins.items():
        figures = []
        for f in slide.figures:
            numbers, rows, shown = numbers_html(f.data)
            figures.append({"fid": store.add(f.fig), "numbers": numbers, "rows": rows, "shown": shown})
        at[f"{label(m1)}|{label(m2)}"] = {"sentences": list(slide.sentences), "figures": figures}
    values = sorted({label(m) for pair in export.margins for m in pair}, key=float)
    return {"values": values, "default": [label(DEFAULT_M1), label(DEFAULT_M2)], "at": at}


def _studies(export: Export, store: FigureStore) -> list[dict]:
    out = []
    for s in export.studies:
        positions = {}  # "resp|alpha=0.1|m1=0.5": the response axis, then Explore's position key
        for resp, along in s.positions.items():
            for p in along:
                panels = {}
                for panel in p.panels:
                    fid = store.add_spec(panel.spec) if panel.fig is not None else None
                    panels[panel.slot] = {"fid": fid, "caption": panel.caption or ""}
                positions[f"{resp or ''}|{pos_key(s.axes, p.value)}"] = {"notice": p.notice, "panels": panels}
        base = s.study.get("base") or {}
        out.append({"id": s.ref.name, "title": s.ref.title, "dataset": str(base.get("dataset", "?")),
                    "description": s.study.get("description") or "",
                    "axes": [{"key": a.key, "label": a.label, "options": a.options} for a in s.axes],
                    "sections": [{"heading": x.heading, "rows": x.rows, "columns": x.columns, "key": x.key}
                                 for x in s.sections],
                    "default": s.default, "resp": s.resp_axis, "resp_axes": [r for r in s.positions if r],
                    "positions": positions})
    return out


def titled(study: dict) -> str:
    """A study's title with its data set (unless the title names it already)."""
    t, ds = study["title"], study["dataset"]
    return t if ds.lower() in t.lower() else f"{t} ({ds})"


def recorded_name(path: Path | None) -> str:
    """The recorded root as the docs name it: relative to the checkout when inside it."""
    if path is None:
        return ""
    try:
        return str(Path(path).resolve().relative_to(Path(service.REPO_ROOT).resolve()))
    except ValueError:
        return Path(path).name


def about(export: Export, studies: list[dict], exported: str, ver: str) -> str:
    """The first screen: what the file is."""
    names = ", ".join(h.escape(titled(s)) for s in studies) or "none"
    verdicts = Counter(export.verdicts)
    words = "; ".join(f"{h.escape(v)} ×{n}" for v, n in verdicts.most_common())
    lesson_names = export.lesson_studies
    count = {s["id"]: len(s["positions"]) // max(1, len(s["resp_axes"])) for s in studies}
    items = "".join(f"<li><b>{h.escape(s['id'])}</b>: {h.escape(s['title'])}, data set {h.escape(s['dataset'])}, "
                    f"{count[s['id']]} slider position{'s' * (count[s['id']] != 1)}</li>" for s in studies)
    return (f"<h1>{PROJECT}: the Lesson and Explore, to take home</h1>"
            f"<p>Representational collapse in federated learning, and what FedQuad does about it: the nine-step "
            f"Lesson and Explore's sliders over the recorded studies {names}, in one file that needs no server, no "
            f"install and no network.</p>"
            f"<p><b>Every number is from recorded runs</b> (the study files in "
            f"<code>{h.escape(recorded_name(export.recorded))}</code> shipped with the project); "
            f"nothing is trained here. The verdicts are the claims table's own words, never stronger"
            + (f" (its claims here: {words})" if words else "") + ".</p>"
            f"<p class=\"meta\">Exported {h.escape(exported)} from {PROJECT} {h.escape(ver)}.</p>"
            f"<details><summary>The studies in this file</summary><ul>{items}</ul>"
            + (f"<p>The Lesson reads {h.escape(', '.join(lesson_names))}.</p>" if lesson_names else "")
            + "<p>A slider move swaps figures drawn from the stored runs; to train new settings, use the "
              "dashboard (<code>bash scripts/start.sh</code>).</p></details>")


def _fill(template: str, parts: dict[str, str]) -> str:
    """``{{NAME}}`` -> ``parts[NAME]`` in one pass (inserted text is never read again)."""
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], template)


def script_safe(text: str) -> str:
    """Text inside a <script> element: it cannot close it."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


def build(export: Export, now: dt.datetime | None = None) -> Built:
    store = FigureStore()
    lesson = _lesson(export, store)
    studies = _studies(export, store)
    exported = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    ver = version()
    data = {"meta": {"project": PROJECT, "version": ver, "exported": exported}, "lesson": lesson, "studies": studies,
            "figures": store.entries, "confirmed_head": CONFIRMED_HEAD}
    data_text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    parts = {"TITLE": h.escape(f"{PROJECT}: the Lesson and Explore (recorded runs, exported {exported})"),
             "CSS": (HERE / "takehome.css").read_text(),
             "ABOUT": about(export, studies, exported, ver),
             "DATA": data_text,
             "PLOTLY": script_safe((FRONTEND / PLOTLY_JS).read_text()),
             "JS": script_safe((HERE / "takehome.js").read_text())}
    text = _fill((HERE / "template.html").read_text(), parts)
    figures_bytes = sum(len(json.dumps(e)) for e in store.entries.values())
    sizes = {"plotly.js (cartesian bundle)": len(parts["PLOTLY"].encode()),
             "figures (deduplicated, gzip+base64 where smaller)": figures_bytes,
             "lesson text, numbers and positions": len(data_text.encode()) - figures_bytes,
             "page (template, script, styles, first screen)": len(text.encode()) - len(parts["PLOTLY"].encode())
             - len(data_text.encode())}
    return Built(text, sizes, len(store.entries), store.added, store.raw_bytes,
                 sum(len(s["positions"]) // max(1, len(s["resp_axes"])) for s in studies),
                 data, list(export.damaged))


__all__ = ["Built", "build"]
