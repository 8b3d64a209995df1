"""The class's poll (``app/lesson/poll.py``, ``app/service/poll_store.py``): in class mode the presenter
asks a Lesson step's prediction, students (other sessions, sharing the class folder) pick one
answer each before the reveal, the presenter reveals, and everyone sees the anonymous tally beside
the figure. A student cannot ask, reveal or clear (no control, and the store refuses); one answer
per session; answers capped at the class's cap; a damaged poll file is named, never a traceback;
nothing is written outside the class's follow folder."""
from __future__ import annotations

import json
import os
import secrets

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN
from lesson_helpers import write_lesson_root

from app.lesson.questions import QUESTIONS
from app.service import poll_store, roles

LESSON = "views/lesson.py"
CODE = "roomcode"
POLL_KEYS = {"poll_ask", "poll_reveal", "poll_clear"}


@pytest.fixture(scope="module")
def lesson_root(tmp_path_factory):
    return write_lesson_root(tmp_path_factory.mktemp("poll") / "recorded")


@pytest.fixture
def classroom(monkeypatch, tmp_path, lesson_root):
    secret = secrets.token_urlsafe(24)
    path = tmp_path / "presenter.secret"
    path.write_text(secret)
    path.chmod(0o600)
    monkeypatch.setenv("FEDQUAD_CLASS_SECRET_FILE", str(path))
    monkeypatch.setenv("FEDQUAD_CLASS_CODE", CODE)
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(lesson_root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return secret, tmp_path / "runs"


def _open(token: str | None = None, **params) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120)
    if token is not None:
        at.query_params["token"] = token
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if token is not None:
        at.switch_page(LESSON).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _text(at) -> str:
    return "\n".join(str(getattr(e, "value", "")) for e in [*at.main, *at.sidebar])


def _keys(at) -> set[str]:
    return {b.key for b in at.button}


def _poll_file(runs):
    return runs / "follow" / f"{CODE}.poll.json"


def _radio(at):
    return next(r for r in at.radio if (r.key or "").startswith("poll_vote_"))


def _bars(at) -> list[str]:
    return [p.proto.text for p in at.get("progress") if ":" in p.proto.text and "(" in p.proto.text]


def test_ask_answer_once_reveal_tally_across_two_students(classroom):
    secret, runs = classroom
    presenter = _open(secret)
    presenter.button(key="l_next").click().run()
    presenter.button(key="l_next").click().run()
    presenter.button(key="l_next").click().run()  # step 4: the averaged model across α
    assert not _poll_file(runs).exists()  # nothing written before a question
    assert "poll_reveal" not in _keys(presenter)
    presenter.button(key="poll_ask").click().run()
    assert not presenter.exception, [e.value for e in presenter.exception]
    q = QUESTIONS[4]
    assert any(q.text.split(":")[0] in m.value for m in presenter.markdown)  # the question beside the figure
    assert {"poll_reveal", "poll_clear"} <= _keys(presenter)

    a, b = _open(), _open(follow=CODE)  # the plain address and the students' link: both follow the class
    for s in (a, b):
        assert any("Following the lecturer" in m.value for m in s.markdown)
        assert not (_keys(s) & POLL_KEYS), _keys(s) & POLL_KEYS
        assert not _bars(s), "a tally before the reveal"
    options = list(_radio(a).options)
    assert len(options) == len(q.answers) and _radio(a).value is None  # none picked for the student
    _radio(a).set_value(options[1]).run()
    _radio(a).set_value(options[0]).run()  # a second pick replaces the first
    _radio(b).set_value(options[0]).run()
    assert not a.exception and not b.exception
    poll = json.loads(_poll_file(runs).read_text())["poll"]
    assert sorted(poll["votes"].values()) == [0, 0]  # one answer per session, the last pick
    assert any("Counted" in c.value for c in a.caption)

    presenter.run()
    assert any("**2** answers" in m.value for m in presenter.markdown), [m.value for m in presenter.markdown]
    assert not _bars(presenter), "the presenter's projector shows no tally before the reveal"
    presenter.button(key="poll_reveal").click().run()
    bars = _bars(presenter)
    assert len(bars) == len(q.answers) and "**2** (100%)" in bars[0] and "**0** (0%)" in bars[1], bars
    a.run()
    assert not [r for r in a.radio if (r.key or "").startswith("poll_vote_")], "an answer after the reveal"
    assert _bars(a) and "← yours" in _bars(a)[0] and not any("← yours" in t for t in _bars(a)[1:])

    voter = a.session_state["_poll_voter"]  # the store refuses a late answer, whatever a page shows
    with pytest.raises(poll_store.PollError, match="revealed"):
        poll_store.vote(runs, CODE, poll["id"], voter, 1, len(q.answers))

    presenter.button(key="poll_clear").click().run()
    a.run()
    assert not _bars(a) and not _bars(presenter)
    assert sorted(p.name for p in (runs / "follow").iterdir()) == sorted(
        [f"{CODE}.json", f"{CODE}.poll.json", f"{CODE}.poll.lock"])  # nothing else written
    assert list(runs.iterdir()) == [runs / "follow"]


