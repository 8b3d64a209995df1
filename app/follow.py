"""Follow the lecturer: a presenter shares a link (``?follow=<code>``, and its QR code) and the
students who open it follow the presenter's page, Explore study and slider position, and Lesson
step, within about a second; a student can step out ("Explore on my own") and back in ("Rejoin
the lecturer"). A student who leaves the lecturer's position otherwise (moves a slider, presses
Back / Next, goes to another page) is paused likewise, and the banner says so.

The presenter's position lives in the run store (``<runs>/follow/<code>.json``, written
atomically by ``app.service.follow_store``), so students on any server process see it. Only the
session that pressed "Share my position with the class" writes it, once per page run whose
position changed (and after each Explore slider move, from the sliders' fragment); a following
session only reads it: about once a second in a small fragment, which re-runs the page when the
presenter's ``seq`` changed; the page run then takes over the presenter's settings (the same
session_state keys the pages read, so the Explore switcher is drawn at the new position) and, if
need be, switches page. In a class the same fragment also re-runs a student's Lesson page when the
class poll's round changed (a question asked, revealed or cleared: ``app.lesson.poll``).
"""
from __future__ import annotations

import io
import json
import re
from typing import Any
from urllib.parse import urlsplit

import segno
import streamlit as st

from app.service import roles
from app.service import follow_store, poll_store
from app.roots import runs_dir

PARAM = "follow"          # the student's link: ?follow=<code>
SHARE_KEY = "_follow_share"  # presenter: the code this session shares (a plain key: kept across page switches)
LAST_KEY = "_follow_last"    # presenter: the position last written (write only on change)
CODE_KEY = "_follow_code"    # student: the code followed (kept across page switches, which drop the URL)
ON_KEY = "_follow_on"        # student: following now (False after "Explore on my own")
SEEN_KEY = "_follow_seen"    # student: the presenter's seq last taken over
PAGE_KEY = "_follow_page"    # the page this run shows ("views/lesson.py"), for the sliders' fragment
POLL_SEEN_KEY = "_poll_round"  # student, class mode: the class poll's round this page run drew (app.lesson.poll)
POLL_S = 1.0

# What a position carries, per page: the settings that page keeps in the URL. Only these keys are
# ever set in a student's session from the file.
EXPLORE, LESSON = "views/explore.py", "views/lesson.py"
_EXPLORE_KEY = re.compile(r"x_[a-z0-9_]{1,40}")
_NOT_SHARED = {"x_switch"}  # the switcher component's own value (the browser's), not a setting


def _shared_key(page: str, key: str) -> bool:
    if page == LESSON:
        return key == "step"
    if page == EXPLORE:
        return bool(_EXPLORE_KEY.fullmatch(key)) and key not in _NOT_SHARED
    return False


def _plain(v: Any) -> bool:
    if isinstance(v, (list, tuple)):
        return all(_plain(x) for x in v)
    return v is None or isinstance(v, (str, int, float, bool))


# ---- presenter -----------------------------------------------------------------------------------
def sharing() -> str | None:
    """The code this session shares: in a class the presenter always shares the class's code (a
    student never shares); otherwise the code of "Share my position with the class"."""
    if roles.class_mode():
        return roles.class_code() if roles.is_presenter() else None
    code = st.session_state.get(SHARE_KEY)
    return code if follow_store.is_code(code) else None


def position(page: str) -> dict:
    """This session's position: the page, and that page's settings as the URL holds them (their
    values from session_state, where the pages keep them typed)."""
    keys = sorted(k for k in st.query_params if _shared_key(page, k))
    return {"page": page, "state": {k: st.session_state[k] for k in keys
                                    if k in st.session_state and _plain(st.session_state[k])}}


