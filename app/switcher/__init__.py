"""The switcher: a page section whose figures depend on slider positions, drawn in the browser.

The page hands over its sliders (``Axis``), the section's layout (``Section``: rows of slot
names) and, for the current position and its neighbours, each slot's figure and caption
(``Position`` of ``Panel``). The browser (``frontend/switcher.js``, one iframe with Plotly) draws
the sliders and the figures, keeps every figure it has drawn, and on a slider move only swaps
which one is visible: no server round trip before the page shows the new position. The move is
then sent back (``on_change``) so the server follows: the link, the download menus, and the
neighbours of the new position. A figure that does not change along a move (a response plot
along its own axis) has the same id and is not drawn again.

The served folder (``index.html``, ``switcher.js``, ``switcher.css`` and plotly.js) is assembled
once in a cache folder. The plotly.js is its cartesian bundle (``frontend/plotly-cartesian.min.js``:
npm's ``plotly.js-cartesian-dist-min``, MIT, the version the plotly package bundles, which a test
holds equal): 1.5 MB against the full bundle's 4.8 MB, which a fresh browser spent about a second
of the first page evaluating (docs/performance.md). It draws the trace types in ``TRACE_TYPES``;
a figure with another type is refused here, by name, before the browser could draw it blank.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import plotly.io as pio
import streamlit as st
import streamlit.components.v1 as components

from app.figures.palette import TALK_WIDTH

FRONTEND = Path(__file__).with_name("frontend")
PLOTLY_JS = "plotly-cartesian.min.js"
FILES = ("index.html", "switcher.js", "switcher.css", PLOTLY_JS)
# what the cartesian bundle draws (its README: "Contains trace modules ...")
TRACE_TYPES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour", "image",
                         "pie", "scatter", "scatterternary", "violin"})


@dataclass
class Axis:
    key: str            # the axis (e.g. "alpha"); positions are {key: option}
    label: str          # shown above the slider
    options: list[str]  # the grid's values as shown, in slider order
    state_key: str      # the session_state key that holds this axis' option


@dataclass
class Section:
    rows: list[list[str]]        # slot names, one list a row
    heading: str | None = None
    columns: int | None = None   # grid columns (default: the row's length)
    key: list[tuple[str, str]] | None = None  # (name, colour): one colour key for the row's figures


@dataclass
class Panel:
    slot: str
    fig: Any = None              # a plotly Figure, or None: the caption alone (e.g. "no snapshot")
    caption: str | None = None
    data: Any = None             # the plotted numbers, for the CSV download
    name: str = ""               # download file stem
    title: str = ""              # the figure's name in the download picker

    @functools.cached_property
    def spec(self) -> str:
        other = sorted({t.type or "scatter" for t in self.fig.data} - TRACE_TYPES)
        if other:
            raise ValueError(f"figure {self.title or self.name or self.slot!r}: trace type(s) {other} are not in the "
                             f"figure switcher's plotly.js bundle ({PLOTLY_JS}: {sorted(TRACE_TYPES)})")
        return pio.to_json(self.fig, validate=False)

    @functools.cached_property
    def fid(self) -> str:
        return hashlib.sha1(self.spec.encode()).hexdigest()[:16]


@dataclass
class Position:
    value: dict[str, str]
    panels: list[Panel] = field(default_factory=list)
    notice: str = ""


def pos_key(axes: list[Axis], value: dict[str, str]) -> str:
    return "|".join(f"{a.key}={value[a.key]}" for a in axes)


@functools.cache
def served_dir() -> str:
    """The folder Streamlit serves the component from: the frontend files (plotly.js among them),
    copied once per version of them into a cache folder (the checkout may be read-only)."""
    tag = hashlib.sha1(b"".join((FRONTEND / f).read_bytes() for f in FILES)).hexdigest()[:12]
    for base in (os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", tempfile.gettempdir()):
        target = Path(base) / "fedquad-lab" / f"switcher-{tag}"
        try:
            if not (target / PLOTLY_JS).exists():
                Path(base).mkdir(parents=True, exist_ok=True)
                tmp = Path(tempfile.mkdtemp(dir=base))
                for f in FILES:
                    shutil.copyfile(FRONTEND / f, tmp / f)
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    tmp.rename(target)  # whole or not at all; another process may have won
                except OSError:
                    shutil.rmtree(tmp, ignore_errors=True)
            return str(target)
        except OSError:
            continue
    raise OSError("no writable cache folder for the figure switcher (set XDG_CACHE_HOME)")


@functools.cache
def _component():
    return components.declare_component("fedquad_switcher", path=served_dir())


def _moved(key: str, axes: list[Axis], seq_key: str, near_key: str, study: str) -> None:
    """A move in the browser: the positions (only options of the grid) into session_state."""
    v = st.session_state.get(key)
    if not isinstance(v, dict):
        return
    pos = v.get("pos") if isinstance(v.get("pos"), dict) else {}
    for a in axes:
        if pos.get(a.key) in a.options:
            st.session_state[a.state_key] = pos[a.key]
    if isinstance(v.get("seq"), int):
        st.session_state[seq_key] = v["seq"]
    if v.get("near"):
        st.session_state[near_key] = study


def wants_neighbours(key: str, study: str) -> bool:
    """Whether the browser has drawn this study's section and asked for the neighbours."""
    return st.session_state.get(f"{key}__near") == study


