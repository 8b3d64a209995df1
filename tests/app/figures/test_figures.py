"""The dashboard's figure builders and theme: the data in each figure, checked directly."""
from __future__ import annotations

import math

import numpy as np
import pytest

from app.figures import charts as figures
from app.figures.fit import fit as apply_theme
from app.figures.palette import METHOD_COLORS, class_colors, method_color


def _rows(n_rounds, acc_step, ratio_every=None):
    rows = []
    for r in range(1, n_rounds + 1):
        row = {"round": r, "test_accuracy": acc_step * r, "train_loss": 1.0 / r, "samples_total": 100 * r,
               "elapsed": 1.5 * r}
        if ratio_every:
            row["ratio"] = 0.5 / r if r % ratio_every == 0 else None
        rows.append(row)
    return rows


@pytest.fixture
def frame():
    rows = {"a": _rows(6, 0.1, ratio_every=2), "b": _rows(6, 0.05, ratio_every=3), "c": _rows(6, 0.02)}
    meta = {"a": {"label": "FedAvg a", "method": "fedavg"}, "b": {"label": "FedQuad", "method": "fedquad"},
            "c": {"label": "FedAvg c", "method": "fedavg"}}
    return figures.metrics_frame(rows, meta)


def test_metrics_frame_is_long_with_base_columns_and_nan_for_missing(frame):
    assert list(frame.columns[:6]) == ["run", "label", "method", "round", "samples_total", "elapsed"]
    assert len(frame) == 18 and frame["ratio"].dtype == float
    assert frame.loc[(frame.run == "a") & (frame["round"] == 1), "ratio"].isna().all()
    assert frame.loc[frame.run == "c", "ratio"].isna().all()
    empty = figures.metrics_frame({}, {})
    assert list(empty.columns) == ["run", "label", "method", "round", "samples_total", "elapsed"]


def test_curves_one_trace_per_run_coloured_by_method_dash_varies_within_method(frame):
    fig = figures.curves_figure(frame, "test_accuracy")
    assert [t.name for t in fig.data] == ["FedAvg a", "FedQuad", "FedAvg c"]
    assert [t.line.color for t in fig.data] == [method_color("fedavg"), method_color("fedquad"), method_color("fedavg")]
    assert [t.line.dash for t in fig.data] == ["solid", "solid", "dash"]
    np.testing.assert_allclose(fig.data[0].y, [0.1 * r for r in range(1, 7)])
    assert fig.layout.yaxis.tickformat == ".0%" and fig.layout.xaxis.title.text == "round"


def test_curves_skip_missing_snapshot_values_and_connect_gaps(frame):
    fig = figures.curves_figure(frame, "ratio", "samples_total")
    assert list(fig.data[0].x) == [200, 400, 600] and list(fig.data[1].x) == [300, 600]
    assert len(fig.data[2].x) == 0 and all(t.connectgaps for t in fig.data)
    assert fig.layout.xaxis.title.text == "samples processed"
    assert "intra / inter" in fig.layout.yaxis.title.text


@pytest.mark.parametrize("x, title", [("round", "round"), ("samples_total", "samples processed"),
                                      ("elapsed", "wall time (s)")])
def test_curves_x_axis_titles(frame, x, title):
    assert figures.curves_figure(frame, "train_loss", x).layout.xaxis.title.text == title


def test_curves_reject_unknown_x_and_label_percent_accuracy(frame):
    with pytest.raises(ValueError, match="x must be one of"):
        figures.curves_figure(frame, "train_loss", "epoch")
    pct = frame.assign(test_accuracy=frame.test_accuracy * 100)
    assert figures.curves_figure(pct, "test_accuracy").layout.yaxis.title.text == "test accuracy (%)"


def test_partition_heatmap_z_equals_counts_and_lt3_clients_marked():
    counts = np.array([[5, 0, 0, 0], [1, 2, 3, 4], [0, 7, 1, 0], [2, 2, 2, 0]])
    fig = figures.partition_heatmap(counts, class_names=["a", "b", "c", "d"])
    heat, marks = fig.data
    np.testing.assert_array_equal(np.asarray(heat.z), counts)
    assert list(heat.x) == ["a", "b", "c", "d"] and "samples" in heat.hovertemplate
    assert list(marks.y) == [0, 2] and marks.marker.color == "#D62728" and "(2)" in marks.name
    assert list(fig.layout.xaxis.categoryarray)[-1] == "< 3 classes"
    given = figures.partition_heatmap(counts, lt3_mask=[False, True, False, False])
    assert list(given.data[1].y) == [1]