def share(page: str | None = None) -> None:
    """Write this session's position for its students, when it shares one and it changed."""
    code = sharing()
    if code is None or following():
        return
    page = page or st.session_state.get(PAGE_KEY)
    if not page:
        return
    pos = position(page)
    if pos == st.session_state.get(LAST_KEY):
        return
    try:
        follow_store.write_position(runs_dir(), code, pos)
    except OSError as e:
        st.toast(f"Could not share the position: {e}", icon=":material/error:")
        return
    st.session_state[LAST_KEY] = json.loads(json.dumps(pos))


def student_link(code: str, talk: bool) -> str:
    """The link students open: this server's address with ``?follow=<code>`` (and talk mode)."""
    try:
        url = urlsplit(st.context.url or "")
        base = f"{url.scheme}://{url.netloc}/" if url.scheme and url.netloc else ""
    except Exception:  # noqa: BLE001 - no request context (tests): a relative link
        base = ""
    return f"{base}?{PARAM}={code}" + ("&talk=1" if talk else "")


def qr_png(text: str) -> bytes:

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=8, border=2, dark="#000000", light="#ffffff")
    return buf.getvalue()


def _start_sharing() -> None:
    st.session_state[SHARE_KEY] = follow_store.new_code()
    st.session_state.pop(LAST_KEY, None)


def _stop_sharing() -> None:
    st.session_state.pop(SHARE_KEY, None)
    st.session_state.pop(LAST_KEY, None)


def presenter_controls(talk: bool) -> None:
    """In the sidebar: start sharing, then the student link, its QR code and Stop (in a class the
    presenter shares from the start and cannot stop; a student has none of it)."""
    if following() or roles.is_student():
        return
    code = sharing()
    if code is None:
        st.button("Share my position with the class", key="follow_start", icon=":material/cast_for_education:",
                  on_click=_start_sharing, width="stretch",
                  help="Students who open the link follow your page, Explore study and slider, and Lesson step.")
        return
    link = student_link(code, talk)
    with st.expander("Students follow you", expanded=True, icon=":material/cast_for_education:"):
        st.caption("Students open this link or scan the code: they follow your page, Explore slider and "
                   "Lesson step, and can step out.")
        st.code(link, language=None)
        if "localhost" in link or "127.0.0.1" in link:
            st.caption("This is a local address: open the app by its network address so students can reach it.")
        st.image(qr_png(link), caption=f"code {code}", width="stretch")
        if roles.class_mode():
            return
        st.button("Stop sharing", key="follow_stop", on_click=_stop_sharing, icon=":material/stop_circle:")


# ---- student -------------------------------------------------------------------------------------
def followed() -> str | None:
    """The code this session follows: the link's (``?follow=``), else the one kept for it; in a
    class, a student's session follows the class's code even when opened on the plain address."""
    raw = st.query_params.get(PARAM)
    if roles.class_mode():
        if roles.is_presenter():
            return None
        raw = roles.class_code()
    if follow_store.is_code(raw) and raw != st.session_state.get(CODE_KEY):
        st.session_state[CODE_KEY] = raw
        st.session_state[ON_KEY] = True
        st.session_state.pop(SEEN_KEY, None)
    code = st.session_state.get(CODE_KEY)
    return code if follow_store.is_code(code) else None


def following() -> bool:
    return followed() is not None and bool(st.session_state.get(ON_KEY, True))


def _step_out() -> None:
    st.session_state[ON_KEY] = False


def _follow_again() -> None:
    st.session_state[ON_KEY] = True
    st.session_state.pop(SEEN_KEY, None)  # take the presenter's position over at once


def _left(pos: dict, pages: list[str], current: str) -> bool:
    """Whether this session is no longer at the presenter's position ``pos``, which it took over:
    another page (the browser's Back, a page link), or a shared setting moved (a slider, the
    Lesson's Back / Next)."""
    page = pos.get("page")
    if page not in pages:  # a page this session does not have (Launch, for a student): never taken over
        return False
    if page != current:
        return True
    values = pos.get("state") if isinstance(pos.get("state"), dict) else {}
    return any(_shared_key(page, k) and k in st.session_state and st.session_state[k] != v
               for k, v in values.items() if isinstance(k, str))


