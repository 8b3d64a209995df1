"""Colours and the two looks of every figure: the everyday dashboard look and "talk" mode.

FedAvg (warm vermillion) and FedQuad (strong blue) are the pair shown side by side, so they get
the two most distinct hues. Talk mode uses the Okabe-Ito palette (Okabe & Ito 2008), which stays
distinguishable under the common colour-vision deficiencies, on a white background with large
fonts, thick lines and big markers.
"""
from __future__ import annotations

import zlib

import plotly.colors as pc
import plotly.graph_objects as go
import plotly.io as pio

METHOD_COLORS: dict[str, str] = {
    "fedavg": "#E4572E", "fedprox": "#F3A712", "moon": "#8E44AD", "supcon": "#2CA02C",
    "triplet": "#8C564B", "quadruplet": "#E377C2", "fedquad": "#1F5FBF",
}
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
TALK_METHOD_COLORS: dict[str, str] = {
    "fedavg": "#D55E00", "fedprox": "#E69F00", "moon": "#CC79A7", "supcon": "#009E73",
    "triplet": "#56B4E9", "quadruplet": "#000000", "fedquad": "#0072B2",
}
# Paul Tol's "muted" scheme: ten colour-blind-safe class colours for talk mode.
TOL_MUTED = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255",
             "#AA4499", "#777777")
_FALLBACK = tuple(pc.qualitative.Dark24)
_TALK_FALLBACK = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#999999")




def _lean_template(name: str) -> go.layout.Template:
    """A built-in template reduced to its layout and the trace types used here: assigning the
    full one deep-copies defaults for two dozen trace types (~20 ms a figure)."""
    full = pio.templates[name]
    data = {k: full.data[k] for k in ("scatter", "scattergl", "bar", "heatmap")}
    return go.layout.Template(layout=full.layout, data=data)


_TEMPLATES = {False: _lean_template("plotly_white"), True: _lean_template("simple_white")}


def method_color(name: str, talk: bool = False) -> str:
    """The method's hex colour; unknown names get a fixed colour derived from the name."""
    key = str(name).lower()
    table = TALK_METHOD_COLORS if talk else METHOD_COLORS
    if key in table:
        return table[key]
    palette = _TALK_FALLBACK if talk else _FALLBACK
    return palette[zlib.crc32(key.encode()) % len(palette)]


def class_colors(n: int, talk: bool = False) -> list[str]:
    """``n`` distinct hex colours, one per class.

    Up to ten classes get a qualitative palette; more are sampled evenly from the Turbo scale
    and visited with a stride, so classes with neighbouring indices get far-apart hues.
    """
    if n <= 0:
        return []
    if n <= 10:
        return list(TOL_MUTED[:n] if talk else pc.qualitative.Plotly[:n])
    sampled = pc.sample_colorscale("Turbo", [0.03 + 0.94 * i / (n - 1) for i in range(n)])
    hexes = [_to_hex(c) for c in sampled]
    stride = next(s for s in (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 1) if n % s)
    return [hexes[(i * stride) % n] for i in range(n)]


def _to_hex(color: str) -> str:
    r, g, b = pc.unlabel_rgb(color) if color.startswith("rgb") else pc.hex_to_rgb(color)
    return "#{:02X}{:02X}{:02X}".format(round(r), round(g), round(b))


def apply_theme(fig: go.Figure, talk: bool = False) -> go.Figure:
    """Style ``fig`` in place and return it (normal: clean white; talk: big, bold, white)."""
    if not talk:
        fig.layout.template = _TEMPLATES[False]
        fig.update_layout(font=dict(size=13), title_font=dict(size=16),
                          margin=dict(l=60, r=20, t=50 if fig.layout.title.text else 20, b=50))
        return fig
    fig.layout.template = _TEMPLATES[True]
    fig.update_layout(font=dict(size=20), title_font=dict(size=24),
                      legend=dict(font=dict(size=18)), margin=dict(l=80, r=30, t=70, b=70))
    fig.update_xaxes(linewidth=2, ticks="outside", tickwidth=2)
    fig.update_yaxes(linewidth=2, ticks="outside", tickwidth=2)
    for trace in fig.data:
        if trace.type not in ("scatter", "scattergl"):
            continue
        mode = trace.mode or "lines"
        if "lines" in mode:
            trace.line.width = max(trace.line.width or 2, 4)
        if "markers" in mode:
            size = trace.marker.size
            if size is None or isinstance(size, (int, float)):
                trace.marker.size = (size or 6) * 1.6
    return fig
