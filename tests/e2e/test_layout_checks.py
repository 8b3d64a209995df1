"""The layout sweep's checks (``layout_checks.py``) catch each kind of defect they name: figures made
defective on purpose, drawn by plotly.js in headless Chromium, are each reported for their defect,
and a well laid out figure is reported for none."""
from __future__ import annotations

import json
from pathlib import Path

import plotly
import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, chromium_path, new_context
from layout_checks import MEASURE, figure_problems

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
LINES = [{"type": "scatter", "x": [1, 2, 3], "y": [1, 3, 2], "name": "FedAvg"},
         {"type": "scatter", "x": [1, 2, 3], "y": [2, 1, 3], "name": "FedQuad"}]
TOP_LEGEND = {"orientation": "h", "xref": "container", "yref": "container", "x": 0, "y": 0.9, "yanchor": "top"}

CASES = {
    "fine": ([*LINES], {"title": {"text": "Test accuracy", "yref": "container", "y": 0.98, "yanchor": "top"},
                         "legend": {**TOP_LEGEND, "y": 0.86}, "margin": {"t": 110},
                         "yaxis": {"title": {"text": "accuracy"}}, "xaxis": {"title": {"text": "round"}}}, None),
    "y title into the legend": (LINES, {"legend": {**TOP_LEGEND, "y": 0.75}, "margin": {"t": 140},
                                        "yaxis": {"title": {"text": "a very long axis title that runs above its plot"}},
                                        "font": {"size": 20}}, "overlaps the legend"),
    "title off the figure": (LINES, {"title": {"text": "A title far too long for a figure of this width, cut off",
                                               "font": {"size": 24}}, "width": 300}, "the title leaves the figure"),
    "scrolling legend": ([{"type": "scatter", "x": [1], "y": [i], "name": f"class number {i}"} for i in range(30)],
                         {"legend": {"orientation": "v"}, "height": 300}, "the legend scrolls"),
    "ticks collide": ([{"type": "scatter", "x": [0, 0.25, 0.5, 1, 2], "y": [1, 2, 3, 4, 5]}],
                      {"xaxis": {"tickvals": [0, 0.02, 0.04], "ticktext": ["0.00000", "0.02000", "0.04000"],
                                 "tickfont": {"size": 22}}, "width": 320}, "overlap"),
    "tick labels repeat": ([{"type": "scatter", "x": [1, 2, 3], "y": [0.966, 0.975, 0.988]}],
                           {"yaxis": {"tickformat": ".0%"}}, "both read"),
    "log axis, not repeats": ([{"type": "scatter", "x": [1, 2, 3], "y": [0.01, 0.3, 1]}],
                              {"yaxis": {"type": "log"}, "title": {"text": "Spectrum", "yref": "container", "y": 0.98,
                                                                  "yanchor": "top"}, "margin": {"t": 80}}, None),
    "plot squashed": (LINES, {"height": 200, "margin": {"t": 100, "b": 60}}, "a plot area of"),
    "panel titles into the legend": (
        [{**LINES[0], "xaxis": "x", "yaxis": "y"}, {**LINES[1], "xaxis": "x2", "yaxis": "y2"}],
        {"legend": {**TOP_LEGEND, "y": 0.93}, "margin": {"t": 60},
         "xaxis": {"domain": [0, 0.45]}, "xaxis2": {"domain": [0.55, 1]}, "yaxis2": {"anchor": "x2"},
         "annotations": [{"text": "FedAvg panel", "x": 0.22, "y": 1, "xref": "paper", "yref": "paper",
                          "yanchor": "bottom", "showarrow": False, "font": {"size": 22}},
                         {"text": "FedQuad panel", "x": 0.78, "y": 1, "xref": "paper", "yref": "paper",
                          "yanchor": "bottom", "showarrow": False, "font": {"size": 22}}]},
        "the subplot title"),
    "legend group in two colours": ([{"type": "scatter", "x": [1, 2], "y": [1, 2], "name": "FedAvg", "legendgroup": "a",
                                      "line": {"color": "#D55E00"}},
                                     {"type": "scatter", "x": [1, 2], "y": [2, 1], "legendgroup": "a", "showlegend": False,
                                      "line": {"color": "#0072B2"}}], {}, "drawn in different colours"),
}


@pytest.fixture(scope="module")
def browser_page():
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = new_context(browser, viewport={"width": 900, "height": 700}).new_page()
            page.set_content("<html><body></body></html>")
            page.add_script_tag(path=str(PLOTLY_JS))
            yield page
        finally:
            browser.close()


def measure(page, data, layout) -> dict:
    layout = {"width": 480, "height": 380, **layout}
    page.evaluate("""async ([data, layout]) => {
        document.body.innerHTML = '<div id="g" class="js-plotly-plot"></div>';
        await Plotly.newPlot('g', data, layout, {staticPlot: false});
    }""", [json.loads(json.dumps(data)), layout])
    return page.locator("#g").evaluate(MEASURE)


@pytest.mark.parametrize("case", list(CASES))
def test_each_defect_is_found(browser_page, case):
    data, layout, expected = CASES[case]
    problems = figure_problems(measure(browser_page, data, layout), case)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), f"{case}: {problems}"