def test_a_student_session_changes_its_answer_a_bounded_number_of_times(classroom):
    from app.lesson.poll import MAX_CHANGES

    secret, runs = classroom
    presenter = _open(secret, step="7")
    presenter.button(key="poll_ask").click().run()
    student = _open()
    options = list(_radio(student).options)
    for i in range(MAX_CHANGES):
        _radio(student).set_value(options[i % 2]).run()
    last = options[(MAX_CHANGES - 1) % 2]
    _radio(student).set_value(options[2]).run()  # one pick too many: refused, the counted one shown
    assert not student.exception, [e.value for e in student.exception]
    assert any(f"picked {MAX_CHANGES} times" in w.value for w in student.warning)
    assert _radio(student).value == last
    poll = json.loads(_poll_file(runs).read_text())["poll"]
    assert list(poll["votes"].values()) == [options.index(last)]


def test_the_round_changes_on_ask_reveal_clear_and_never_on_an_answer(classroom, monkeypatch):
    """A following student's once-a-second fragment re-runs the page when the round changed: a
    question or its reveal shows up without a reload; 200 answers do not re-run 200 pages."""
    _, runs = classroom
    monkeypatch.setattr(roles, "is_presenter", lambda: True)
    r0 = poll_store.round_of(runs, CODE)
    pid = poll_store.ask(runs, CODE, 4, QUESTIONS[4].qid, {"skew": "α=0.1", "iid": "IID"})["poll"]["id"]
    r1 = poll_store.round_of(runs, CODE)
    monkeypatch.setattr(roles, "is_presenter", lambda: False)
    poll_store.vote(runs, CODE, pid, poll_store.new_voter(), 2, 3)
    assert poll_store.round_of(runs, CODE) == r1 > r0
    monkeypatch.setattr(roles, "is_presenter", lambda: True)
    poll_store.reveal(runs, CODE)
    r2 = poll_store.round_of(runs, CODE)
    poll_store.clear(runs, CODE)
    assert r0 < r1 < r2 < poll_store.round_of(runs, CODE)


def test_a_student_cannot_ask_reveal_or_clear(classroom):
    _, runs = classroom
    student = _open(step="4")
    assert not (_keys(student) & POLL_KEYS)
    for action, args in ((poll_store.ask, (4, "global_rank", {})), (poll_store.reveal, ()), (poll_store.clear, ())):
        with pytest.raises(roles.NotPresenter, match="Only the presenter can"):
            action(runs, CODE, *args)
    assert not _poll_file(runs).exists()


