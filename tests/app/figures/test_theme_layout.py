"""``apply_theme`` sets the layout in one assignment (for speed): it must give exactly the figure the
update-call version gave. The reference below is that version, kept verbatim (but for the title
and legend placed from the figure's left edge, not the plot area's: issue 16; and for the two
text-fitting steps of issue 20, legend names and axis titles broken onto lines, which it calls
as they are, and for a long legend's max height and the thinned uneven ticks of the talk-with-sidebar
fix: what is compared here is the one assignment against the update calls)."""
from __future__ import annotations

import copy

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from app.figures import fit as fitting


def reference_theme(fig: go.Figure, talk: bool = False) -> go.Figure:
    def place(font, title, base_top):
        if fig.layout.height is None:
            fig.layout.height = fitting.DEFAULT_HEIGHT[talk]
        lines = fitting._wrap_title(fig, title)
        multi = title if lines > 1 else 0
        title_h = int(title * 1.9 + (lines - 1) * title * 1.25 + 0.4 * multi) if lines else 0
        names = fitting._names(fig)
        fitting._wrap_legend_names(names, fig.layout.to_plotly_json(), font)
        for trace, d in zip(fig.data, names):
            if d.get("name") is not None:
                trace.name = d["name"]
        rows = fitting._legend_rows(fig, font)
        top = max(base_top, title_h + rows * fitting.LEGEND_ROW[talk] + 14) + fitting._panel_titles(fig.layout.to_plotly_json())
        bottom = fig.layout.margin.b or fitting.BOTTOM[talk]
        fig.layout.height = max(fig.layout.height, top + fitting.MIN_PLOT_HEIGHT[talk] + bottom)
        fig.update_layout(
            title=dict(x=0.0, xanchor="left", xref="container", y=1.0, yanchor="top", yref="container",
                       pad=dict(t=8 + multi, l=12), font=dict(size=title)),
            legend=dict(orientation="h", xref="container", x=0.0, xanchor="left", yref="container",
                        y=1.0 - title_h / fig.layout.height, yanchor="top", font=dict(size=font),
                        title=dict(side="left"), bgcolor="rgba(255,255,255,0)"),
            margin=dict(t=top))
        if (rows + 1) * fitting.LEGEND_ROW[talk] > 0.5 * fig.layout.height:
            fig.update_layout(legend_maxheight=(rows + 1) * fitting.LEGEND_ROW[talk])

    if not talk:
        fig.layout.template = fitting._TEMPLATES[False]
        fig.update_layout(font=dict(size=14, color=fitting.TEXT), title_font_color=fitting.TEXT, margin=dict(l=64, r=20, b=56))
        place(13, 17, 24)
        axis = dict(tickfont=dict(size=13, color=fitting.TEXT), title_font=dict(size=14, color=fitting.TEXT),
                    gridcolor=fitting.GRID, linecolor="#9AA0A6", zerolinecolor=fitting.GRID)
        fig.update_xaxes(**axis)
        fig.update_yaxes(**axis)
        return fit(fig)
    fig.layout.template = fitting._TEMPLATES[True]
    fig.update_layout(font=dict(size=20, color="#000000"), margin=dict(l=80, r=30, b=70))
    place(18, 24, 30)
    fig.update_xaxes(linewidth=2, ticks="outside", tickwidth=2)
    fig.update_yaxes(linewidth=2, ticks="outside", tickwidth=2)
    fitting._thicken(fig)
    return fit(fig)


def fit(fig: go.Figure) -> go.Figure:
    layout = fig.layout.to_plotly_json()
    fitting._fit_axis_titles(layout, fig.layout.font.size == 20)
    fitting._thin_uneven_ticks(layout, fig.layout.font.size == 20)
    fig.update_layout(margin=layout["margin"], **{k: v for k, v in layout.items() if k[1:5] == "axis"})
    return fig


def figures() -> list[go.Figure]:
    x = np.arange(10.0)
    lines = go.Figure([go.Scatter(x=x, y=x * i, name=f"a rather long series name {i}", mode="lines+markers")
                       for i in range(6)], layout=dict(title="A long title that has to wrap onto a second line here",
                                                       yaxis=dict(type="log", title_text="y"), xaxis_title="round"))
    heat = go.Figure(go.Heatmap(z=np.eye(3), colorbar=dict(title="z")), layout=dict(height=430, title="heat"))
    sub = make_subplots(rows=1, cols=3, shared_yaxes=True, subplot_titles=["a", "b", "c"])
    for c in (1, 2, 3):
        sub.add_trace(go.Scatter(x=x, y=x + c, name=f"s{c}", showlegend=c == 1), row=1, col=c)
    sub.update_yaxes(type="log")
    one = go.Figure(go.Scatter(x=x, y=x, mode="markers", marker=dict(size=5)), layout=dict(width=300, margin=dict(l=5)))
    return [lines, heat, sub, one, go.Figure(), grid()]


