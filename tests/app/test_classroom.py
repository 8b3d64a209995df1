"""Class mode (`bash scripts/start.sh --class`): only the session that opened the presenter's link
(?token=<secret>) may start, cancel, delete, start studies or build the deck; every other session
is a student's, refused at the service layer and shown no write control; students follow the
class's code on any link; the secret is taken out of the URL and never shown."""
from __future__ import annotations

import secrets

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN

WRITE_KEYS = {"quick_start", "quick_start_presenter", "r_delete", "r_cancel", "x_compute", "l_demo_compute", "follow_start",
              "follow_stop", "l_start", "l_study_start", "l_takehome_build", "poll_ask", "poll_reveal", "poll_clear"}


@pytest.fixture
def classroom(monkeypatch, tmp_path, run_store):
    secret = secrets.token_urlsafe(24)
    path = tmp_path / "presenter.secret"
    path.write_text(secret)
    path.chmod(0o600)
    monkeypatch.setenv("FEDQUAD_CLASS_SECRET_FILE", str(path))
    monkeypatch.setenv("FEDQUAD_CLASS_CODE", "roomcode")
    return secret


def _open(token: str | None = None, page: str | None = None, **params) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=90)
    if token is not None:
        at.query_params["token"] = token
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def _buttons(at) -> set[str]:
    return {b.key for b in at.button}


def _text(at) -> str:
    return "\n".join(str(getattr(e, "value", "")) for e in [*at.main, *at.sidebar])


@pytest.mark.parametrize("how", ["plain", "students-link", "wrong-secret", "old-secret"])
def test_a_student_sees_no_write_control_on_any_page(classroom, how):
    token = {"plain": None, "students-link": None, "wrong-secret": "x" * 32,
             "old-secret": secrets.token_urlsafe(24)}[how]
    params = {"follow": "roomcode"} if how == "students-link" else {}
    for page in ("views/runs.py", "views/live.py", "views/explore.py", "views/lesson.py", "views/partitions.py"):
        at = _open(token, page, **params)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not (_buttons(at) & WRITE_KEYS), (page, _buttons(at) & WRITE_KEYS)
        assert classroom not in _text(at)
        assert "token" not in at.query_params
        assert "Collapse in one minute" not in _text(at)  # no pointer to a button a student lacks


def test_a_student_in_presenter_mode_gets_the_page_menu_without_launch_or_demo(classroom):
    at = _open(None, "views/lesson.py", presenter="1", talk="1")
    assert not at.exception, [e.value for e in at.exception]
    assert not (_buttons(at) & WRITE_KEYS), _buttons(at) & WRITE_KEYS
    menu = [e.proto.label for e in at.get("page_link")]
    assert "Lesson" in menu and "Live" in menu and "Launch" not in menu, menu
    assert "fq_exit_presenter" in _buttons(at)


def test_the_runs_page_shows_a_student_no_server_path_and_no_bundle(classroom, run_store):
    from app import service

    root, ids = run_store
    at = _open(None, "views/runs.py")
    assert not at.exception, [e.value for e in at.exception]
    shown = _text(at) + "\n".join(str(j.value) for j in at.get("json"))
    assert str(root.resolve()) not in shown and str(service.recorded_dir()) not in shown
    assert not {"r_bundle", "r_dl"} & _buttons(at)
    assert '"pid"' not in shown and "pid_start" not in shown
    presenter = _open(classroom, "views/runs.py")
    assert str(root.resolve()) in _text(presenter) and "r_bundle" in _buttons(presenter)


def test_the_launch_page_is_not_offered_to_a_student(classroom):
    at = _open()
    with pytest.raises(Exception):
        at.switch_page("views/launch.py").run()
        assert not at.exception  # (if the switch itself did not raise, the page must have failed)


def test_the_presenter_link_gives_every_control_and_leaves_the_url(classroom):
    at = _open(classroom, "views/runs.py")
    assert not at.exception
    assert "token" not in at.query_params  # taken out of the address at once
    assert "quick_start" in _buttons(at) and "r_delete" in _buttons(at)
    assert classroom not in _text(at)
    assert "roomcode" in _text(at)  # the presenter shares the class's code from the start


def test_a_student_follows_the_class_code_on_the_plain_address(classroom):
    at = _open()
    assert "Following the lecturer" in _text(at)


@pytest.mark.parametrize("action", ["delete", "cancel", "launch_preset", "launch_group", "study", "poll_ask",
                                    "poll_reveal", "poll_clear"])
