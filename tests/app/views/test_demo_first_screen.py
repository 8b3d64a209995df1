"""What a lecturer sees around the one-click demo: the Live page's progress at its top (above the
charts, not only in the summary table below the fold), the demo button without a tooltip (after
the click the pointer rests on it, and its tooltip lay over the accuracy chart's legend), a
"start here" line on the start page (not in presenter mode), and in presenter mode a Live page
whose intro is short (no title, the pair's note in one sentence)."""
from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import walk, MAIN, open_page


_walk = walk  # the shared helper (app_helpers)


def _running_pair(root, done: int = 12, total: int = 30):
    """Two runs (FedAvg, FedQuad) marked running at ``done``/``total`` by this live process, one
    metrics row each (no training)."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore, process_identity

    store, writers = RunStore(root), []
    for method in ("fedavg", "fedquad"):
        w = store.create(RunConfig(dataset="digits", rounds=total, method=method).resolved().to_dict())
        w.set_status("running", round=done, total_rounds=total, group="g-progress", **process_identity(os.getpid()))
        w.append_metrics({"round": done, "test_accuracy": 0.5, "train_loss": 1.0, "samples_total": 100 * done,
                          "elapsed": 1.0 * done})
        writers.append(w)
    return store, writers


def test_live_shows_each_runs_progress_above_the_charts(empty_store):
    store, writers = _running_pair(empty_store)
    at = open_page("views/live.py")
    assert not at.exception, at.exception
    charts = ("plotly_chart", "bidi_component")  # while runs train the charts update in place (app.livechart)
    order = [el for el in _walk(at.main) if el.type in ("progress", *charts)]
    bars = [el.proto for el in order if el.type == "progress"]
    assert len(bars) == 2, [el.type for el in order]
    assert all("round 12/30" in b.text for b in bars) and all(b.value == 40 for b in bars), [b.text for b in bars]
    first_chart = next(i for i, el in enumerate(order) if el.type in charts)
    assert all(el.type == "progress" for el in order[:first_chart]) and first_chart == 2  # both bars first
    for w in writers:  # ended: no bars (the summary table keeps the numbers)
        w.set_status("finished")
    at = open_page("views/live.py")
    assert not [el for el in _walk(at.main) if el.type == "progress"]


def test_the_demo_button_has_no_tooltip_and_says_what_it_does_under_it(empty_store):
    from app import sidebar

    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    button = at.button(key="quick_start")
    assert not button.proto.help, button.proto.help
    assert any("opens the Live page" in c.value for c in at.sidebar.caption)
    assert sidebar.QUICK_PRESET in button.label


@pytest.mark.parametrize("presenter", [False, True])
def test_the_start_page_says_where_to_start_except_in_presenter_mode(recorded_root, presenter):
    at = AppTest.from_file(MAIN, default_timeout=60)
    if presenter:
        at.query_params["presenter"] = "1"
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Explore"]  # the start page with recorded studies
    hints = [i.value for i in at.info if "Start here" in i.value]
    if presenter:
        assert not hints
    else:
        assert len(hints) == 1 and "Collapse in one minute" in hints[0] and "slider" in hints[0]


def test_live_in_presenter_mode_has_a_short_intro(monkeypatch, tmp_path):
    """On a fresh clone Live shows the recorded pair: in talk mode with the pair's two-sentence note;
    in presenter mode with its first sentence only; in neither a page title above the figures (the
    projector's first screen is theirs)."""
    from app_helpers import ROOT

    if not (ROOT / "assets" / "recorded" / "studies").is_dir():
        pytest.skip("no recorded studies in assets/recorded")
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(ROOT / "assets" / "recorded"))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    texts = {}
    for presenter in (False, True):
        at = AppTest.from_file(MAIN, default_timeout=120)
        at.query_params["talk"] = "1"
        if presenter:
            at.query_params["presenter"] = "1"
        at.run()
        at.session_state["talk"], at.session_state["presenter"] = True, presenter
        at.switch_page("views/live.py").run()
        assert not at.exception, at.exception
        before = []
        for el in _walk(at.main):
            if el.type == "plotly_chart":
                break
            if el.type in ("title", "caption", "markdown"):
                before.append(str(el.value))
        texts[presenter] = before
    assert "Live" not in texts[False] and "Live" not in texts[True]
    normal, short = (" ".join(t for t in texts[p] if "recorded pair" in t) for p in (False, True))
    assert normal and short and len(short) < len(normal) and "Your own runs" not in short


def test_a_queued_run_shows_its_total_from_its_config(empty_store):
    """A run waiting for a slot has no total in its status yet: the bar reads the config's rounds."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore, process_identity

    w = RunStore(empty_store).create(RunConfig(dataset="digits", rounds=30).resolved().to_dict())
    w.set_status("queued", **process_identity(os.getpid()))
    at = open_page("views/live.py")
    assert not at.exception, at.exception
    bars = [el.proto for el in _walk(at.main) if el.type == "progress"]
    assert len(bars) == 1 and bars[0].text.endswith(": round 0/30, queued") and bars[0].value == 0, bars
