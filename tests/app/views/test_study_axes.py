"""Every axis set a user can give `fedquad study run` renders (issue 34, item 4): a study with no
seed axis, no method axis, one axis only, or a method-parameter axis opens in Explore, Geometry
and Embeddings with no exception, and `study show` prints it."""
from __future__ import annotations

import itertools

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, shown
from study_helpers import write_study

AXES = {"method": ["fedavg", "fedquad"], "alpha": [0.1, None], "seed": [0, 1], "m1": [0.5, 1.0]}
# every non-empty subset of these axes (m1 only beside method, as the CLI's grids give it)
COMBOS = [c for n in range(1, len(AXES) + 1) for c in itertools.combinations(AXES, n)]


def _open(page: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=90)
    at.run()
    at.switch_page(page).run()
    return at


@pytest.fixture(scope="module")
def axis_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("axes") / "runs"
    for combo in COMBOS:
        name = "ax-" + "-".join(combo)
        write_study(root, name, {a: AXES[a] for a in combo}, rounds=4, points=60, dim=8, umap=False,
                    base={"method": "fedquad"} if "m1" in combo and "method" not in combo else None)
    return root


@pytest.mark.parametrize("combo", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_each_axis_set_opens_in_explore(combo, axis_root, monkeypatch):
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(axis_root))
    at = AppTest.from_file(MAIN, default_timeout=90)
    at.query_params["x_study"] = "mine:ax-" + "-".join(combo)
    at.run()
    at.switch_page("views/explore.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Explore"]
    assert at.selectbox(key="x_study").value == "mine:ax-" + "-".join(combo)
    acc = shown(at, "acc")  # the accuracy over rounds at the opening position, drawn from the study's runs
    assert acc is not None and acc["fig"] is not None and acc["fig"]["data"], acc


def test_geometry_and_embeddings_open_on_a_store_of_every_axis_set(axis_root, monkeypatch):
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(axis_root))
    for page, title in (("views/geometry.py", "Geometry"), ("views/embeddings.py", "Embeddings"), ("views/runs.py", "Runs")):
        at = _open(page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert [t.value for t in at.title] == [title], page
        assert at.get("plotly_chart") or at.dataframe, f"{page} shows neither a figure nor a table"


@pytest.mark.parametrize("combo", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_study_show_prints_each_axis_set(combo, axis_root, capsys):
    from fedquad_core.cli import main

    assert main(["study", "show", "ax-" + "-".join(combo), "--runs-dir", str(axis_root)]) == 0
    assert "Traceback" not in capsys.readouterr().err
