"""Every page renders headlessly, with an empty store and with finished runs."""
from __future__ import annotations

import contextlib
import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, PAGES, trace_values, walk


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page(page)  # always: the app opens on Explore, not on PAGES[0] (Partitions)
    at.run()
    return at


# each page's title (Explore and Live leave theirs out in talk mode, where the figures come first)
TITLES = {"views/partitions.py": "Partitions", "views/launch.py": "Launch", "views/live.py": "Live",
          "views/embeddings.py": "Embeddings", "views/geometry.py": "Geometry", "views/clients.py": "Clients",
          "views/runs.py": "Runs", "views/explore.py": "Explore"}
NO_TITLE_IN_TALK = {"views/explore.py", "views/live.py"}


def test_every_page_has_its_title():
    assert set(TITLES) == set(PAGES)


def chart_specs(at: AppTest) -> list[dict]:
    """The page's plotly figures in order: st.plotly_chart's, and the Live page's charts drawn in
    place while runs train (``app.livechart``)."""
    specs = []
    for el in walk(at.main):
        if el.type == "plotly_chart":
            specs.append(json.loads(el.proto.spec))
        elif el.type == "bidi_component" and el.proto.component_name.endswith("fedquad_livechart"):
            specs.append(json.loads(json.loads(el.proto.json)["spec"]))
    return specs


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_empty_store(empty_store, page):
    at = open_page(page)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == [TITLES[page]]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_runs(run_store, page):
    at = open_page(page)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert [t.value for t in at.title] == [TITLES[page]]


def test_live_shows_the_latest_group_by_default(run_store):
    _, ids = run_store
    at = open_page("views/live.py")
    assert sorted(at.multiselect(key="v_runs").value) == sorted(ids)
    acc = chart_specs(at)[0]
    assert len(acc["data"]) == 2 and all(len(trace_values(trace)) == 3 for trace in acc["data"])


def test_live_x_axis_switch_uses_samples(run_store):
    """FedQuad processes more samples a round than FedAvg (its quadruplets): the x axis offers
    "samples processed" first and starts on it; the lecturer's pick (rounds) then holds."""
    from app.figures.samples import work_differs
    from app import service

    root, ids = run_store
    assert work_differs(service.metrics_frame(ids)), "the fixture's runs no longer differ in work a round"
    at = open_page("views/live.py")
    assert at.segmented_control(key="v_x").options[0] == "samples processed"
    assert at.segmented_control(key="v_x").value == "samples processed"
    samples_x = trace_values(chart_specs(at)[0]["data"][0], "x")
    at.segmented_control(key="v_x").set_value("rounds").run()
    rounds_x = trace_values(chart_specs(at)[0]["data"][0], "x")
    assert rounds_x == [1, 2, 3] and samples_x != rounds_x and samples_x[-1] > samples_x[0]
    assert at.query_params["v_x"] in ("rounds", ["rounds"])
    at.run()
    assert at.segmented_control(key="v_x").value == "rounds"  # picked: the default no longer moves it


def test_live_legends_name_the_methods_and_the_collapse_meter_sits_in_the_first_row(run_store):
    """One run per method: the legends read "FedAvg" / "FedQuad", not run labels; the first row is
    accuracy, the intra / inter ratio and the global model's effective rank (every snapshot round)."""
    root, ids = run_store
    at = open_page("views/live.py")
    specs = chart_specs(at)
    assert all(sorted(t["name"] for t in s["data"]) == ["FedAvg", "FedQuad"] for s in specs), \
        [[t["name"] for t in s["data"]] for s in specs]
    titles = [s["layout"]["title"]["text"].replace("<br>", " ") for s in specs]
    assert titles[2].startswith("Collapse meter: effective rank"), titles
    assert all(len(trace_values(t)) == 3 and all(v > 1 for v in trace_values(t)) for t in specs[2]["data"])


