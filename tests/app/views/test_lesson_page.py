"""The Lesson page headless: every step renders from a recorded root, Back/Next and ?step= agree,
"Use my runs" swaps the data, a missing study says what to run, and "Add to my deck" collects."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, trace_values
from lesson_helpers import write_lesson_root, write_root

N_STEPS = 9


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("lesson")
    recorded = write_lesson_root(base / "recorded")
    mine = write_root(base / "runs", name="my-alpha", alphas=(0.1, None), acc_scale=0.5, prefix="mine")
    return recorded, mine


@pytest.fixture
def env(monkeypatch, roots):
    recorded, mine = roots
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(mine))
    return recorded, mine


def lesson_app(step: int | None = None, **params) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.switch_page("views/lesson.py")
    if step is not None:
        at.query_params["step"] = str(step)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("step", range(1, N_STEPS + 1))
def test_every_step_renders_from_the_recorded_root(env, step):
    at = lesson_app(step)
    assert not at.exception, at.exception
    assert at.header[0].value.startswith(f"{step} ·")
    assert not at.warning, [w.value for w in at.warning]
    assert len(charts(at)) >= 1
    assert at.query_params["step"] == [str(step)] or at.query_params["step"] == str(step)


def test_a_step_says_what_the_registered_confirmation_found(env):
    """Step 4 teaches global collapse: under its takeaway, what the registered rows C1, C2 and C9
    found on fresh seeds (each row and its verdict); their numbers in "The numbers"."""
    from app.studies import confirmed

    rows = confirmed.for_step(4)
    assert [r.id for r in rows] == ["C1", "C2", "C9"]
    at = lesson_app(4)
    assert not at.exception, at.exception
    line = next(m.value for m in at.markdown if "Confirmed on fresh seeds?" in m.value)
    assert all(r.short in line for r in rows), line
    numbers = " ".join(m.value for m in next(e for e in at.expander if e.label == "The numbers").markdown)
    assert all(r.numbers in numbers for r in rows if r.numbers)
    at9 = lesson_app(9)
    assert not at9.exception and at9.header[0].value == "9 · Confirmed on fresh seeds?"


@pytest.mark.parametrize("step", [1, 4, 7])
def test_the_takeaway_leads_and_the_numbers_sit_under_the_figure(env, step):
    """Issue 45: the step's takeaway is the first text under its title; its sentences (numbers and
    p-values) are in "The numbers", an expander, not above the figure."""
    from app.lesson import steps as lesson_steps
    from app.lesson.data import load

    built = lesson_steps.build_step(step, load(False)[0])
    assert built.takeaway and built.sentences
    at = lesson_app(step)
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    first = next(t for t in texts if built.takeaway in t)
    assert texts.index(first) < min(texts.index(s) for s in built.sentences)
    numbers = next(e for e in at.expander if e.label == "The numbers")
    inside = [m.value for m in numbers.markdown]
    assert all(s in inside for s in built.sentences) and built.takeaway not in " ".join(inside)


def test_next_back_and_the_url_agree(env):
    at = lesson_app(3)
    assert at.header[0].value.startswith("3 ·")
    at.button(key="l_next").click().run()
    assert at.header[0].value.startswith("4 ·") and str(at.query_params["step"]).strip("[]'") == "4"
    at.button(key="l_back").click().run()
    at.button(key="l_back").click().run()
    assert at.header[0].value.startswith("2 ·") and str(at.query_params["step"]).strip("[]'") == "2"
    at = lesson_app(1)
    assert at.button(key="l_back").disabled and not at.button(key="l_next").disabled


def test_use_my_runs_changes_the_figures_data(env):
    at = lesson_app(4)
    recorded = [trace_values(t) for t in charts(at)[0]["data"]]
    text_recorded = " ".join(m.value for m in at.markdown)
    at.toggle(key="l_mine").set_value(True).run()
    assert not at.exception, at.exception
    mine = [trace_values(t) for t in charts(at)[0]["data"]]
    assert mine != recorded
    assert " ".join(m.value for m in at.markdown) != text_recorded
    assert at.selectbox(key="l_study").value == "my-alpha"


def test_missing_recorded_study_says_what_to_run(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(tmp_path / "nothing"))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = lesson_app(3)
    assert not at.exception, at.exception
    assert any("record_studies.py" in w.value for w in at.warning)
    at = lesson_app(5)  # the quadruplet picture needs no study
    assert not at.exception and len(charts(at)) == 2


def test_quadruplet_sliders_redraw_the_terms(env):
    at = lesson_app(5)
    before = [m.value for m in at.metric]
    at.slider(key="q_m1").set_value(3.0).run()
    after = [m.value for m in at.metric]
    assert after[0] != before[0] and after[3] != before[3]  # term 1 of FedQuad and of Chen's form
    at.slider(key="q_n1_x").set_value(-2.5).run()  # n1 moved far out: FedQuad's term 1 drops
    assert float(at.metric[0].value) < float(after[0])
    at.selectbox(key="q_preset").set_value("Separated (loss zero)").run()
    from app.lesson.quadruplet import PRESETS, quadruplet

    assert at.slider(key="q_n1_x").value == -1.5  # the preset put the points back
    assert float(at.metric[2].value) == pytest.approx(quadruplet(PRESETS["Separated (loss zero)"], 3.0, 0.5).loss,
                                                      abs=1e-3)
    at.toggle(key="q_chen").set_value(False).run()
    assert len(charts(at)) == 1


def test_add_to_my_deck_from_another_page(env, tmp_path):
    at = lesson_app(1)
    at.button(key="deck-dl_l1_0").click().run()
    at.button(key="deck-dl_l1_1").click().run()
    deck = at.session_state["my_deck"]
    assert [d["name"] for d in deck] == ["partition_IID", "partition_α=0.1"]
    at.button(key="deck_down_0").click().run()
    assert [d["name"] for d in at.session_state["my_deck"]] == ["partition_α=0.1", "partition_IID"]
    at.button(key="deck_rm_1").click().run()
    assert len(at.session_state["my_deck"]) == 1


def test_the_pictures_term_values_equal_the_engine_losses(env):
    """What step 5 displays (metric tiles, FedQuad then Chen) equals fedquad_core.numerics.losses on the
    preset's points at the sliders' margins."""
    import torch

    from app.lesson.quadruplet import PRESETS, POINTS
    from fedquad_core.numerics.losses import chen_quadruplet_loss, fedquad_loss

    at = lesson_app(5)
    at.slider(key="q_m1").set_value(2.0).run()
    at.slider(key="q_m2").set_value(1.5).run()
    at.selectbox(key="q_preset").set_value("Collapsed (all close)").run()
    shown = [float(m.value) for m in at.metric]  # term1, term2, loss for FedQuad, then for Chen
    t = [torch.tensor([PRESETS["Collapsed (all close)"][k]], dtype=torch.float64) for k in POINTS]
    assert shown[2] == pytest.approx(fedquad_loss(*t, 2.0, 1.5).item(), abs=1e-3)
    assert shown[5] == pytest.approx(chen_quadruplet_loss(*t, 2.0, 1.5).item(), abs=1e-3)
    assert shown[0] + shown[1] == pytest.approx(shown[2], abs=2e-3)


@pytest.mark.parametrize("step", [3, 5])
def test_talk_and_presenter_mode(env, step):
    """Presenter mode hides the controls (source switch, export) but keeps Back / Next, step 5's
    sliders (m1, m2 and the points, as in talk mode) and the presenter bar's way out; talk mode
    draws the talk look (large fonts)."""
    at = lesson_app(step, talk="1", presenter="1")
    assert not at.exception, at.exception
    keys = {w.key for w in at.toggle} | {w.key for w in at.slider}
    assert "l_mine" not in keys
    assert ({"q_m1", "q_m2", "q_a_x"} <= keys) == (step == 5), keys
    assert at.button(key="l_next") and at.button(key="l_back") and at.button(key="fq_exit_presenter")
    assert not [b for b in at.button if str(b.key).startswith(("deck-", "l_export"))]
    assert all(c["layout"]["font"]["size"] == 20 for c in charts(at))


def test_presenter_mode_has_a_way_out_and_a_page_menu(env):
    """Presenter mode hides the sidebar's reopen button with the toolbar: its bar offers every page,
    the one-minute demo and "Exit presenter", which turns presenter mode off (the page list, the
    sidebar's demo button and the link's ``presenter`` are back) and keeps talk mode."""
    at = lesson_app(2, talk="1", presenter="1")
    assert not at.exception, at.exception
    assert at.button(key="quick_start_presenter") and "quick_start" not in {b.key for b in at.button}
    menu = [e.proto.label for e in at.get("page_link")]
    assert menu == ["Explore", "Partitions", "Launch", "Live", "Embeddings", "Geometry", "Clients", "Runs", "Lesson"]
    at.button(key="fq_exit_presenter").click().run()
    assert not at.exception, at.exception
    assert at.session_state["presenter"] is False and at.session_state["talk"] is True
    assert "presenter" not in at.query_params
    assert "fq_exit_presenter" not in {b.key for b in at.button}
    assert at.button(key="quick_start")  # the sidebar's own demo button: the sidebar is the lecturer's again
    assert int(at.session_state["step"]) == 2  # the same step, out of presenter mode


def test_deck_collects_from_another_page(env):
    at = AppTest.from_file(MAIN, default_timeout=120).run()  # the default page: Explore / Partitions
    at.switch_page("views/partitions.py").run()
    assert not at.exception, at.exception
    at.button(key="deck-dl_heat_main").click().run()
    assert [d["name"] for d in at.session_state["my_deck"]][0].startswith("partition_")
    at.switch_page("views/lesson.py").run()
    assert any(e.label.startswith("My deck (1 figure)") for e in at.expander)
    assert at.button(key="deck_rm_0")


def test_export_two_steps_from_the_page(env):
    """The page's export: two chosen steps, PDF + PowerPoint, rendered through kaleido."""
    import io

    from pptx import Presentation
    from pypdf import PdfReader

    from app.lesson import steps as lesson_steps
    from app.lesson.data import load

    at = lesson_app(1)
    at.multiselect(key="l_export_steps").set_value(["1 · Label skew", "5 · FedQuad's idea"]).run()
    next(b for b in at.get("button_group") if b.key == "l_export_formats").set_value(["pdf", "pptx"]).run()
    at.button(key="l_export_build").click().run()
    assert not at.exception, at.exception
    files = at.session_state["l_export_files"]
    assert set(files) == {"pdf", "pptx"}
    titles = [s.shapes.title.text for s in Presentation(io.BytesIO(files["pptx"])).slides]
    assert len(PdfReader(io.BytesIO(files["pdf"])).pages) == len(titles) >= 2  # page for page
    # each step's pages titled with its takeaway, alone or "(1/n)" ... "(n/n)" (one figure a page); the
    # step's name in the footer
    steps = [re.sub(r" \(\d+/\d+\)$", "", t) for t in titles]
    assert list(dict.fromkeys(steps)) == [lesson_steps.build_step(i, None if i == 5 else load(False)[0]).takeaway
                                          for i in (1, 5)]
    footers = [" ".join(sh.text_frame.text for sh in sl.shapes if sh.has_text_frame)
               for sl in Presentation(io.BytesIO(files["pptx"])).slides]
    assert "1 · Label skew" in footers[0] and "5 · FedQuad's idea" in footers[-1]