def grid() -> go.Figure:
    """Seven methods' long names over an uneven grid (margin 0, 0.25, 0.5, 1, 2)."""
    xs = [0, 0.25, 0.5, 1, 2]
    return go.Figure([go.Scatter(x=xs, y=[i + v for v in xs], name=f"Method {i} (mean of 1)", mode="lines+markers")
                      for i in range(7)],
                     layout=dict(title="Accuracy at α = 0.1", xaxis=dict(title_text="margin m1", tickvals=xs,
                                                                         ticktext=[f"{v:g}" for v in xs])))


@pytest.mark.parametrize("talk", [False, True])
@pytest.mark.parametrize("index", range(6))
def test_one_assignment_gives_the_same_figure(index, talk):
    fig = figures()[index]
    expected = reference_theme(copy.deepcopy(fig), talk).to_plotly_json()
    got = fitting.fit(copy.deepcopy(fig), talk).to_plotly_json()
    assert got == expected


def _spec(fig: go.Figure) -> dict:
    import json

    import plotly.io as pio

    return json.loads(pio.to_json(fig.to_dict(), validate=False))


@pytest.mark.parametrize("talk", [False, True])
def test_themed_figure_is_apply_theme_on_a_validated_figure(talk):
    """``themed_figure`` skips plotly's validation: it must give what the validated path gives."""
    x = np.arange(10.0)
    data = [dict(type="scatter", x=x, y=x * i, name=f"a rather long series name {i}", mode="lines+markers",
                 line=dict(width=2.5), marker=dict(size=7)) for i in range(4)]
    layout = dict(title=dict(text="A long title that has to wrap onto a second line here"), hovermode="closest",
                  xaxis=dict(title=dict(text="round")), yaxis=dict(type="log", title=dict(text="y")),
                  shapes=[dict(type="line", name="current", xref="x", yref="paper", x0=1, x1=1, y0=0, y1=1)])
    expected = fitting.fit(go.Figure(data=copy.deepcopy(data), layout=copy.deepcopy(layout)), talk)
    assert _spec(fitting.fit((data, layout), talk)) == _spec(expected)


def _explore_figures(talk: bool) -> list[go.Figure]:
    import pandas as pd

    from app.figures import study as sf
    from app.figures.charts import embedding_scatter, spectrum_figure

    rng = np.random.default_rng(0)
    metrics = pd.DataFrame([{"run": f"{m}{s}", "method": m, "seed": s, "round": r, "test_accuracy": rng.random()}
                            for m in ("fedavg", "fedquad") for s in (0, 1) for r in range(1, 6)])
    points = pd.DataFrame([{"method": m, "alpha": a, "seed": s, "state": "finished", "final_acc": rng.random(),
                            "run_id": "r"} for m in ("fedavg", "fedquad") for a in (0.1, 1.0, None) for s in (0, 1)])
    resp = sf.aggregate(points, ["method", "alpha"], ["final_acc"])
    spectra = {"fedavg": {0.1: rng.random(8), None: rng.random(8)}, "fedquad": {0.1: rng.random(8)}}
    return [sf.band_curves_figure(metrics, "test_accuracy", title="curves", talk=talk),
            sf.response_figure(resp, "alpha", "final_acc", current=0.1, all_values=[0.1, 0.5, 1.0, None], talk=talk),
            sf.spectra_across_figure(spectra, title="across", talk=talk),
            embedding_scatter(rng.normal(size=(40, 2)), rng.integers(0, 3, 40), ["a", "b", "c"], title="emb", talk=talk),
            spectrum_figure({"FedAvg": rng.random(8)}, methods={"FedAvg": "fedavg"}, title="spectrum", talk=talk)]


@pytest.mark.parametrize("talk", [False, True])
def test_the_slider_figures_are_valid_plotly(talk):
    """The builders Explore runs on every slider move construct their figures unvalidated: building
    each again with full validation must raise nothing and change nothing."""
    for fig in _explore_figures(talk):
        assert _spec(go.Figure(fig.to_plotly_json())) == _spec(fig)