def test_the_service_refuses_a_student_whatever_the_page_shows(classroom, action, tmp_path):
    from app import service
    from app.service import poll_store

    calls = {"delete": lambda: service.delete("any"), "cancel": lambda: service.cancel("any"),
             "launch_preset": lambda: service.launch_preset("Collapse in one minute"),
             "launch_group": lambda: service.launch_group([]), "study": lambda: service.launch_study("s"),
             "poll_ask": lambda: poll_store.ask(tmp_path, "roomcode", 4, "global_rank", {}),
             "poll_reveal": lambda: poll_store.reveal(tmp_path, "roomcode"),
             "poll_clear": lambda: poll_store.clear(tmp_path, "roomcode")}
    with pytest.raises(service.NotPresenter, match="Only the presenter can"):
        calls[action]()
    assert not (tmp_path / "follow").exists()  # refused before anything is written


def test_a_student_writes_nothing_but_the_class_poll_on_the_lesson(classroom, run_store):
    """A student on every Lesson step: no write control, and the page writes nothing in the run
    store (the poll's answer radio appears only once the presenter asks: tests/app/test_poll.py)."""
    root, _ = run_store
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    at = _open(None, "views/lesson.py")
    for _ in range(7):
        assert not (_buttons(at) & WRITE_KEYS), _buttons(at) & WRITE_KEYS
        assert not [r for r in at.radio if (r.key or "").startswith("poll_vote_")]
        at.button(key="l_next").click().run()
        assert not at.exception, [e.value for e in at.exception]
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_a_secret_file_others_can_read_makes_nobody_presenter(classroom, monkeypatch, tmp_path):
    import os

    os.chmod(os.environ["FEDQUAD_CLASS_SECRET_FILE"], 0o644)
    at = _open(classroom, "views/runs.py")
    assert "quick_start" not in _buttons(at)


def test_outside_class_mode_everyone_has_every_control(run_store):
    at = _open(None, "views/runs.py")
    assert "quick_start" in _buttons(at) and "r_delete" in _buttons(at)


def test_the_take_home_file_is_built_by_the_presenter_only(classroom):
    """Building it reads every position of the studies (the lecturer's CPU is the class's): the
    presenter's session has the button, a student's says who shares the file."""
    presenter = _open(classroom, "views/lesson.py")
    assert not presenter.exception and "l_takehome_build" in _buttons(presenter)
    student = _open(None, "views/lesson.py")
    assert not student.exception and "l_takehome_build" not in _buttons(student)
    assert "the presenter builds this file" in _text(student)


def test_the_cap_counts_admitted_sessions_only(monkeypatch):
    """With a cap of 2: refused tabs ("The class is full") take no place, however many stay open,
    and a student who left frees theirs for the next one."""
    from app.service import roles

    live: set[str] = set()
    states: dict[str, dict] = {}
    monkeypatch.setattr(roles, "class_mode", lambda: True)
    monkeypatch.setattr(roles, "is_presenter", lambda: False)
    monkeypatch.setattr(roles, "max_sessions", lambda: 2)
    monkeypatch.setattr(roles, "_live_session_ids", lambda: set(live))
    monkeypatch.setattr(roles, "_admitted_ids", set())

    def visit(sid: str) -> bool:
        live.add(sid)
        monkeypatch.setattr(roles, "_this_session_id", lambda: sid)
        monkeypatch.setattr(roles.st, "session_state", states.setdefault(sid, {}))
        return roles.admitted()

    assert visit("a") and visit("b")
    assert not visit("c") and not visit("d") and not visit("c")  # full; the refused tabs stay open
    assert visit("a") and visit("b")  # the admitted keep their places on every rerun
    live.discard("a")  # a left
    assert visit("c")  # the place a freed is taken, although d, refused, is still open
    assert not visit("d")
    assert roles._admitted_ids == {"b", "c"}


def test_my_deck_is_bounded_per_session(monkeypatch):
    """40 adds used to grow one student's deck without end (+10 MB): now at most MAX_FIGURES
    figures and MAX_BYTES, and the refusal says why, beside the button that was refused."""
    import plotly.graph_objects as go

    from app.export import deck

    session: dict = {}
    monkeypatch.setattr(deck.st, "session_state", session)
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"title": {"text": "small"}})
    added = [deck.add(fig, None, "small", key="k") for _ in range(deck.MAX_FIGURES + 5)]
    assert added.count(True) == deck.MAX_FIGURES and len(deck.items()) == deck.MAX_FIGURES
    assert "Your deck is full" in deck.refusal("k")
    deck.remove(0)
    assert deck.add(fig, None, "small", key="k") and deck.refusal("k") is None
    session.clear()
    monkeypatch.setattr(deck, "MAX_BYTES", 3 * deck.item_bytes(fig, None))
    assert [deck.add(fig, None, "small", key="k") for _ in range(4)] == [True, True, True, False]
    assert "more than" in deck.refusal("k") and len(deck.items()) == 3
