"""The Explore page on a synthetic recorded study: sliders swap in the matching runs' numbers, missing
points show as missing, recorded runs stay read-only, and the view lives in the link."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, move, shown, switcher, switcher_options, trace_values
from explore_helpers import EXPLORE, chart, open_explore, run_acc, seed_trace, slider
from fedquad_core.runs.store import RunStore


def test_explore_opens_first_on_a_fresh_clone_with_recorded_studies(recorded_root):
    at = open_explore()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Explore"]
    assert at.selectbox(key="x_study").value == "recorded:toy-alpha"
    assert switcher_options(at, "alpha") == ["0.1", "1", "IID"]  # grid order, IID last


def test_the_registered_confirmation_on_the_studys_data_set_is_one_click_away(recorded_root):
    """Explore's studies are exploratory: under the figures, what the registered rows on the same
    data set found on fresh seeds (each row's verdict and numbers)."""
    from app.studies import confirmed

    rows = confirmed.for_dataset("digits")
    assert rows and all(r.dataset == "digits" for r in rows)
    at = open_explore()
    assert not at.exception, at.exception
    box = next(e for e in at.expander if e.label.startswith("Confirmed on fresh seeds?"))
    assert box.label == f"Confirmed on fresh seeds? {len(rows)} registered claims on this data set"
    text = " ".join(m.value for m in box.markdown)
    assert all(r.short in text and r.numbers in text for r in rows)


def test_moving_the_slider_swaps_in_the_matching_runs(recorded_root):
    root, _ = recorded_root
    at = open_explore()
    assert slider(at, "alpha") == "0.1"
    acc = chart(at, "x_acc")
    resp_before = chart(at, "x_acc_resp")
    assert seed_trace(acc, "fedavg", 0) == pytest.approx(run_acc(root, "toy-alpha-alpha0.1-methodfedavg-seed0"))
    move(at, alpha="IID")  # the browser's move, sent back to the page
    assert not at.exception, at.exception
    assert slider(at, "alpha") == "IID" and at.query_params["x_alpha"] in ("IID", ["IID"])
    acc = chart(at, "x_acc")
    for method in ("fedavg", "fedquad"):
        for seed in (0, 1):
            assert seed_trace(acc, method, seed) == pytest.approx(
                run_acc(root, f"toy-alpha-alphaiid-method{method}-seed{seed}"))
    mean = next(t for t in acc["data"] if t.get("meta") == ["mean", "fedquad"])
    expected = np.mean([run_acc(root, f"toy-alpha-alphaiid-methodfedquad-seed{s}") for s in (0, 1)], axis=0)
    assert trace_values(mean) == pytest.approx(expected.tolist())
    # the response plots do not move with the slider along their own axis (so the browser keeps
    # the one it drew): the same figure, under the same id, before and after, its slider mark hidden
    resp = chart(at, "x_acc_resp")
    assert resp == resp_before
    args = switcher(at)
    assert len({pos["panels"]["acc_resp"]["fid"] for pos in args["positions"].values()}) == 1
    lines = [s for s in resp["layout"].get("shapes", []) if s.get("type") == "line"]
    assert len(lines) == 1 and lines[0].get("visible") is False


def test_a_missing_point_shows_as_missing(recorded_root):
    at = open_explore({"x_alpha": "1"})
    assert not at.exception, at.exception
    notice = switcher(at)["positions"]["alpha=1"]["notice"]
    assert "1 of 4 runs are missing" in notice, notice
    assert any("11 / 12" in m.value for m in at.markdown)
    acc = chart(at, "x_acc")
    assert not any(t.get("name") == "fedquad seed 1" for t in acc["data"])
    assert "x_compute" not in [b.key for b in at.button]  # recorded: no compute button
    assert any("recorded studies are read-only" in c.value for c in at.caption)


def test_a_fully_missing_grid_value_is_marked_in_the_response(recorded_root, monkeypatch, tmp_path):
    root, _ = recorded_root
    copy = tmp_path / "rec2"
    shutil.copytree(root, copy)
    path = copy / "studies" / "toy-alpha.json"
    study = json.loads(path.read_text())
    for p in study["points"]:
        if p["coords"]["alpha"] is None:
            p["run_id"] = None
    path.write_text(json.dumps(study))
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(copy))
    at = open_explore()
    resp = chart(at, "x_acc_resp")
    marked = [s for s in resp["layout"]["shapes"] if s.get("label", {}).get("text") == "not computed"]
    assert len(marked) == 1 and marked[0]["x0"] > 1.0  # the IID column only (IID sits at 4)
    assert "Dashed columns: not computed yet." in shown(at, "acc_resp")["caption"]
    assert slider(at, "alpha") == "0.1"  # the default position, which was recorded