def test_runs_page_shows_config_and_filters(run_store):
    at = open_page("views/runs.py")
    at.multiselect(key="r_method").set_value(["fedquad"]).run()
    assert not at.exception
    assert len(at.dataframe[0].value) == 1


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_in_talk_and_presenter_mode(run_store, page):
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["talk"] = "1"
    at.query_params["presenter"] = "1"
    at.run()
    assert at.toggle(key="talk").value and at.toggle(key="presenter").value
    # AppTest runs a switched-to page without the entry script: carry the global settings over
    at.session_state["talk"] = at.session_state["presenter"] = True
    at.switch_page(page).run()  # always: the app opens on Explore, not on PAGES[0] (Partitions)
    assert not at.exception, at.exception
    titles = [t.value for t in at.title]
    assert titles == ([] if page in NO_TITLE_IN_TALK else [TITLES[page]]), titles


def test_a_link_reproduces_the_view(empty_store):
    at = AppTest.from_file(MAIN, default_timeout=60)
    for key, value in {"p_alpha": "0.05", "p_clients": "12", "p_iid": "0", "p_cmp": ["1.0", "10.0"]}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    assert at.select_slider(key="p_alpha").value == 0.05
    assert at.number_input(key="p_clients").value == 12
    assert at.multiselect(key="p_cmp").value == [1.0, 10.0]
    assert len(at.get("plotly_chart")) == 4  # main heatmap, sizes, two comparisons


def test_preset_fills_the_launch_form(empty_store):
    from app.presets import PRESETS

    at = open_page("views/launch.py")
    name = "Collapse in one minute"
    at.selectbox(key="l_preset").set_value(name).run()
    assert not at.exception
    assert at.multiselect(key="l_methods").value == PRESETS[name]["methods"]
    assert at.number_input(key="l_num_clients").value == PRESETS[name]["config"]["num_clients"]


def test_missing_dataset_says_how_to_get_it(empty_store):
    at = open_page("views/launch.py")
    at.selectbox(key="l_preset").set_value("Paper: CIFAR-10, 200 clients, alpha 0.3").run()
    assert not at.exception
    assert any("cifar" in e.value.lower() for e in at.error)


def test_runs_page_bundle_and_delete(run_store, tmp_path, monkeypatch):
    import shutil

    from fedquad_core.runs.store import RunStore

    root, ids = run_store
    copy = tmp_path / "runs"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".slots"))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(copy))
    at = open_page("views/runs.py")
    at.button(key="r_bundle").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.get("download_button")
    run_id = at.selectbox(key="r_run").value
    at.button(key="r_delete").click().run()
    assert not at.exception
    assert run_id in RunStore(copy).run_ids()  # asked first, nothing deleted yet
    assert any(run_id in w.value and "removed for good" in w.value for w in at.warning)
    at.button(key="r_delete_no").click().run()
    assert run_id in RunStore(copy).run_ids() and "r_delete_yes" not in [b.key for b in at.button]
    at.button(key="r_delete").click().run()
    at.button(key="r_delete_yes").click().run()
    assert not at.exception
    assert run_id not in RunStore(copy).run_ids() and len(RunStore(copy).run_ids()) == 1


def test_live_explains_train_loss_and_gives_one_download_menu_per_chart(run_store):
    from app.export.files import export_available

    at = open_page("views/live.py")
    assert any("not comparable between methods" in c.value for c in at.caption)
    buttons = {b.proto.id for b in at.get("download_button")}
    assert len(buttons) == 5 * (5 if export_available()[0] else 2)  # 5 charts: PNG SVG PDF HTML CSV each
    specs = chart_specs(at)
    assert all(s["layout"]["legend"]["orientation"] == "h" for s in specs)


def test_launch_labels_method_parameters_readably(empty_store):
    at = open_page("views/launch.py")
    labels = [s.label for s in at.slider] + [s.label for s in at.select_slider]
    assert "m1 — margin of the anchor-to-first-negative term" in labels
    assert any(lab.startswith("tuples per batch — ") for lab in labels)


def test_runs_table_starts_with_a_short_label_and_ends_with_the_run_id(run_store):
    at = open_page("views/runs.py")
    cols = list(at.dataframe[0].value.columns)
    assert cols[0] == "label" and cols[-1] == "run_id"
    assert set(at.dataframe[0].value["method"]) == {"FedAvg", "FedQuad"}


