"""Class mode (`bash scripts/start.sh --class`): only the session that opened the presenter's link
(?token=<secret>) may start, cancel, delete, start studies or build the deck; every other session
is a student's, refused at the service layer and shown no write control; students follow the
class's code on any link; the secret is taken out of the URL and never shown."""
from __future__ import annotations

import secrets

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN

WRITE_KEYS = {"quick_start", "quick_start_presenter", "r_delete", "r_cancel", "x_compute", "l_demo_compute", "follow_start", "follow_stop",
              "l_start", "l_study_start", "poll_ask", "poll_reveal", "poll_clear"}


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
    from app.studies import catalog

    calls = {"delete": lambda: service.delete("any"), "cancel": lambda: service.cancel("any"),
             "launch_preset": lambda: service.launch_preset("Collapse in one minute"),
             "launch_group": lambda: service.launch_group([]), "study": lambda: catalog.launch("s"),
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