def test_client_sizes_bars_sum_counts_and_lt3_bars_have_own_colour_and_legend():
    counts = np.array([[5, 0, 0], [1, 2, 3], [0, 7, 1], [2, 2, 2]])
    fig = figures.client_sizes_figure(counts)
    ok, lt3 = fig.data
    assert list(ok.x) == [1, 3] and list(ok.y) == [6, 6]
    assert list(lt3.x) == [0, 2] and list(lt3.y) == [5, 8]
    assert lt3.marker.color != ok.marker.color and lt3.name.startswith("< 3 classes")


def test_embedding_scatter_traces_per_class_equal_aspect_no_ticks():
    rng = np.random.default_rng(0)
    xy, labels = rng.normal(size=(90, 2)), np.repeat([0, 1, 2], 30)
    fig = figures.embedding_scatter(xy, labels, ["cat", "dog", "owl"])
    assert [t.name for t in fig.data] == ["cat", "dog", "owl"]
    assert [t.marker.color for t in fig.data] == class_colors(3)
    np.testing.assert_allclose(fig.data[1].x, xy[30:60, 0])
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    assert fig.layout.xaxis.showticklabels is False and fig.layout.yaxis.showticklabels is False


def test_cdnv_heatmap_blank_diagonal_log_scale_raw_values_in_hover():
    cdnv = np.array([[0.0, 0.01, 5e4], [0.01, 0.0, 2.0], [5e4, 2.0, 0.0]])
    heat = figures.cdnv_heatmap(cdnv, ["a", "b", "c"], zrange=(-3.0, 2.0)).data[0]
    z = np.asarray(heat.z, dtype=float)
    assert np.isnan(np.diag(z)).all()
    assert z[0, 1] == pytest.approx(-2.0) and z[1, 2] == pytest.approx(math.log10(2.0))
    assert z[0, 2] == 2.0  # clipped at 100
    assert np.asarray(heat.customdata, dtype=float)[0, 2] == 5e4
    assert (heat.zmin, heat.zmax) == (-3.0, 2.0)


def test_cdnv_colour_range_fits_the_data_and_is_shared():
    rng = np.random.default_rng(0)
    a, b = np.exp(rng.normal(-3.0, 1.0, (10, 10))), np.exp(rng.normal(-1.0, 1.0, (10, 10)))
    np.fill_diagonal(a, 0.0)
    np.fill_diagonal(b, 0.0)
    lo, hi = figures.cdnv_log_range(a)
    off = np.log10(a[~np.eye(10, dtype=bool)])
    assert lo == pytest.approx(np.percentile(off, 2)) and hi == pytest.approx(np.percentile(off, 98))
    heat = figures.cdnv_heatmap(a).data[0]  # fitted by default: the values spread over the colours
    assert (heat.zmin, heat.zmax) == pytest.approx((lo, hi))
    shared = figures.cdnv_log_range(a, b)
    both = np.concatenate([off, np.log10(b[~np.eye(10, dtype=bool)])])
    assert shared == pytest.approx((np.percentile(both, 2), np.percentile(both, 98)))
    assert shared[1] > hi  # b's larger values are inside the shared range
    for m in (a, b):  # both heatmaps of a comparison on one scale
        heat = figures.cdnv_heatmap(m, zrange=shared).data[0]
        assert (heat.zmin, heat.zmax) == shared
    assert figures.cdnv_log_range(np.zeros((3, 3))) == (-3.0, 2.0)  # nothing to fit
    narrow = figures.cdnv_log_range(np.full((3, 3), 0.5))
    assert narrow[1] - narrow[0] == pytest.approx(0.5)  # widened to half a decade


def test_spectrum_sorted_descending_on_log_axis_with_given_colours():
    fig = figures.spectrum_figure({"fedavg": np.array([0.1, 3.0, 1.0, 0.0])}, colors={"fedavg": "#123456"})
    y = np.asarray(fig.data[0].y, dtype=float)
    np.testing.assert_allclose(y[:3], [3.0, 1.0, 0.1]) and np.isnan(y[3])
    assert fig.layout.yaxis.type == "log" and fig.data[0].line.color == "#123456"


