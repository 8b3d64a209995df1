"""The grey "no difference beyond seed noise" columns of the response plots: as visible in talk mode
(white background, for a projector) as in the everyday look, and named in the legend.

The colour a viewer sees is computed from the figure itself: the column's fill (with its alpha),
the shape's opacity (its own, else the template's default for shapes: talk mode's simple_white
template dims shapes to 0.3, which had made the columns RGB ~249 on white) composited over the
plot area's colour (the layout's, else the template's); contrast is WCAG 2's ratio of relative
luminances."""
from __future__ import annotations

import pandas as pd
import plotly.colors as pc
import pytest

from app.figures import study as sf


def _points() -> pd.DataFrame:
    """FedAvg and FedQuad far apart at alpha 0.1 (any test calls that beyond seed noise) and the
    same within their spread at IID (none does)."""
    acc = {("fedavg", 0.1): [0.60, 0.61, 0.62, 0.61], ("fedquad", 0.1): [0.80, 0.81, 0.82, 0.81],
           ("fedavg", None): [0.90, 0.94, 0.91, 0.93], ("fedquad", None): [0.91, 0.93, 0.92, 0.94]}
    return pd.DataFrame([{"alpha": a, "method": m, "seed": s, "state": "finished", "final_acc": v, "run_id": f"{m}{a}{s}"}
                         for (m, a), vals in acc.items() for s, v in enumerate(vals)])


def _rgba(color) -> tuple[float, float, float, float]:
    color = str(color).strip().lower()
    named = {"white": (255, 255, 255), "black": (0, 0, 0)}
    if color in named:
        return (*named[color], 1.0)
    if color.startswith("#"):
        return (*pc.hex_to_rgb(color), 1.0)
    inside = color[color.index("(") + 1:color.rindex(")")]
    parts = [float(p) for p in inside.split(",")]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-255 channels)."""
    def lin(c):
        c = c / 255.0
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def seen(fig, shape) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(the column's colour as drawn, the plot area's colour) of ``shape`` in ``fig``."""
    template = fig.layout.template.layout
    bg = _rgba(fig.layout.plot_bgcolor or template.plot_bgcolor or "white")[:3]
    r, g, b, alpha = _rgba(shape.fillcolor)
    opacity = shape.opacity if shape.opacity is not None else (
        template.shapedefaults.opacity if template.shapedefaults.opacity is not None else 1.0)
    a = alpha * opacity
    return tuple(a * c + (1 - a) * k for c, k in zip((r, g, b), bg)), bg


def overlap_columns(fig) -> list:
    return [s for s in fig.layout.shapes if s.type == "rect" and not (s.label and s.label.text)]


def figure(talk: bool):
    resp = sf.aggregate(_points(), ["method", "alpha"], ["final_acc"])
    return sf.response_figure(resp, "alpha", "final_acc", all_values=[0.1, None], talk=talk)


def test_the_talk_mode_columns_contrast_with_their_background_at_least_as_much_as_normal_modes():
    measured = {}
    for talk in (False, True):
        fig = figure(talk)
        columns = overlap_columns(fig)
        assert len(columns) == 1, f"talk={talk}: one overlap column expected (IID), got {len(columns)}"
        measured[talk] = contrast(*seen(fig, columns[0]))
    assert measured[False] > 1.0  # the normal look's column is visible at all
    assert measured[True] >= measured[False], (
        f"talk mode's grey columns contrast {measured[True]:.3f}:1 with the background, "
        f"less than the normal look's {measured[False]:.3f}:1")


@pytest.mark.parametrize("talk", [False, True])
def test_the_grey_columns_have_a_legend_entry_in_their_colour(talk):
    fig = figure(talk)
    entry = [t for t in fig.data if (t.name or "").replace("<br>", " ") == sf.OVERLAP_LABEL]  # (broken to fit in talk mode)
    assert len(entry) == 1 and entry[0].showlegend is not False
    assert entry[0].marker.color == overlap_columns(fig)[0].fillcolor
    # no overlap anywhere: no columns and no legend entry for them
    apart = _points().query("alpha == 0.1")
    fig = sf.response_figure(sf.aggregate(apart, ["method", "alpha"], ["final_acc"]), "alpha", "final_acc", talk=talk)
    assert not overlap_columns(fig) and not [t for t in fig.data if t.name == sf.OVERLAP_LABEL]


if __name__ == "__main__":  # the numbers for the report
    for talk in (False, True):
        fig = figure(talk)
        col, bg = seen(fig, overlap_columns(fig)[0])
        print(f"talk={talk}: column RGB {tuple(round(c, 1) for c in col)} on {bg}, luminance "
              f"{_luminance(col):.3f} vs {_luminance(bg):.3f}, contrast {contrast(col, bg):.3f}:1")
