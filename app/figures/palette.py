"""The palette: colours, fonts and sizes of every figure, per mode (the everyday dashboard look and
"talk" mode), and the page's style around them. Nothing here lays text out: that is
``app.figures.fit`` (whose one entry point, ``fit``, every figure goes through).

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
# Ten clearly distinct class colours. Normal: D3 / Tableau "category10" (no two neighbours share a
# hue family, unlike plotly's default where 0/3, 1/6 and 6/8 blur on a projector). Talk (the
# projector): ten of Okabe & Ito's and Paul Tol's colour-blind-safe colours chosen for the largest
# smallest CIELAB distance, ΔE*ab at least 38 between any two (Okabe-Ito's eight plus two had 26:
# its two blues, its oranges and yellow, its two pinks looked alike on a projector), at least 19
# under simulated deuteranopia and protanopia, and at least 40 from the white background (the
# weakest, sand, last); tests/app/figures/test_figures.py measures all three.
CATEGORY10 = ("#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
              "#BCBD22", "#17BECF")
TALK_CLASSES = ("#332288", "#E69F00", "#228833", "#EE3377", "#56B4E9", "#661100", "#000000", "#009988",
                "#AA4499", "#DDCC77")
# Different dashes / bar patterns for runs that share a method (and so a colour).
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
PATTERNS = ("", "/", "x", ".", "\\", "+")
TEXT = "#1A1A1A"          # normal look: near-black text (plotly_white's default is a light slate)
GRID = "#E3E6EB"
_FALLBACK = tuple(pc.qualitative.Dark24)
_TALK_FALLBACK = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#999999")


def _lean_template(name: str) -> go.layout.Template:
    """A built-in template reduced to its layout and the trace types used here: assigning the
    full one deep-copies defaults for two dozen trace types (~20 ms a figure)."""
    full = pio.templates[name]
    data = {k: full.data[k] for k in ("scatter", "scattergl", "bar", "heatmap")}
    return go.layout.Template(layout=full.layout, data=data)


_TEMPLATES = {False: _lean_template("plotly_white"), True: _lean_template("simple_white")}
_TEMPLATE_JSON = {k: t.to_plotly_json() for k, t in _TEMPLATES.items()}

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
        return list((TALK_CLASSES if talk else CATEGORY10)[:n])
    sampled = pc.sample_colorscale("Turbo", [0.03 + 0.94 * i / (n - 1) for i in range(n)])
    hexes = [_to_hex(c) for c in sampled]
    stride = next(s for s in (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 1) if n % s)
    return [hexes[(i * stride) % n] for i in range(n)]


def run_styles(methods, talk: bool = False) -> list[tuple[str, int]]:
    """(colour, variant) per run, in order: the colour of the run's method, and how many earlier
    runs share that method (0 for the first), to pick a dash or bar pattern that tells them apart."""
    seen: dict[str, int] = {}
    out = []
    for m in methods:
        key = str(m).lower()
        out.append((method_color(key, talk), seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
    return out


def _to_hex(color: str) -> str:
    r, g, b = pc.unlabel_rgb(color) if color.startswith("rgb") else pc.hex_to_rgb(color)
    return "#{:02X}{:02X}{:02X}".format(round(r), round(g), round(b))


# ---- sizes, per mode (False: the dashboard, True: talk) ------------------------------------------
LEGEND_ROW = {False: 22, True: 30}  # px per legend row
DEFAULT_HEIGHT = {False: 450, True: 460}  # talk: under a step's takeaway, whole inside 720 px (presenter bar included)
MIN_PLOT_HEIGHT = {False: 200, True: 200}  # px the plot area keeps under a title and legend of many rows
BOTTOM = {False: 56, True: 70}             # the bottom margin (x ticks and title) unless a figure sets its own
ASSUMED_WIDTH = 420                  # px a figure gets in a half-width column of the wide layout (1280 px, sidebar open)
# talk mode: a third of the page (the Lesson's three columns at 1600 px, or at 1280 px with the sidebar
# collapsed: about 395 px). The page never gives a talk figure less: a column holding one keeps at
# least this width (``TALK_CSS``; the switcher's grid likewise), so where a third is narrower (1280 px
# with the sidebar open: about 295 px) a row of three wraps into two and one instead of squeezing.
TALK_WIDTH = 360


CHAR = 0.6   # a character's width, in font sizes (generous: the widest of the fonts in use)
LINE = 1.3   # a line of text's height, in font sizes
SIDE_MARGINS = {False: 84, True: 110}  # l + r of the look's margins
# the look's fonts (px): base text, legend entries, the figure's title, tick labels; ``TOP``: the
# least top margin (px)
FONT = {False: 14, True: 20}
LEGEND_FONT = {False: 13, True: 18}
TITLE_FONT = {False: 17, True: 24}
TICK_FONT = {False: 13, True: 20}
TOP = {False: 24, True: 30}
# a figure drawn in its box on a deck page (``fit(..., page=True)``): laid out at 1.25 px per point
# of the box, in these fonts (16, 19, 14.4, 14.4 pt on the page), no text under ``PAGE_MIN_TEXT_PX``
# (14.4 pt)
PX_PER_PT = 1.25
PAGE_FONT_PX = {"font": 20, "title": 24, "tick": 18, "legend": 18}
PAGE_MIN_TEXT_PX = 18


def talk_width(width) -> float:
    """A line's width in talk mode: main lines (2 px and up, or unset) at least 4 px, thin ones
    (a run's single seed) 1.6 times as thick, and no line (width 0: a band's outline) stays none."""
    if width is None:
        return 4
    if width == 0:
        return 0
    return max(width, 4) if width >= 2 else width * 1.6


# ---- the page around the figures ------------------------------------------------------------
TALK_CSS = """<style>
.stApp, [data-testid="stSidebar"], [data-testid="stHeader"] {background: #ffffff !important; color: #111 !important;}
.stApp p, .stApp li, .stApp label {font-size: 1.2rem;}
.stApp h1 {font-size: 2.6rem;} .stApp h2 {font-size: 2.1rem;} .stApp h3 {font-size: 1.7rem;}
[data-testid="stMainBlockContainer"] {padding-left: 2rem !important; padding-right: 2rem !important; padding-top: 3.5rem !important;}
[data-testid="stHeader"] {background: transparent !important;}
.fq-step-title {font-size: 1.9rem; font-weight: 700; line-height: 1.2;} .fq-step-of {font-size: 1.1rem; font-weight: 400; color: #555;}
.fq-takeaway {font-size: 1.25rem; line-height: 1.25; margin: 0.1rem 0 0.3rem 0;}
.fq-confirmed {font-size: 0.95rem; line-height: 1.2; color: #333; margin: 0 0 0.3rem 0;}
[data-testid="stColumn"]:has([data-testid="stPlotlyChart"], .js-plotly-plot) {min-width: min(100%, TALK_WIDTHpx) !important;}
.modebar-container {display: none !important;}
</style>""".replace("TALK_WIDTH", str(TALK_WIDTH))  # a column holding a figure: never under the width it is laid out for
PRESENTER_CSS = """<style>
[data-testid="stToolbar"], [data-testid="stDecoration"], footer {display: none !important;}
.modebar-container {display: none !important;}
</style>"""


def page_css(talk: bool, presenter: bool) -> list[str]:
    """The style blocks of the page in talk mode (white, large fonts) and presenter mode (no chrome)."""
    return ([TALK_CSS] if talk else []) + ([PRESENTER_CSS] if presenter else [])
