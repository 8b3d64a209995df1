"""The plain sentence under a figure says what the figure shows: the axis it names is the axis the
figure has, and its colour words agree with the figure's colour scale.

Checked on the figures students see: Explore on every recorded study in ``assets/recorded`` (each
response axis it offers, both heatmap metrics) and the Geometry page on the recorded pair, each
as the page draws it (``AppTest``), caption and figure read from what the page sends.

- a response plot's and a heatmap's caption names the axes the figure's axis titles name;
- no caption names a study setting the figure does not show (on an axis, or in its legend): the
  m1 response plot's caption may not speak of "α", nor an alpha x local epochs heatmap's of "the
  two margins";
- "blue beats FedAvg" under a heatmap: its colour scale is blue at the better end (higher
  accuracy, lower ratio);
- "brighter / darker cells are pairs that overlap more" under a CDNV matrix: the colour scale's
  high (more overlap) end is the brighter / darker one.
"""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import walk, MAIN, ROOT, switcher

RECORDED = ROOT / "assets" / "recorded"
STUDY_FILES = sorted((RECORDED / "studies").glob("*.json"))
SERIES, REPLICATE = "method", "seed"
# the words a sentence uses for each study setting (what its axis title names, and the loose words)
SETTING_WORDS = {"alpha": ("α", "alpha"), "m1": ("m1", "margins"), "m2": ("m2", "margins"),
                 "local_epochs": ("local epochs",), "beta": ("β",), "num_clients": ("clients",),
                 "participation": ("participation",), "mu": ("μ",)}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", str(text)).replace("_", " ")).lower()


def _mentions(text: str, word: str) -> bool:
    """``word`` in ``text`` as a word of its own (so "m1" is not found in "m12")."""
    return re.search(rf"(?<![\w]){re.escape(word.lower())}(?![\w])", _norm(text)) is not None


def axis_titles(fig: dict) -> list[str]:
    """Every axis title of a plotly spec (subplots too), as shown."""
    out = []
    for key, axis in fig.get("layout", {}).items():
        if re.fullmatch(r"[xy]axis\d*", key) and isinstance(axis, dict):
            title = axis.get("title")
            text = title.get("text") if isinstance(title, dict) else title
            if text:
                out.append(str(text))
    return out


def core(title: str) -> str:
    """What an axis title names, without its trailing remark: "α (evenly spaced)" -> "α"."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", re.sub(r"<[^>]+>", " ", title)).strip()


def shown_text(fig: dict) -> str:
    """The figure's axis titles, legend entries and colour-bar titles together."""
    parts = axis_titles(fig)
    for t in fig.get("data", []):
        if t.get("name") and t.get("showlegend") is not False:
            parts.append(str(t["name"]))
        title = (t.get("colorbar") or {}).get("title")
        if title:
            parts.append(str(title.get("text") if isinstance(title, dict) else title))
    return " | ".join(parts)


def axis_problems(caption: str, fig: dict, settings: list[str], swept: tuple[str, ...]) -> list[str]:
    """What is wrong with the axis words of ``caption`` under ``fig``: the axes in ``swept`` ("x",
    "y") must be named by what their titles name; a study setting the caption names must be on the
    figure (axis title or legend)."""
    out = []
    for letter in swept:
        title = (fig["layout"].get(f"{letter}axis") or {}).get("title") or {}
        named = core(title.get("text") if isinstance(title, dict) else str(title))
        if not named:
            out.append(f"the figure has no {letter} axis title")
        elif not _mentions(caption, named):
            out.append(f"the caption does not name the {letter} axis {named!r}")
    shown = shown_text(fig)
    for setting in settings:
        for word in SETTING_WORDS.get(setting, (setting.replace("_", " "),)):
            if _mentions(caption, word) and not _mentions(shown, word) and not _mentions(shown, setting):
                out.append(f"the caption speaks of {word!r} ({setting}), which the figure does not show "
                           f"(it shows: {shown})")
    return out


# ---- colour scales ----------------------------------------------------------------------------
def _rgb(color: str) -> tuple[float, float, float]:
    color = color.strip()
    if color.startswith("#"):
        h = color.lstrip("#")
        return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
    return tuple(float(p) for p in color[color.index("(") + 1:color.rindex(")")].split(",")[:3])