def test_geometry_figures_use_each_runs_method_colour():
    methods = {"FedAvg ·a": "fedavg", "FedQuad ·b": "fedquad", "FedQuad ·c": "fedquad"}
    series = {k: np.arange(1.0, 4.0) for k in methods}
    for talk in (False, True):
        bars = figures.per_class_intra_figure(series, ["x", "y", "z"], methods=methods, talk=talk)
        spec = figures.spectrum_figure(series, methods=methods, talk=talk)
        want = [method_color(m, talk) for m in methods.values()]
        assert [t.marker.color for t in bars.data] == want
        assert [t.line.color for t in spec.data] == want
        assert want[0] != want[1]  # FedAvg and FedQuad apart, as on every other page
        # two runs of one method: same colour, told apart by bar pattern / dash
        assert bars.data[1].marker.pattern.shape != bars.data[2].marker.pattern.shape
        assert spec.data[1].line.dash != spec.data[2].line.dash
    # the same colours as the learning curves
    df = figures.metrics_frame({r: [{"round": 1, "ratio": 0.5}] for r in methods},
                               {r: {"label": r, "method": m} for r, m in methods.items()})
    assert [t.line.color for t in figures.curves_figure(df, "ratio").data] == \
        [t.marker.color for t in figures.per_class_intra_figure(series, methods=methods).data]


def test_legends_are_horizontal_above_the_plot_and_below_the_title(frame):
    for talk in (False, True):
        fig = figures.curves_figure(frame, "train_loss", title="Train loss", talk=talk)
        legend = fig.layout.legend
        assert legend.orientation == "h" and legend.yanchor == "top" and legend.yref == "container"
        title_px = fig.layout.height * (1 - legend.y)  # the legend starts under the title...
        assert title_px >= fig.layout.title.font.size
        assert fig.layout.margin.t >= title_px + 20  # ...and the plot area under the legend


def test_normal_theme_text_is_dark_and_readable(frame):
    fig = figures.curves_figure(frame, "train_loss")
    assert fig.layout.font.size >= 14 and fig.layout.xaxis.tickfont.size >= 13
    r, g, b = (int(fig.layout.xaxis.tickfont.color[i:i + 2], 16) for i in (1, 3, 5))
    assert max(r, g, b) < 0x40