def test_answers_are_capped_at_the_class_cap_and_the_file_stays_small(classroom, monkeypatch):
    _, runs = classroom
    monkeypatch.setenv("FEDQUAD_CLASS_MAX_SESSIONS", "5")
    monkeypatch.setattr(roles, "is_presenter", lambda: True)
    pid = poll_store.ask(runs, CODE, 7, QUESTIONS[7].qid, {"skew": "α=0.1", "iid": "IID"})["poll"]["id"]
    monkeypatch.setattr(roles, "is_presenter", lambda: False)
    voters = [poll_store.new_voter() for _ in range(300)]  # a flood of sessions
    refused = 0
    for i, v in enumerate(voters):
        try:
            poll_store.vote(runs, CODE, pid, v, i % 3, 3)
        except poll_store.PollError as e:
            assert "cap" in str(e)
            refused += 1
    assert refused == 295
    poll_store.vote(runs, CODE, pid, voters[0], 2, 3)  # one already counted may still change
    with pytest.raises(poll_store.PollError, match="Not one of the answers"):
        poll_store.vote(runs, CODE, pid, voters[1], 3, 3)
    with pytest.raises(poll_store.PollError, match="no longer asked"):
        poll_store.vote(runs, CODE, "0" * 16, voters[1], 0, 3)
    poll = json.loads(_poll_file(runs).read_text())["poll"]
    assert len(poll["votes"]) == 5 and poll["votes"][voters[0]] == 2
    monkeypatch.setenv("FEDQUAD_CLASS_MAX_SESSIONS", "5000")  # a cap past the hard bound: the hard bound
    assert poll_store.max_voters() == poll_store.HARD_VOTERS
    full = {"round": 1, "poll": {**poll, "votes": {f"{i:016x}": 3 for i in range(poll_store.HARD_VOTERS)}}}
    assert len(json.dumps(full, indent=2)) < poll_store.MAX_BYTES  # the largest poll file reads back


@pytest.mark.parametrize("damage", ["not json", "wrong shape", "too large", "a pipe"])
def test_a_damaged_poll_file_is_named_and_ignored(classroom, damage):
    secret, runs = classroom
    path = _poll_file(runs)
    path.parent.mkdir(parents=True)
    if damage == "a pipe":
        os.mkfifo(path)
    else:
        path.write_text({"not json": "{", "wrong shape": json.dumps({"round": 1, "poll": {"step": "4"}}),
                         "too large": json.dumps({"round": 1, "poll": None, "x": "y" * poll_store.MAX_BYTES})}[damage])
    student = _open(step="4")
    assert not (_keys(student) & POLL_KEYS) and not _bars(student)
    presenter = _open(secret)
    warnings = [w.value for w in presenter.warning]
    assert any(f"follow/{CODE}.poll.json" in w and "ignored" in w for w in warnings), warnings
    for _ in range(3):
        presenter.button(key="l_next").click().run()
    presenter.button(key="poll_ask").click().run()  # a new question replaces the damaged file
    assert not presenter.exception and not presenter.warning
    assert json.loads(path.read_text())["poll"]["step"] == 4


def test_a_link_planted_at_the_follow_folder_is_never_written_through(classroom, tmp_path, monkeypatch):
    _, runs = classroom
    outside = tmp_path / "outside"
    outside.mkdir()
    runs.mkdir()
    (runs / "follow").symlink_to(outside, target_is_directory=True)
    monkeypatch.setattr(roles, "is_presenter", lambda: True)
    with pytest.raises(ValueError, match="symbolic link"):
        poll_store.ask(runs, CODE, 4, QUESTIONS[4].qid, {})
    assert list(outside.iterdir()) == []


def test_no_poll_outside_class_mode(monkeypatch, tmp_path, lesson_root):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(lesson_root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = _open(step="4")
    at.switch_page(LESSON).run()
    assert not (_keys(at) & POLL_KEYS)
    with pytest.raises(poll_store.PollError, match="in a class only"):
        poll_store.vote(tmp_path / "runs", CODE, "0" * 16, "1" * 16, 0, 3)