def _luminance(rgb) -> float:
    def lin(c):
        c = c / 255.0
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def scale_ends(trace: dict) -> tuple[tuple, tuple]:
    """(colour at the lowest value, colour at the highest) of a heatmap trace as plotly draws it."""
    import plotly.colors as pc

    scale = trace["colorscale"]
    scale = sorted(pc.get_colorscale(scale) if isinstance(scale, str) else scale, key=lambda step: float(step[0]))
    lo, hi = _rgb(scale[0][1]), _rgb(scale[-1][1])
    return (hi, lo) if trace.get("reversescale") else (lo, hi)


def heat_trace(fig: dict) -> dict:
    return next(t for t in fig["data"] if t.get("type") == "heatmap")


def heatmap_colour_problems(caption: str, fig: dict) -> list[str]:
    """"blue beats FedAvg" / "red beats ...": that colour is at the better end of the scale."""
    said = re.search(r"\b(blue|red)\b beats", caption, re.IGNORECASE)
    if not said:
        return ["the heatmap caption does not say which colour beats FedAvg"]
    trace = heat_trace(fig)
    title = (trace.get("colorbar") or {}).get("title") or {}
    title = _norm(title.get("text") if isinstance(title, dict) else title)
    higher_better = "accuracy" in title
    lo, hi = scale_ends(trace)
    better = hi if higher_better else lo
    colour = "blue" if better[2] > better[0] else "red"
    if colour != said.group(1).lower():
        return [f"the caption says {said.group(1)} beats FedAvg, but the {'high' if higher_better else 'low'} "
                f"(better) end of the {title!r} scale is {colour} {better}"]
    return []


def shade_problems(caption: str, fig: dict) -> list[str]:
    """"<shade> cells are pairs that overlap more": more overlap = a higher value (CDNV) = that shade."""
    said = re.search(r"\b(dark|darker|light|lighter|bright|brighter)\b[^.;:]*? cells are pairs that overlap more",
                     caption, re.IGNORECASE)
    if not said:
        return ["the CDNV caption does not say which cells overlap more"]
    lo, hi = scale_ends(heat_trace(fig))
    high_is_brighter = _luminance(hi) > _luminance(lo)
    claims_brighter = said.group(1).lower().startswith(("light", "bright"))
    if claims_brighter != high_is_brighter:
        return [f"the caption says {said.group(1)} cells overlap more, but the colour scale's high end {hi} is "
                f"{'brighter' if high_is_brighter else 'darker'} than its low end {lo}"]
    return []


# ---- Explore on every recorded study ----------------------------------------------------------
def _explore_views() -> list[tuple[str, str, str]]:
    """(study, response axis, heatmap metric) for every recorded study: each response axis it offers
    (one view without when it has no slider), both heatmap metrics for a two-axis study."""
    out = []
    for path in STUDY_FILES:
        study = json.loads(path.read_text())
        axes = [a for a, v in study["axes"].items() if a not in (SERIES, REPLICATE) and len(v) > 1]
        metrics = ["final_ratio", "final_acc"] if len(axes) >= 2 else [""]
        out += [(study["name"], axis, hm) for axis in (axes or [""]) for hm in metrics]
    return out


def _panels(at: AppTest) -> dict[str, tuple[dict | None, str]]:
    args = switcher(at)
    key = "|".join(f"{a['key']}={args['value'][a['key']]}" for a in args["layout"]["axes"])
    return {slot: (json.loads(args["figures"][p["fid"]]) if p["fid"] else None, p.get("caption") or "")
            for slot, p in args["positions"][key]["panels"].items()}


@pytest.fixture
def recorded_store(monkeypatch, tmp_path):
    if not STUDY_FILES:
        pytest.skip("no recorded studies in assets/recorded")
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(RECORDED))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))


