"""Follow the lecturer (``app/follow.py``): a presenter who shares writes their position (page,
Lesson step, Explore study and slider) on every page run and slider move; a session opened with
``?follow=<code>`` takes it over on its next run (the poll's re-run), can step out and back in,
and never writes the file."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, move, switcher
from lesson_helpers import write_lesson_root

from app.service import follow_store

LESSON, EXPLORE = "views/lesson.py", "views/explore.py"


@pytest.fixture(scope="module")
def lesson_root(tmp_path_factory):
    return write_lesson_root(tmp_path_factory.mktemp("follow") / "recorded")


@pytest.fixture
def lesson_env(monkeypatch, tmp_path, lesson_root):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(lesson_root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


def app(page: str | None = None, **params) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120)
    if page:
        at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def share(at: AppTest) -> str:
    at.button(key="follow_start").click().run()
    assert not at.exception, at.exception
    return at.session_state["_follow_share"]


def step_of(at: AppTest) -> int:
    assert not at.exception, at.exception
    if at.header:
        return int(at.header[0].value.split(" ·")[0])
    title = next(m.value for m in at.markdown if "<div class='fq-step-title'>" in m.value)  # talk mode: the nav row's title
    return int(title.split("'>", 1)[1].split(" ·")[0])


def position_file(runs, code):
    return runs / "follow" / f"{code}.json"


def test_the_presenter_writes_the_lesson_step_on_every_page_run(lesson_env):
    at = app(LESSON)
    assert not (lesson_env / "follow").exists()  # nothing written before sharing
    code = share(at)
    got = follow_store.read_position(lesson_env, code)
    assert got["position"] == {"page": LESSON, "state": {"step": 1}}
    seq = got["seq"]
    at.button(key="l_next").click().run()
    at.button(key="l_next").click().run()
    got = follow_store.read_position(lesson_env, code)
    assert got["position"] == {"page": LESSON, "state": {"step": 3}} and got["seq"] == seq + 2
    at.run()  # a run that moves nothing writes nothing
    assert follow_store.read_position(lesson_env, code)["seq"] == seq + 2
    link = at.sidebar.get("code")[0].value
    assert link.endswith(f"?follow={code}")
    assert at.sidebar.get("image"), "no QR code"
    at.button(key="follow_stop").click().run()
    at.button(key="l_next").click().run()
    assert follow_store.read_position(lesson_env, code)["position"]["state"] == {"step": 3}  # stopped


def test_the_link_carries_talk_mode(lesson_env):
    at = app(LESSON, talk="1")
    code = share(at)
    assert at.sidebar.get("code")[0].value.endswith(f"?follow={code}&talk=1")


def test_a_student_follows_the_lesson_steps_steps_out_and_back(lesson_env):
    code = follow_store.new_code()
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 3}})
    student = app(follow=code)  # opens the start page: the lecturer is on the Lesson
    assert step_of(student) == 3
    assert any("Following the lecturer" in m.value for m in student.markdown)
    written = position_file(lesson_env, code).read_bytes()

    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 6}})
    student.run()  # what the poll does when the seq changed
    assert step_of(student) == 6

    student.button(key="follow_out").click().run()
    assert step_of(student) == 6
    student.button(key="l_back").click().run()  # on my own
    assert step_of(student) == 5
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 7}})
    student.run()
    assert step_of(student) == 5  # stepped out: the lecturer no longer moves me
    written = position_file(lesson_env, code).read_bytes()

    student.button(key="follow_again").click().run()
    assert step_of(student) == 7  # back in: at once at the lecturer's step
    assert position_file(lesson_env, code).read_bytes() == written  # the student never wrote


@pytest.mark.parametrize("how", ["next", "back", "another page"])
def test_a_student_who_leaves_the_lecturers_position_is_told_following_is_paused(lesson_env, how):
    """Next, Back or another page (as the browser's Back) pauses following: the banner says
    "Paused" and offers "Rejoin the lecturer"; the lecturer's next move does not pull the student
    back; rejoining does, at once."""
    code = follow_store.new_code()
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 4}})
    student = app(follow=code)
    assert step_of(student) == 4 and any("Following the lecturer" in m.value for m in student.markdown)
    if how == "another page":
        student.switch_page("views/partitions.py").run()
    else:
        student.button(key="l_next" if how == "next" else "l_back").click().run()
    assert not student.exception, student.exception
    assert any("Paused" in m.value for m in student.markdown), [m.value for m in student.markdown]
    assert not any("Following the lecturer" in m.value for m in student.markdown)
    assert student.button(key="follow_again").label == "Rejoin the lecturer"
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 6}})
    student.run()
    if how != "another page":
        assert step_of(student) == (5 if how == "next" else 3)  # paused: not pulled back
    student.button(key="follow_again").click().run()
    assert step_of(student) == 6


def test_a_student_never_writes_even_after_moving(lesson_env):
    code = follow_store.new_code()
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 2}})
    before = position_file(lesson_env, code).read_bytes()
    student = app(follow=code)
    student.button(key="l_next").click().run()
    assert student.button(key="follow_again")  # moved: paused
    student.button(key="l_next").click().run()
    assert step_of(student) == 4
    assert not student.sidebar.get("code"), "a following session offers no share link"
    assert position_file(lesson_env, code).read_bytes() == before
    assert [p.name for p in (lesson_env / "follow").iterdir()] == [f"{code}.json"]


@pytest.mark.parametrize("bad", ["../../etc/passwd", "ABC", "abcdefgh.json"])
def test_a_bad_follow_code_is_ignored(lesson_env, bad):
    at = app(LESSON, follow=bad)
    assert not at.exception, at.exception
    assert not any("Following the lecturer" in m.value for m in at.markdown)
    assert not at.get("button") or not [b for b in at.button if b.key in ("follow_out", "follow_again")]


def test_a_presenter_position_naming_another_key_or_page_is_not_taken(lesson_env):
    code = follow_store.new_code()
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 4, "presenter": True,
                                                                             "l_mine": True}})
    student = app(follow=code)
    assert step_of(student) == 4
    assert not student.session_state["presenter"] and not student.session_state["l_mine"]
    follow_store.write_position(lesson_env, code, {"page": "../secret.py", "state": {"step": 8}})
    student.run()
    assert step_of(student) == 4


def test_a_student_follows_the_explore_study_and_slider(recorded_root, tmp_path):
    runs = tmp_path / "runs"
    teacher = app(EXPLORE)
    code = share(teacher)
    assert follow_store.read_position(runs, code)["position"]["page"] == EXPLORE
    teacher.selectbox(key="x_study").set_value("recorded:toy-margins").run()
    move(teacher, m1="1")  # a slider move in the browser: re-runs only the sliders' fragment
    assert switcher(teacher)["value"]["m1"] == "1"
    state = follow_store.read_position(runs, code)["position"]["state"]
    assert state["x_study"] == "recorded:toy-margins" and state["x_m1"] == "1"

    student = app(LESSON, follow=code)  # opened on another page: goes to Explore
    assert not student.exception, student.exception
    assert student.session_state["x_study"] == "recorded:toy-margins"
    assert switcher(student)["value"]["m1"] == "1"
    assert student.query_params["follow"] in (code, [code])

    move(teacher, m1="0", m2="0.5")
    student.run()
    assert switcher(student)["value"] == switcher(teacher)["value"] == {"m1": "0", "m2": "0.5"}


def test_a_talk_mode_link_keeps_talk_mode_across_the_page_switch(lesson_env):
    code = follow_store.new_code()
    follow_store.write_position(lesson_env, code, {"page": LESSON, "state": {"step": 2}})
    student = app(follow=code, talk="1")
    assert step_of(student) == 2
    assert student.session_state["talk"] is True
    assert student.query_params["talk"] in ("1", ["1"])


def test_the_presenter_in_presenter_mode_writes_the_lesson_step(lesson_env):
    """Presenter mode ends the Lesson's run early (``st.stop()``: no export block): the step the
    presenter moves to is written all the same (it was not: students stayed on the page before the
    Lesson while the presenter stepped through it; benchmarks/presenter_to_students.py found it)."""
    at = app(LESSON, talk="1")
    code = share(at)
    at.toggle(key="presenter").set_value(True).run()
    assert not at.exception, at.exception
    assert at.session_state["presenter"]
    at.button(key="l_next").click().run()
    assert step_of(at) == 2
    assert follow_store.read_position(lesson_env, code)["position"] == {"page": LESSON, "state": {"step": 2}}