def test_one_click_collapse_demo_launches_the_pair_and_opens_live(empty_store):
    """... in talk mode when it was on (the click used to end talk mode: the button ran before
    the toggle was drawn, and the page switch dropped the toggle's state)."""
    import time

    from fedquad_core.runs.store import ACTIVE, RunStore, StoreError

    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["talk"] = "1"
    at.run()
    assert at.toggle(key="talk").value
    at.button(key="quick_start").click().run()
    assert at.toggle(key="talk").value and at.session_state["talk"], "the demo's click ended talk mode"
    assert not at.exception, at.exception
    store = RunStore(empty_store)
    infos = store.list_runs()
    try:
        assert sorted(i.config["method"] for i in infos) == ["fedavg", "fedquad"]
        assert len({i.status.get("group") for i in infos}) == 1  # one comparison group
        partition_keys = {(i.config["alpha"], i.config["num_clients"], i.config["seed"]) for i in infos}
        assert partition_keys == {(0.1, 50, 0)}
        assert at.multiselect(key="v_runs").value  # the Live page (talk mode: no title, its run picker)
    finally:
        for i in infos:
            with contextlib.suppress(StoreError):  # one that has already ended needs no cancel
                store.request_cancel(i.run_id)
        deadline = time.time() + 60
        while time.time() < deadline and any(store.read_status(i.run_id)["state"] in ACTIVE for i in infos):
            time.sleep(0.3)


def test_the_demo_starts_from_presenter_modes_page_menu_and_presenter_mode_stays(empty_store):
    import time

    from fedquad_core.runs.store import ACTIVE, RunStore, StoreError

    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["talk"] = "1"
    at.query_params["presenter"] = "1"
    at.run()
    assert "quick_start" not in {b.key for b in at.button}  # the sidebar's is hidden in presenter mode
    at.button(key="quick_start_presenter").click().run()
    assert not at.exception, at.exception
    store = RunStore(empty_store)
    infos = store.list_runs()
    try:
        assert sorted(i.config["method"] for i in infos) == ["fedavg", "fedquad"]
        assert at.session_state["presenter"] and at.session_state["talk"]
        assert at.button(key="fq_exit_presenter")  # still presenting, on Live
        titles = [(s["layout"].get("title") or {}).get("text", "").replace("<br>", " ") for s in chart_specs(at)]
        assert len(titles) == 5 and titles[2].startswith("Collapse meter"), titles
    finally:
        for i in infos:
            with contextlib.suppress(StoreError):
                store.request_cancel(i.run_id)
        deadline = time.time() + 60
        while time.time() < deadline and any(store.read_status(i.run_id)["state"] in ACTIVE for i in infos):
            time.sleep(0.3)


def test_launch_shows_and_applies_the_chosen_data_sets_defaults(empty_store):
    at = open_page("views/launch.py")
    assert any("digits defaults: lr 0.05" in c.value for c in at.caption)
    at.selectbox(key="l_dataset").set_value("fashion-mnist").run()
    assert not at.exception
    assert any("fashion-mnist defaults: lr 0.01, momentum 0.9, batch 64" in c.value for c in at.caption)
    assert at.number_input(key="l_lr").value == 0.01


def test_live_draws_empty_axes_while_runs_have_no_point_yet(empty_store):
    """An active run without a metrics row: the five charts are drawn at once, empty, saying a
    point is coming (the browser loads its chart code while round 1 trains); once the run has
    ended without any, a one-line caption instead."""
    import os

    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore, process_identity

    store = RunStore(empty_store)
    writer = store.create(RunConfig(dataset="digits", rounds=3).resolved().to_dict())
    writer.set_status("running", round=0, **process_identity(os.getpid()))  # this live process
    at = open_page("views/live.py")
    assert not at.exception, at.exception
    specs = chart_specs(at)
    assert len(specs) == 5 and all(not s["data"] for s in specs)
    assert all(any("no point yet" in a["text"] for a in s["layout"].get("annotations", [])) for s in specs)
    assert not any("no data yet" in c.value for c in at.caption)
    writer.set_status("failed", error="stopped before round 1")
    at = open_page("views/live.py")
    assert not chart_specs(at) and sum("no data yet" in c.value for c in at.caption) == 5
