"""Who may change things, when the dashboard serves a class (``bash scripts/start.sh --class``).

Outside class mode there is one user with every control. In class mode the server is started
with a presenter secret (a random token, new at every start, in a file only the server's user
can read; its path in ``$FEDQUAD_CLASS_SECRET_FILE``) and the class's follow code
(``$FEDQUAD_CLASS_CODE``). A browser session becomes the presenter's only by opening the
presenter's link, ``?token=<secret>``: the token is compared in constant time, removed from the
URL at once and remembered in that session alone. Every other session is a student's: it
explores, follows the presenter and downloads figures, and ``require_presenter`` refuses, in one
line, every action that starts, cancels, deletes or writes (it is called inside those actions,
not only where their buttons are drawn).

The secret is never written into a page, a link, the follow file, a log or an export.
"""
from __future__ import annotations

import hmac
import os
import threading
from pathlib import Path

import streamlit as st

import app.service.follow_store as follow_store
from fedquad_core.api import parse_int, read_small_text

SECRET_FILE_ENV = "FEDQUAD_CLASS_SECRET_FILE"
CODE_ENV = "FEDQUAD_CLASS_CODE"
MAX_SESSIONS_ENV = "FEDQUAD_CLASS_MAX_SESSIONS"
MAX_SESSIONS = 60  # a lecture room on one laptop (2 cores): start.sh --max-sessions N changes it
_ADMITTED = "_role_admitted"
TOKEN_PARAM = "token"
_KEY = "_role_presenter"
MIN_SECRET = 22  # characters of token_urlsafe(16): 128 bits


class NotPresenter(PermissionError):
    """A student's session asked for a presenter's action."""


def class_mode() -> bool:
    return bool(os.environ.get(SECRET_FILE_ENV))


def class_code() -> str | None:
    """The follow code every student follows in class mode (None outside it)."""
    code = os.environ.get(CODE_ENV)
    return code if class_mode() and follow_store.is_code(code) else None


def _secret() -> str | None:
    """The presenter's secret, or None when the file is missing, unreadable or too short (then
    nobody is the presenter: a class server never falls open)."""
    try:
        path = Path(os.environ[SECRET_FILE_ENV])
        if path.stat().st_mode & 0o077:  # readable by others: not a secret
            return None
    except (KeyError, OSError):
        return None
    secret = read_small_text(path, 1_000)  # a regular file only: a pipe here never hangs a page
    secret = "" if secret is None else secret.strip()
    return secret if len(secret) >= MIN_SECRET else None


def enter_session() -> None:
    """At the start of every page run: a ``?token=`` in the URL is taken out of it and, when it is
    the presenter's secret, makes this session the presenter's."""
    if TOKEN_PARAM not in st.query_params:
        return
    given = str(st.query_params.get(TOKEN_PARAM, ""))
    del st.query_params[TOKEN_PARAM]  # never left in the address bar, a bookmark or a shared link
    secret = _secret()
    if class_mode() and secret is not None and hmac.compare_digest(given.encode(), secret.encode()):
        st.session_state[_KEY] = True


def is_presenter() -> bool:
    """Outside class mode: always. In class mode: only the session that opened the presenter's link."""
    return not class_mode() or st.session_state.get(_KEY) is True


def is_student() -> bool:
    return not is_presenter()


def require_presenter(action: str) -> None:
    """Raise ``NotPresenter`` (one line) unless this session may ``action`` ("start runs", ...)."""
    if not is_presenter():
        raise NotPresenter(f"Only the presenter can {action}: in a class, students explore, follow the "
                           "lecturer and download figures.")


def max_sessions() -> int:
    """The class's cap on browser sessions at once ($FEDQUAD_CLASS_MAX_SESSIONS, checked by
    start.sh; a bad value here falls back to the default)."""
    try:
        n = parse_int(os.environ.get(MAX_SESSIONS_ENV, str(MAX_SESSIONS)))  # the one rule of numbers
    except ValueError:
        return MAX_SESSIONS
    return n if n >= 1 else MAX_SESSIONS


_admitted_ids: set[str] = set()  # the sessions let in (presenters and students), while connected
_admitted_lock = threading.Lock()


def _live_session_ids() -> set[str] | None:
    """The ids of the browser sessions connected now, from Streamlit's session manager; None when
    that cannot be read (then no cap is applied)."""
    try:
        # inside the try: a Streamlit upgrade that moves it costs the cap, never the page
        from streamlit.runtime import Runtime

        return {info.session.id for info in Runtime.instance()._session_mgr.list_active_sessions()}  # noqa: SLF001
    except Exception:  # noqa: BLE001 (any change inside Streamlit)
        return None


def _this_session_id() -> str | None:
    try:
        # inside the try: a Streamlit upgrade that moves it costs the cap, never the page
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return ctx.session_id if ctx is not None else None
    except Exception:  # noqa: BLE001
        return None


def admitted() -> bool:
    """In class mode, whether this session may use the app: the presenter always; a student who
    was let in keeps the place; a new student only while fewer sessions than the cap are *admitted*.
    Only admitted sessions count: a tab refused with "the class is full" takes no place, and a
    student who left (the session is gone from Streamlit's manager) frees theirs."""
    if not class_mode():
        return True
    me, live = _this_session_id(), _live_session_ids()
    with _admitted_lock:
        if live is not None:
            _admitted_ids.intersection_update(live)  # who left frees a place
        if is_presenter() or st.session_state.get(_ADMITTED):
            if me is not None:
                _admitted_ids.add(me)
            return True
        if live is not None and me is not None and len(_admitted_ids - {me}) >= max_sessions():
            return False
        if me is not None:
            _admitted_ids.add(me)
    st.session_state[_ADMITTED] = True
    return True