def neighbours(axes: list[Axis], value: dict[str, str], reach: int = 2) -> list[dict[str, str]]:
    """The positions up to ``reach`` grid steps away along one axis, nearest first."""
    out = []
    for step in range(1, reach + 1):
        for a in axes:
            i = a.options.index(value[a.key])
            out += [{**value, a.key: a.options[j]} for j in (i - step, i + step) if 0 <= j < len(a.options)]
    return out


def ready_positions(axes: list[Axis], value: dict[str, str]) -> list[dict[str, str]]:
    """What the browser should hold besides ``value``: the positions up to two steps away along
    one axis, so the next move or two are a swap however fast the user goes (drawing ahead costs
    the browser ~50-100 ms a figure, so not the whole grid at once)."""
    return neighbours(axes, value)


def show(key: str, study: str, axes: list[Axis], sections: list[Section], positions: list[Position],
         value: dict[str, str], *, talk: bool, bare: bool = False) -> None:
    """Draw the section. ``positions`` holds the current one (``value``) and whichever others the
    browser should have ready; ``study`` names what the layout belongs to (a new one rebuilds). The
    sliders are drawn in every mode (presenter mode too: α, m1, m2 are moved during a talk).
    ``bare``: no Plotly toolbar over the figures (talk and presenter mode)."""
    seq_key, near_key = f"{key}__seq", f"{key}__near"
    figures: dict[str, str] = {}
    out: dict[str, dict] = {}
    for p in positions:
        panels = {}
        for panel in p.panels:
            if panel.fig is not None:
                figures[panel.fid] = panel.spec
            panels[panel.slot] = {"fid": panel.fid if panel.fig is not None else None, "caption": panel.caption or ""}
        out[pos_key(axes, p.value)] = {"notice": p.notice, "panels": panels}
    layout = {"axes": [{"key": a.key, "label": a.label, "options": a.options} for a in axes],
              "sections": [{"heading": s.heading, "rows": s.rows, "columns": s.columns, "key": s.key}
                           for s in sections],
              # talk mode: no grid column narrower than talk figures are laid out for (rows wrap instead)
              "min_width": TALK_WIDTH if talk else 0}
    layout["sig"] = hashlib.sha1(json.dumps([study, layout, talk]).encode()).hexdigest()[:16]
    args = {"layout": layout, "value": value, "seq": st.session_state.get(seq_key, 0), "positions": out,
            "talk": talk, "bare": bare, "near": wants_neighbours(key, study)}
    args["rev"] = hashlib.sha1(json.dumps([args, sorted(figures)], sort_keys=True).encode()).hexdigest()[:16]
    args["figures"] = figures
    _component()(**args, key=key, default=None, on_change=functools.partial(_moved, key, axes, seq_key, near_key, study))
