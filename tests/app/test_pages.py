"""Every page renders headlessly, with an empty store and with finished runs."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, PAGES


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    if page != PAGES[0]:
        at.switch_page(page)
        at.run()
    return at


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_empty_store(empty_store, page):
    at = open_page(page)
    assert not at.exception, at.exception


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_runs(run_store, page):
    at = open_page(page)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_live_shows_the_latest_group_by_default(run_store):
    _, ids = run_store
    at = open_page("pages/live.py")
    assert sorted(at.multiselect(key="v_runs").value) == sorted(ids)
    acc = chart_specs(at)[0]
    assert len(acc["data"]) == 2 and all(len(trace["y"]) == 3 for trace in acc["data"])


def test_live_x_axis_switch_uses_samples(run_store):
    at = open_page("pages/live.py")
    rounds_x = chart_specs(at)[0]["data"][0]["x"]
    at.segmented_control(key="v_x").set_value("samples processed").run()
    samples_x = chart_specs(at)[0]["data"][0]["x"]
    assert rounds_x == [1, 2, 3] and samples_x != rounds_x and samples_x[-1] > samples_x[0]
    assert at.query_params["v_x"] in ("samples processed", ["samples processed"])


def test_runs_page_shows_config_and_filters(run_store):
    at = open_page("pages/runs.py")
    at.multiselect(key="r_method").set_value(["fedquad"]).run()
    assert not at.exception
    assert len(at.dataframe[0].value) == 1