def _linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of linear sRGB."""
    xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                    [0.0193339, 0.1191920, 0.9503041]]) @ np.clip(linear_rgb, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear sRGB
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]])


def _closest(colours: list[str], vision: np.ndarray | None = None) -> tuple[float, tuple[int, int]]:
    """The smallest CIE76 ΔE*ab between two of ``colours`` (as seen through ``vision``), and which."""
    labs = [_lab(_linear(c) if vision is None else vision @ _linear(c)) for c in colours]
    return min((float(np.linalg.norm(p - q)), (i, j)) for i, p in enumerate(labs) for j, q in enumerate(labs) if i < j)


def test_class_colours_are_distinct_on_a_projector():
    """The talk palette (the projector's): any two of the ten classes at least ΔE*ab 35 apart (26
    for Okabe-Ito's eight plus grey and wine, whose blues 0/4 and pinks 5/8 a projector merged), 15
    under simulated deuteranopia and protanopia (7 before), and every class 40 from the white page;
    the everyday palette keeps its plain RGB distance."""
    import plotly.colors as pc

    talk = class_colors(10, talk=True)
    assert _closest(talk)[0] >= 35, _closest(talk)
    for vision in (DEUTERANOPIA, PROTANOPIA):
        assert _closest(talk, vision)[0] >= 15, _closest(talk, vision)
    white = _lab(np.ones(3))
    assert min(float(np.linalg.norm(_lab(_linear(c)) - white)) for c in talk) >= 40
    rgb = [np.array(pc.hex_to_rgb(c), float) for c in class_colors(10, False)]
    assert min(np.linalg.norm(p - q) for i, p in enumerate(rgb) for q in rgb[i + 1:]) > 60


def test_the_lowest_heatmap_cell_is_not_white():
    """An IID partition (every count near the others): the scale runs from 0 (white: an absent
    class) to the largest count, so the smallest count present is drawn in a visible blue."""
    import plotly.colors as pc

    counts = np.array([[28, 29, 30], [30, 27, 29]])
    trace = figures.partition_heatmap(counts).data[0]
    assert trace.zmin == 0 and trace.zmax == counts.max()
    position = counts.min() / trace.zmax
    scale = [(float(p), c) for p, c in trace.colorscale]
    lo = max(i for i, (p, _) in enumerate(scale) if p <= position)
    (p0, c0), (p1, c1) = scale[lo], scale[min(lo + 1, len(scale) - 1)]
    colour = pc.find_intermediate_color(pc.hex_to_rgb(c0), pc.hex_to_rgb(c1), (position - p0) / max(p1 - p0, 1e-12))
    lab = _lab(_linear("#{:02X}{:02X}{:02X}".format(*(round(v) for v in colour))))
    assert np.linalg.norm(lab - _lab(np.ones(3))) >= 20, colour


def test_per_class_intra_grouped_bars():
    fig = figures.per_class_intra_figure({"a": np.ones(3), "b": np.arange(3.0)}, ["x", "y", "z"])
    assert fig.layout.barmode == "group" and [t.name for t in fig.data] == ["a", "b"]
    assert list(fig.data[1].x) == ["x", "y", "z"] and list(fig.data[1].y) == [0, 1, 2]


def test_method_and_class_colours():
    assert len(set(METHOD_COLORS.values())) == len(METHOD_COLORS)
    assert method_color("FedAvg") == METHOD_COLORS["fedavg"]
    assert method_color("scaffold") == method_color("scaffold") and method_color("scaffold").startswith("#")
    assert method_color("fedavg", talk=True) != method_color("fedquad", talk=True)
    for n, talk in ((10, False), (10, True), (100, False)):
        colors = class_colors(n, talk)
        assert len(colors) == n == len(set(colors)) and all(c.startswith("#") and len(c) == 7 for c in colors)


def test_talk_theme_is_larger_and_thicker(frame):
    normal = figures.curves_figure(frame, "train_loss")
    talk = apply_theme(figures.curves_figure(frame, "train_loss"), talk=True)
    assert talk.layout.font.size == 20 > normal.layout.font.size
    assert talk.data[0].line.width >= 4 > normal.data[0].line.width


def test_long_titles_wrap_in_talk_mode_and_the_plot_starts_below_them():
    import plotly.graph_objects as go

    from app.figures.fit import fit as apply_theme

    def fig(title):
        f = go.Figure(go.Scatter(x=[1, 2], y=[1, 2], name="FedAvg"))
        f.update_layout(title=title)
        return apply_theme(f, talk=True)

    short, long = fig("Test accuracy"), fig("Intra / inter class distance (lower = tighter)")
    assert "<br>" not in short.layout.title.text
    # talk mode lays a figure out for a third of the page (palette.TALK_WIDTH): 23 characters a line at 24 px
    assert long.layout.title.text == "Intra / inter class<br>distance (lower =<br>tighter)"
    assert long.layout.margin.t > short.layout.margin.t  # room for the second line


def test_effective_rank_note_gives_both_definitions_by_hand():
    from app.figures import charts
    # eigenvalues 4, 4, 0: sigma^2 entropy of (1/2, 1/2) -> 2; sigma = 2, 2 -> also 2
    # eigenvalues 9, 1: p = (0.9, 0.1) -> exp(0.325) = 1.384; sigma 3, 1: p = (0.75, 0.25) -> exp(0.562) = 1.755
    note = charts.effective_rank_note({"FedAvg": np.array([4.0, 4.0, 0.0]), "FedQuad": np.array([9.0, 1.0])})
    assert "FedAvg 2.00 (entropy of σ²" in note and "and 2.00 (entropy of σ, Roy & Vetterli 2007)" in note
    assert "FedQuad 1.38 (entropy of σ²" in note and "and 1.75 (entropy of σ" in note


def test_partition_heatmap_on_the_projector_keeps_its_rows_and_reserves_no_legend():
    """Step 1 at 1280x720: ten clients' rows got under 100 px of a 320 px figure, under a band kept
    for a legend plotly never draws (a heatmap is no legend entry) and a vertical "< 3 classes" tick."""
    from app.figures.palette import DEFAULT_HEIGHT
    from app.figures.textfit import _legend_shown

    counts = np.random.default_rng(0).integers(0, 80, size=(10, 10))
    fig = figures.partition_heatmap(counts, title="IID: clients × classes", talk=True)
    assert fig.layout.height >= DEFAULT_HEIGHT[True] and fig.layout.margin.t < 80
    assert list(fig.layout.xaxis.ticktext)[-1] == "<3" and list(fig.layout.xaxis.categoryarray)[-1] == "< 3 classes"
    assert figures.partition_heatmap(counts).layout.height == 320  # the page's own size off the projector
    heat = {"type": "heatmap", "name": "counts"}
    line = {"type": "scatter", "name": "FedAvg"}
    assert _legend_shown([heat, line], {}) == [] and _legend_shown([heat, line, dict(line, name="FedQuad")], {}) != []
    assert _legend_shown([line, dict(line, name="FedQuad")], {"showlegend": False}) == []
