"""Partitions react to alpha; Launch starts a fair group, refuses invalid settings."""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, trace_values, wait_finished
from fedquad_core.runs.store import RunStore


def page(name: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    if name != "views/partitions.py":
        at.switch_page(name)
        at.run()
    return at


def heatmap_z(at: AppTest) -> list:
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return [trace_values(t, "z") for t in spec["data"] if t.get("type") == "heatmap"]


def test_alpha_slider_changes_the_heatmap(empty_store):
    at = page("views/partitions.py")
    at.number_input(key="p_clients").set_value(20).run()
    before = heatmap_z(at)
    at.select_slider(key="p_alpha").set_value(0.05).run()
    after = heatmap_z(at)
    assert not at.exception and before and after and before != after
    assert at.query_params["p_alpha"] in ("0.05", ["0.05"])


def test_impossible_partition_shows_error_not_traceback(empty_store):
    at = page("views/partitions.py")
    at.number_input(key="p_clients").set_value(500).run()
    assert not at.exception
    assert any("min-size" in e.value or "clients" in e.value for e in at.error)


def test_invalid_settings_show_error_and_start_nothing(empty_store):
    at = page("views/launch.py")
    at.multiselect(key="l_methods").set_value(["fedavg"]).run()
    at.number_input(key="l_num_clients").set_value(5000).run()
    at.button(key="l_start").click().run()
    assert not at.exception
    assert any("clients" in e.value for e in at.error)
    assert RunStore(empty_store).list_runs() == []


def test_launch_tiny_run_then_live_shows_it(empty_store):
    at = page("views/launch.py")
    at.multiselect(key="l_methods").set_value(["fedavg", "fedquad"]).run()
    at.number_input(key="l_num_clients").set_value(4).run()
    at.number_input(key="l_rounds").set_value(2).run()
    at.number_input(key="l_local_epochs").set_value(1).run()
    at.number_input(key="l_snapshot_every").set_value(1).run()
    at.button(key="l_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    store = RunStore(empty_store)
    runs = store.list_runs()
    assert sorted(r.config["method"] for r in runs) == ["fedavg", "fedquad"]
    assert len({r.status["group"] for r in runs}) == 1
    same = [{k: v for k, v in r.config.items() if k not in ("method", "method_params")} for r in runs]
    assert same[0] == same[1]  # a fair comparison: identical except the method
    assert wait_finished(store, [r.run_id for r in runs]) == ["finished", "finished"]

    at.switch_page("views/live.py").run()
    assert not at.exception
    acc = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(acc["data"]) == 2 and all(len(trace_values(t)) == 2 for t in acc["data"])


def test_every_page_offers_the_same_alpha_steps_and_client_bound():
    """One list of α values and one client bound for the Partitions and Launch pages (and the
    engine's limit is that bound)."""
    from app.service import catalog
    from app.studies import launch_form
    from fedquad_core.config import limits
    from fedquad_core.config.alpha import ALPHA_STEPS

    assert catalog.ALPHAS == list(ALPHA_STEPS) and launch_form.OPTIONS["alpha"] is catalog.ALPHAS
    assert catalog.BOUNDS["num_clients"] == (1, limits.CLIENTS_MAX)
    for page in ("partitions.py", "launch.py"):
        text = (Path(__file__).resolve().parents[3] / "app" / "views" / page).read_text()
        assert "ALPHAS = [" not in text and 'BOUNDS["num_clients"]' in text, page
