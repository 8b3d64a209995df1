"""The figure switcher's server side (app/switcher): which positions the browser is sent, figure
ids, the served folder (the frontend files and plotly.js)."""
from __future__ import annotations

import filecmp
import re
from pathlib import Path

import pytest

import plotly
import plotly.graph_objects as go

from app import switcher

AXES = [switcher.Axis("alpha", "α", ["0.1", "0.3", "1", "IID"], "x_alpha"),
        switcher.Axis("m1", "m1", ["0", "1", "2"], "x_m1")]


def test_neighbours_are_one_axis_at_a_time_nearest_first():
    got = switcher.neighbours(AXES, {"alpha": "0.3", "m1": "0"})
    assert got == [{"alpha": "0.1", "m1": "0"}, {"alpha": "1", "m1": "0"}, {"alpha": "0.3", "m1": "1"},
                   {"alpha": "IID", "m1": "0"}, {"alpha": "0.3", "m1": "2"}]


def test_the_browser_holds_the_positions_two_steps_around():
    value = {"alpha": "0.1", "m1": "0"}
    assert switcher.ready_positions(AXES, value) == [{"alpha": "0.3", "m1": "0"}, {"alpha": "0.1", "m1": "1"},
                                                     {"alpha": "1", "m1": "0"}, {"alpha": "0.1", "m1": "2"}]
    assert switcher.ready_positions([], {}) == []  # a study without sliders: one position


def test_a_figure_id_follows_its_content():
    a = switcher.Panel("acc", go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    b = switcher.Panel("acc", go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    c = switcher.Panel("acc", go.Figure(go.Scatter(x=[1, 2], y=[3, 5])))
    assert a.fid == b.fid != c.fid


def test_the_served_folder_holds_the_frontend_and_plotly(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    switcher.served_dir.cache_clear()
    try:
        first = Path(switcher.served_dir())
        assert first.is_relative_to(tmp_path)
        for name in switcher.FILES:
            assert filecmp.cmp(first / name, switcher.FRONTEND / name, shallow=False)
        switcher.served_dir.cache_clear()
        assert Path(switcher.served_dir()) == first  # made once per version of the files
        assert len(list((tmp_path / "fedquad-lab").iterdir())) == 1
    finally:
        switcher.served_dir.cache_clear()


def test_the_frontend_loads_its_scripts():
    html = (switcher.FRONTEND / "index.html").read_text()
    assert f'src="{switcher.PLOTLY_JS}"' in html and 'src="switcher.js"' in html
    js = (switcher.FRONTEND / "switcher.js").read_text()
    for message in ("streamlit:componentReady", "streamlit:render", "streamlit:setComponentValue",
                    "streamlit:setFrameHeight"):
        assert message in js


def _version(js: Path) -> str:
    """The "plotly.js ... vX.Y.Z" of a bundle's header."""
    head = js.read_text(errors="replace")[:300]
    return re.search(r"plotly\.js[^\n]* v([0-9.]+)", head).group(1)


def test_the_cartesian_bundle_is_the_version_the_plotly_package_bundles():
    """The switcher's plotly.js (the cartesian bundle) draws what the plotly package's figures say:
    an upgrade of plotly fails here until the bundle is replaced by its version (npm's
    plotly.js-cartesian-dist-min)."""
    full = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert _version(switcher.FRONTEND / switcher.PLOTLY_JS) == _version(full)
    assert "(cartesian - minified)" in (switcher.FRONTEND / switcher.PLOTLY_JS).read_text()[:200]


def test_a_trace_type_the_bundle_lacks_is_refused_by_name():
    ok = switcher.Panel("acc", go.Figure([go.Scatter(y=[1]), go.Heatmap(z=[[1]]), go.Bar(y=[1])]))
    assert ok.spec
    bad = switcher.Panel("acc", go.Figure(go.Scatter3d(x=[1], y=[1], z=[1])), title="a 3-D cloud")
    with pytest.raises(ValueError, match=r"'a 3-D cloud': trace type\(s\) \['scatter3d'\] are not in"):
        bad.spec