def take_over(pages: list[str], current: str) -> None:
    """Before the page runs: if this session follows and the presenter moved since, take over
    the presenter's settings and go to their page; if the presenter did not move but this session
    left their position (a slider, Back / Next, another page), following pauses (the banner says
    so and offers the way back) until the student rejoins."""
    code = followed()
    if code is None:
        return
    st.query_params[PARAM] = code  # a page switch dropped it: keep the link a student can reload
    if not st.session_state.get(ON_KEY, True):
        return
    got = follow_store.read_position(runs_dir(), code)
    if got is None:
        return
    if got["seq"] == st.session_state.get(SEEN_KEY):
        if _left(got["position"], pages, current):
            st.session_state[ON_KEY] = False
        return
    st.session_state[SEEN_KEY] = got["seq"]
    pos = got["position"]
    page = pos.get("page")
    if page not in pages:
        return
    values = pos.get("state") if isinstance(pos.get("state"), dict) else {}
    for k, v in values.items():
        if isinstance(k, str) and _shared_key(page, k) and _plain(v):
            st.session_state[k] = v
    if page != current:
        params = {PARAM: code}
        for key in ("talk", "presenter"):  # (on a link's first run only the URL knows them yet)
            kept = st.session_state.get(key) if key in st.session_state else st.session_state.get(f"_{key}_kept")
            if kept or (kept is None and str(st.query_params.get(key, "")).lower() in ("1", "true", "yes", "on")):
                params[key] = "1"
        st.switch_page(page, query_params=params)


FOLLOW_CSS = """<style>
.st-key-fq_follow {position: fixed; top: 10px; left: 50%; transform: translateX(-50%); z-index: 999991; width: auto;
  max-width: calc(100vw - 160px); background: #ffffffee; border: 1px solid #d0d7de; border-radius: 8px;
  padding: 2px 4px 2px 12px; gap: 0.5rem !important;}
.st-key-fq_follow p {font-size: 0.95rem !important; margin: 0; white-space: nowrap;}
</style>"""


def banner() -> None:
    """A following session's one line: whom it follows, and the way out (or back). It sits in the
    page's top bar (fixed, over no content), so a student's figures start where the lecturer's do."""
    code = followed()
    if code is None:
        return
    st.markdown(FOLLOW_CSS, unsafe_allow_html=True)
    with st.container(key="fq_follow", horizontal=True, vertical_alignment="center", width="content"):
        if not st.session_state.get(ON_KEY, True):  # stepped out, or moved away from the lecturer's position
            st.markdown(":material/pause_circle: **Paused** —")
            st.button("Rejoin the lecturer", key="follow_again", on_click=_follow_again,
                      icon=":material/cast_for_education:", type="tertiary")
            return
        if roles.class_mode():  # the class's poll round drawn by this page run (app.lesson.poll)
            st.session_state[POLL_SEEN_KEY] = poll_store.round_of(runs_dir(), code)
        _poll(code)
        st.button("Explore on my own", key="follow_out", on_click=_step_out, icon=":material/explore:",
                  type="tertiary")


@st.fragment(run_every=POLL_S)
def _poll(code: str) -> None:
    """About once a second: re-run the page when the presenter's position changed."""
    got = follow_store.read_position(runs_dir(), code)
    if got is None:
        st.markdown(":material/cast: Following the lecturer: waiting for the lecturer to share a position")
        return
    st.markdown(":material/cast_for_education: **Following the lecturer**")
    if got["seq"] != st.session_state.get(SEEN_KEY) and st.session_state.get(ON_KEY, True):
        st.rerun()
    if (roles.class_mode() and st.session_state.get(PAGE_KEY) == LESSON
            and poll_store.round_of(runs_dir(), code) != st.session_state.get(POLL_SEEN_KEY)):
        st.rerun()  # the presenter asked, revealed or cleared a question: draw it beside the step