@pytest.mark.parametrize("study,resp,hm", _explore_views())
def test_explore_captions_name_the_axes_their_figures_have(recorded_store, study, resp, hm):
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.query_params["x_study"] = f"recorded:{study}"
    if resp:
        at.query_params["x_resp"] = resp
    if hm:
        at.query_params["x_hm"] = hm
    at.run()
    if [t.value for t in at.title] != ["Explore"]:
        at.switch_page("views/explore.py").run()
    assert not at.exception, at.exception
    settings = [a for a in json.loads((RECORDED / "studies" / f"{study}.json").read_text())["axes"]
                if a not in (SERIES, REPLICATE)]
    problems, checked = [], set()
    for slot, (fig, caption) in _panels(at).items():
        if fig is None:
            continue
        swept = ("x", "y") if slot == "heat" else ("x",) if slot.endswith("_resp") else ()
        found = axis_problems(caption, fig, settings, swept)
        if slot == "heat":
            found += heatmap_colour_problems(caption, fig)
        problems += [f"{slot}: {p}" for p in found]
        checked.add(slot)
    if resp:
        assert {"acc_resp", "ratio_resp", "rank_resp"} <= checked, checked
    if hm:
        assert "heat" in checked, checked
    assert not problems, "\n".join(problems)


# ---- Geometry on the recorded pair ------------------------------------------------------------
_walk = walk  # the shared helper (app_helpers)


def figures_and_captions(at: AppTest) -> list[tuple[str, dict, str]]:
    """(widget key, plotly spec, the caption right after it) for every chart of the page, in order."""
    out, last = [], None
    for el in _walk(at.main):
        if el.type == "plotly_chart":
            last = [el.proto.id.rsplit("-", 1)[-1], json.loads(el.proto.spec), ""]
            out.append(last)
        elif el.type == "caption" and last is not None and not last[2]:
            last[2] = el.value
    return [tuple(x) for x in out]


def test_geometry_captions_agree_with_their_figures(recorded_store):
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.run()
    at.switch_page("views/geometry.py").run()
    assert not at.exception, at.exception
    charts = figures_and_captions(at)
    cdnv = [c for c in charts if c[0].startswith("g_cdnv")]
    assert len(cdnv) == 2, [c[0] for c in charts]  # the recorded pair, side by side
    problems = []
    for key, fig, caption in charts:
        assert caption, f"{key}: no caption under the figure"
        found = axis_problems(caption, fig, list(SETTING_WORDS), ())
        if key.startswith("g_cdnv"):
            found += shade_problems(caption, fig)
        problems += [f"{key}: {p}" for p in found]
    assert not problems, "\n".join(problems)


# ---- the checks themselves can fail ----------------------------------------------------------
def test_the_checks_catch_the_old_wrong_captions():
    """The captions these tests replaced, against figures like the pages': each is caught."""
    m1_resp = {"layout": {"xaxis": {"title": {"text": "margin m1"}}, "yaxis": {"title": {"text": "final accuracy"}}},
               "data": [{"name": "FedAvg"}, {"name": "FedQuad"}]}
    old = "Each dot is the final accuracy at one α; the shaded band shows how much the seeds disagree."
    assert axis_problems(old, m1_resp, ["m1", "m2"], ("x",))
    heat = {"layout": {"xaxis": {"title": {"text": "α (evenly spaced)"}}, "yaxis": {"title": {"text": "local epochs"}}},
            "data": [{"type": "heatmap", "colorscale": "RdBu_r", "colorbar": {"title": {"text": "final intra/inter"}}}]}
    old = "Each cell is one setting of the two margins; blue beats FedAvg, red does worse."
    assert axis_problems(old, heat, ["alpha", "local_epochs"], ("x", "y"))
    assert not heatmap_colour_problems(old, heat)  # RdBu_r: blue at the low (better) ratio end
    assert heatmap_colour_problems(old.replace("blue beats", "red beats"), heat)
    viridis = {"layout": {}, "data": [{"type": "heatmap", "colorscale": "Viridis", "colorbar": {"title": {"text": "CDNV"}}}]}
    assert shade_problems("How easily two classes are confused: darker cells are pairs that overlap more.", viridis)
    assert not shade_problems("Brighter (yellow) cells are pairs that overlap more.", viridis)


def test_no_caption_is_hidden_behind_an_earlier_prefix():
    """``plain`` takes the first matching prefix: "x_spec" before "x_spectra" gave the spectra-across-α
    figure the one-run spectrum's sentence."""
    from app.figures.captions import CAPTIONS

    for i, (prefix, text) in enumerate(CAPTIONS):
        earlier = [p for p, _ in CAPTIONS[:i] if prefix.startswith(p)]
        assert not earlier, f"{prefix!r}'s sentence is never used: {earlier[0]!r} comes first"