def test_recorded_runs_cannot_be_deleted(recorded_root):
    from app import service

    run_id = "toy-alpha-alpha0.1-methodfedavg-seed0"
    table = service.runs_table()
    assert set(table["source"]) == {"recorded"} and run_id in set(table["run_id"])
    with pytest.raises(service.StoreError, match="recorded run"):
        service.delete(run_id)
    with pytest.raises(service.StoreError, match="recorded run"):
        service.cancel(run_id)
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["r_run"] = run_id
    at.run()
    at.switch_page("views/runs.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="r_run").value == run_id
    assert "r_delete" not in [b.key for b in at.button]
    assert (recorded_root[0] / run_id / "config.json").exists()


def test_user_runs_come_first_and_recorded_reads_are_routed(recorded_root, run_store):
    from app import service

    root, ids = run_store  # the user's store with two real runs, beside the recorded root
    table = service.runs_table()
    assert set(table[table["source"] == "mine"]["run_id"]) == set(ids)
    assert (table["source"] == "recorded").sum() == 11 + 24  # toy-alpha (one point not recorded) + toy-margins
    rec = "toy-alpha-alphaiid-methodfedquad-seed0"
    assert service.read_config(rec)["alpha"] is None and service.snapshot_rounds(rec) == [6]
    assert service.source_of(ids[0]) == "mine" and service.is_recorded(rec)
    assert sorted(service.latest_group()) == sorted(ids)  # Live opens on the user's newest group


def test_the_study_and_slider_positions_round_trip_through_the_link(recorded_root):
    at = open_explore({"x_study": "recorded:toy-margins", "x_m1": "1", "x_m2": "0"})
    assert not at.exception, at.exception
    assert slider(at, "m1") == "1" and slider(at, "m2") == "0"
    assert at.query_params["x_study"] in ("recorded:toy-margins", ["recorded:toy-margins"])
    heat = chart(at, "x_heat")
    marker = next(t for t in heat["data"] if t["type"] == "scatter")
    assert marker["x"] == ["1"] and marker["y"] == ["0"]
    assert any("FedAvg" in t for t in heat["data"][0]["colorbar"]["ticktext"])
    move(at, m2="0.5")
    assert at.query_params["x_m2"] in ("0.5", ["0.5"]) and "x_alpha" not in at.query_params
    marker = next(t for t in chart(at, "x_heat")["data"] if t["type"] == "scatter")
    assert marker["x"] == ["1"] and marker["y"] == ["0.5"]  # the cell mark follows the move
    # out-of-range values in a link fall back to the defaults
    bad = open_explore({"x_study": "recorded:nope", "x_alpha": "7"})
    assert bad.selectbox(key="x_study").value == "recorded:toy-alpha"
    assert slider(bad, "alpha") == "0.1"


def test_compute_missing_points_of_a_user_study(recorded_root, monkeypatch, tmp_path):
    """A user's study with a missing point offers one button, which starts the engine in the background."""
    from app.service import launching

    root, _ = recorded_root
    mine = tmp_path / "runs"
    shutil.copytree(root, mine)
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(tmp_path / "recorded-empty"))
    started = []
    monkeypatch.setattr(launching, "launch_study", lambda name, spec=None, **kw: started.append((name, spec)) or 0)
    at = open_explore({"x_alpha": "1"})
    assert at.selectbox(key="x_study").value == "mine:toy-alpha"
    button = at.button(key="x_compute")
    assert button.label == "Compute 1 missing point"
    button.click().run()
    assert started == [("toy-alpha", None)]  # the stored study resumes with its own grid


def test_a_diverged_point_is_named_not_counted_missing(recorded_root, monkeypatch, tmp_path):
    """A recorded run that diverged (fmnist-methods' MOON seed 1) is counted as diverged and named,
    not offered as a point 'not recorded'; in the user's own store it is not recomputed either."""
    root, _ = recorded_root
    copy = tmp_path / "rec3"
    shutil.copytree(root, copy)
    study = json.loads((copy / "studies" / "toy-alpha.json").read_text())
    run_id = next(p["run_id"] for p in study["points"] if p["coords"] == {"alpha": 0.1, "method": "fedquad", "seed": 0})
    status = copy / run_id / "status.json"
    status.write_text(json.dumps({**json.loads(status.read_text()), "state": "diverged", "diverged_round": 4}))
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(copy))
    at = open_explore()
    assert not at.exception
    assert any(m.value.startswith("**10 / 12** grid points computed, 1 diverged") for m in at.markdown)
    captions = [c.value for c in at.caption]
    assert any("Diverged (the loss became NaN/inf), kept as recorded" in c and c.endswith("alpha 0.1, fedquad, seed 0.")
               for c in captions)
    assert any(c.startswith("1 point(s) of this recorded study were not recorded") for c in captions)  # the missing one
    notice = switcher(at)["positions"]["alpha=0.1"]["notice"]
    assert "1 of 4 runs diverged (left out)" in notice and "missing" not in notice, notice