def test_an_axis_plotly_zooms_in_on_says_not_from_0():
    from app.figures.fit import NOT_FROM_ZERO, fit

    def ytitle(fig):
        return fig.layout.yaxis.title.text

    line = lambda ys, **axis: fit(go.Figure(go.Scatter(y=ys), layout=dict(yaxis=dict(title=dict(text="ratio"), **axis))))  # noqa: E731
    assert ytitle(line([0.31, 0.45, 0.33])) == "ratio" + NOT_FROM_ZERO
    assert ytitle(line([0.01, 0.45, 0.33])) == "ratio"  # plotly's padding reaches 0
    assert ytitle(line([0.31, 0.45], range=[0, 0.5])) == "ratio"  # a set range shows where it starts
    assert ytitle(line([0.31, 0.45], type="log")) == "ratio"
    bars = fit(go.Figure(go.Bar(y=[3, 4]), layout=dict(yaxis=dict(title=dict(text="distance")))))
    assert ytitle(bars) == "distance"  # bars are drawn from 0
    fig = fit(([dict(type="scatter", y=[5.0, 6.0])], dict(yaxis=dict(title=dict(text="rank")))))
    assert ytitle(fig) == "rank" + NOT_FROM_ZERO
    again = fit(fig)
    assert ytitle(again) == "rank" + NOT_FROM_ZERO  # said once


def test_talk_figures_never_get_less_than_they_are_laid_out_for():
    """Talk mode lays figures out for ``TALK_WIDTH``; the page keeps a column holding a figure at
    least that wide (a row of three wraps at 1280 px with the sidebar open), and so does the
    switcher's grid (``min_width`` in its layout, in talk mode only)."""
    assert f"min-width: min(100%, {fitting.TALK_WIDTH}px)" in fitting.TALK_CSS
    assert 'stPlotlyChart' in fitting.TALK_CSS and fitting.TALK_CSS in fitting.page_css(True, False)
    assert fitting.TALK_CSS not in fitting.page_css(False, False)


def test_uneven_ticks_are_thinned_to_the_width_laid_out_for():
    """plotly angles tick labels by their mean spacing: at 0, 0.25, 0.5, 1, 2 in talk mode's font the
    closest pair collided (Explore's margin studies at 1280 px with the sidebar open). In talk mode a
    label too close to the last one kept is left out and the labels stay horizontal; the normal look
    (smaller font) keeps them all, and evenly spaced ticks are left to plotly."""
    talk = fitting.fit(grid(), True).layout.xaxis
    assert list(talk.ticktext) == ["0", "", "0.5", "1", "2"] and talk.tickangle == 0
    assert list(talk.tickvals) == [0, 0.25, 0.5, 1, 2]  # the ticks stay, only a label goes
    normal = fitting.fit(grid(), False).layout.xaxis
    assert list(normal.ticktext) == ["0", "0.25", "0.5", "1", "2"] and normal.tickangle is None
    even = grid()
    even.update_xaxes(tickvals=[0, 1, 2, 3, 4], ticktext=["0.01", "0.03", "0.1", "0.3", "1"])
    assert list(fitting.fit(even, True).layout.xaxis.ticktext) == ["0.01", "0.03", "0.1", "0.3", "1"]
    wide = grid()
    wide.update_layout(width=900)  # a figure given its width: laid out for it, nothing left out
    assert list(fitting.fit(wide, True).layout.xaxis.ticktext) == ["0", "0.25", "0.5", "1", "2"]


def test_a_long_legend_gets_the_height_kept_for_it():
    """plotly caps a horizontal legend at half the figure's height and scrolls the rest: seven
    methods' two-line names, one a row at talk mode's width, got a scrolling legend."""
    fig = fitting.fit(grid(), True)
    rows = sum(len(t.name.split("<br>")) for t in fig.data)
    assert rows == 14  # each name on two lines, one entry a row
    assert fig.layout.legend.maxheight == (rows + 1) * fitting.LEGEND_ROW[True] > 0.5 * fig.layout.height
    assert fig.layout.margin.t >= rows * fitting.LEGEND_ROW[True]  # and the room is kept above the plot
    short = fitting.fit(go.Figure([go.Scatter(y=[1, 2], name="FedAvg"), go.Scatter(y=[2, 1], name="FedQuad")]), True)
    assert short.layout.legend.maxheight is None  # plotly's own cap left alone