def test_grid_args_for_the_study_command_line():
    from app.studies.catalog import grid_args

    assert grid_args({"alpha": [0.05, 1.0, None], "method": ["fedavg"], "seed": [0, 1]}) == [
        "--grid", "alpha=0.05,1.0,iid", "--grid", "method=fedavg", "--grid", "seed=0,1"]


@pytest.mark.parametrize("talk", [False, True])
def test_explore_renders_in_talk_and_presenter_mode(recorded_root, talk):
    at = open_explore({"talk": "1" if talk else "0", "presenter": "1", "x_study": "recorded:toy-margins"})
    assert not at.exception, at.exception
    args = switcher(at)
    assert args["talk"] is talk and "presenter" not in args  # the sliders are drawn in presenter mode too
    assert [a["key"] for a in args["layout"]["axes"]]  # ... and there are axes to slide
    assert "x_study" in [s.key for s in at.selectbox]  # the study picker stays in presenter mode
    here = args["positions"]["|".join(f"{a['key']}={args['value'][a['key']]}" for a in args["layout"]["axes"])]
    assert sum(1 for p in here["panels"].values() if p["fid"]) >= 6
    assert not at.get("selectbox") or "x_dl_pick" not in [s.key for s in at.selectbox]  # no download picker


def test_a_study_started_on_the_launch_page_runs_in_the_background(empty_store):
    """Launch form + one swept setting -> a named study trained by the engine in its own process,
    then shown on Explore with every point computed."""
    import time

    from app import service
    from app.studies import catalog as studies

    at = AppTest.from_file(MAIN, default_timeout=60)
    for k, v in {"l_methods": ["fedavg"], "l_num_clients": "6", "l_rounds": "2", "l_snapshot_every": "2",
                 "l_alpha": "0.5", "l_sweep": "1", "l_ax1": "alpha"}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("views/launch.py").run()
    at.text_input(key="l_ax1_v").set_value("0.5, iid")
    at.text_input(key="l_seeds").set_value("0")
    at.text_input(key="l_study").set_value("tiny")
    at.button(key="l_study_start").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Study tiny started" in s.value for s in at.success)
    ref = studies.StudyRef("mine", "tiny", "tiny")
    deadline = time.monotonic() + 150
    while service.study_running(ref) and time.monotonic() < deadline:
        time.sleep(1.0)
    assert not service.study_running(ref), service.study_log_tail(ref, 20)
    points = studies.points_frame(ref)
    assert studies.progress(points) == (2, 2), service.study_log_tail(ref, 20)
    assert points["alpha"].tolist() == [0.5, None]
    at.switch_page(EXPLORE).run()
    assert at.selectbox(key="x_study").value == "mine:tiny"
    assert any("2 / 2" in m.value for m in at.markdown)
    assert len(chart(at, "x_acc")["data"]) >= 3  # the seed, its band, the mean


def test_a_bad_sweep_stops_before_anything_starts(empty_store):
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["l_sweep"] = "1"
    at.run()
    at.switch_page("views/launch.py").run()
    at.text_input(key="l_ax1_v").set_value("0.5, lots")
    at.button(key="l_study_start").click().run()
    assert any("Not started" in e.value and "alpha" in e.value for e in at.error), [e.value for e in at.error]
    assert not (empty_store / ".studies").exists()


def test_the_browser_gets_the_positions_around_once_it_asks(recorded_root):
    """First only the slider position (fast to open); after the switcher's request, those up to
    two steps away (here the whole 3-value grid), so each later move is a swap in the browser;
    figures that do not change along the move (the response plots) are sent once, under one id."""
    at = open_explore()
    assert list(switcher(at)["positions"]) == ["alpha=0.1"] and switcher(at)["near"] is False
    move(at, near=True)
    args = switcher(at)
    assert args["near"] is True and sorted(args["positions"]) == ["alpha=0.1", "alpha=1", "alpha=IID"]
    acc = {k: p["panels"]["acc"]["fid"] for k, p in args["positions"].items()}
    assert len(set(acc.values())) == 3 and set(acc.values()) <= set(args["figures"])
    assert chart(at, "x_acc", {"alpha": "IID"})["layout"]["title"]["text"].startswith("Accuracy at α = IID")
    move(at, alpha="1")
    assert slider(at, "alpha") == "1" and sorted(switcher(at)["positions"]) == sorted(args["positions"])


def test_a_move_to_a_value_off_the_grid_is_ignored(recorded_root):
    at = open_explore()
    move(at, alpha="7")
    assert not at.exception, at.exception
    assert slider(at, "alpha") == "0.1"


def test_the_download_picker_offers_the_figures_at_the_position(recorded_root):
    at = open_explore()
    picker = at.selectbox(key="x_dl_pick")
    assert picker.value == "Accuracy over rounds" and "Accuracy against α" in picker.options
    assert any(o.startswith("Embeddings, ") for o in picker.options)
    move(at, alpha="IID")
    picker = at.selectbox(key="x_dl_pick")
    picker.set_value("Intra / inter ratio over rounds").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="x_dl_pick").value == "Intra / inter ratio over rounds"

