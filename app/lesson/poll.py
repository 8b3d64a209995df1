"""Students take part (class mode): the presenter poses a Lesson step's prediction
(``app.lesson.questions``), each student session picks one answer before the reveal, the presenter
reveals, and the anonymous tally stands beside the step's figure on every page that shows the step.

- The presenter's controls sit in a small bar in the page's top bar (fixed, over no content, in
  talk and presenter mode too): **Ask the class** on a step that has a question, then the live
  count of answers with **Reveal** and **Clear**. Only the presenter's session draws them, and the
  store refuses anyone else (``app.service.poll_store``).
- A student sees the question and its answers (a radio, none picked) beside the figure; picking one
  is the answer (a new pick replaces it until the reveal); after the reveal, the counts and a bar
  per answer. This radio is the only thing a student writes, and only into the class's poll file.
- Students following the presenter see a question appear, and its reveal, without reloading: the
  follow banner's once-a-second fragment (``app.follow``) re-runs the page when the poll's round
  changed (ask, reveal, clear; never on an answer).
"""
from __future__ import annotations

import streamlit as st

from app.lesson.data import Missing, StoreError, alpha_words
from app.lesson.questions import Question, question
from app.roots import runs_dir
from app.service import poll_store, roles

VOTER_KEY = "_poll_voter"   # this browser session's random voter token (never shown, never a session id)
ERROR_KEY = "_poll_error"   # the one line a refused answer left, shown once
CHANGES_KEY = "_poll_changes"  # {question id: picks this session made}
MAX_CHANGES = 10            # picks a session may make on one question (each rewrites the poll file)
COUNT_S = 1.0

BAR_CSS = """<style>
.st-key-fq_poll {position: fixed; top: 10px; left: 50%; transform: translateX(-50%); z-index: 999991; width: auto;
  max-width: calc(100vw - 360px); background: #ffffffee; border: 1px solid #d0d7de; border-radius: 8px;
  padding: 2px 4px 2px 12px; gap: 0.5rem !important;}
.st-key-fq_poll p {font-size: 0.95rem !important; margin: 0; white-space: nowrap;}
</style>"""


# The figures' row with the question beside them (``views/lesson.py``): the question's column is
# SIDE of a figure's; the row's columns may be narrower than talk mode's least figure width
# (``palette.TALK_CSS``), the figures being laid out again for ``figure_width``.
ROW_KEY, SIDE = "fq_poll_row", 0.8
ROW_CSS = """<style>
.st-key-fq_poll_row [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {min-width: 0 !important;}
</style>"""
MAIN_WIDTH = {True: 1216, False: 900}  # the page's main column at 1280 px: talk mode (sidebar closed), laptop (open)
GAP = 16


def figure_width(n: int, talk: bool) -> int:
    """The width each of ``n`` figures gets beside the question, at 1280 px."""
    return int((MAIN_WIDTH[talk] - GAP * n) / (n + SIDE))


def code() -> str | None:
    """The class's code in class mode, else None (no poll outside a class)."""
    return roles.class_code()


def state() -> tuple[dict, poll_store.Damaged | None]:
    c = code()
    if c is None:
        return {"round": 0, "poll": None}, None
    return poll_store.read(runs_dir(), c)


def on_step(step: int) -> tuple[dict | None, Question | None, poll_store.Damaged | None]:
    """The class's question on Lesson step ``step`` (its poll, its question), and a damaged poll
    file's line; (None, None, ...) when none is asked there."""
    data, damaged = state()
    poll = data["poll"]
    q = question(step, poll["qid"]) if poll is not None and poll["step"] == step else None
    return (poll, q, damaged) if q is not None else (None, None, damaged)


def _words(q: Question, data) -> dict[str, str]:
    """The α values the step shows, for the question's words (a generic word when unknown)."""
    try:
        d = data.role(q.role)
        return q.words(alpha_words(d.skew_alpha()), alpha_words(d.iid_alpha()))
    except (AttributeError, KeyError, ValueError, Missing, StoreError):
        return q.words("strong skew", "IID")


def _act(action, *args) -> None:
    try:
        action(runs_dir(), code(), *args)
    except (poll_store.PollError, roles.NotPresenter, OSError, ValueError) as e:
        st.session_state[ERROR_KEY] = str(e)


@st.fragment(run_every=COUNT_S)
def _live_count(poll_id: str) -> None:
    """The presenter's live count of answers to the open question, about once a second."""
    data, _ = state()
    poll = data["poll"]
    n = len(poll["votes"]) if poll is not None and poll["id"] == poll_id else 0
    st.markdown(f":material/how_to_vote: **{n}** answer{'s' if n != 1 else ''}")


def controls(step: int, data) -> None:
    """The presenter's poll bar on Lesson step ``step`` (class mode, presenter only)."""
    if code() is None or not roles.is_presenter():
        return
    got, damaged = state()
    poll, q_here = got["poll"], question(step)
    if damaged is not None:
        st.warning(str(damaged), icon=":material/warning:")
    here = poll is not None and poll["step"] == step and q_here is not None and poll["qid"] == q_here.qid
    if q_here is None and not here:
        return
    st.markdown(BAR_CSS, unsafe_allow_html=True)
    with st.container(key="fq_poll", horizontal=True, vertical_alignment="center", width="content"):
        if not here:
            st.button("Ask the class", key="poll_ask", icon=":material/quiz:", type="tertiary",
                      on_click=_act, args=(poll_store.ask, step, q_here.qid, _words(q_here, data)),
                      help=q_here.render(_words(q_here, data))[0] + " (students answer beside the figure; you "
                                                                  "reveal the tally)")
            return
        if poll["state"] == "open":
            _live_count(poll["id"])
            st.button("Reveal", key="poll_reveal", icon=":material/visibility:", type="tertiary",
                      on_click=_act, args=(poll_store.reveal,))
        else:
            st.markdown(":material/bar_chart: **Revealed**")
        st.button("Clear", key="poll_clear", icon=":material/close:", type="tertiary", on_click=_act,
                  args=(poll_store.clear,))
    if ERROR_KEY in st.session_state:
        st.toast(st.session_state.pop(ERROR_KEY), icon=":material/error:")


def _voter() -> str:
    if VOTER_KEY not in st.session_state:
        st.session_state[VOTER_KEY] = poll_store.new_voter()
    return st.session_state[VOTER_KEY]


def _vote(poll_id: str, answers: list[str], key: str) -> None:
    picked = st.session_state.get(key)
    if picked not in answers:
        return
    changes = st.session_state.setdefault(CHANGES_KEY, {})
    if changes.get(poll_id, 0) >= MAX_CHANGES:  # a session's writes to the class folder are bounded too
        poll = state()[0]["poll"]
        counted = poll["votes"].get(_voter()) if poll is not None and poll["id"] == poll_id else None
        st.session_state[key] = answers[counted] if counted is not None and counted < len(answers) else None
        st.session_state[ERROR_KEY] = f"You have picked {MAX_CHANGES} times: your last counted answer stands."
        return
    if poll_id not in changes:
        changes.clear()  # only the open question's count is kept
    changes[poll_id] = changes.get(poll_id, 0) + 1
    _act(poll_store.vote, poll_id, _voter(), answers.index(picked), len(answers))


def _tally(poll: dict, answers: list[str], mine: int | None) -> None:
    counts = poll_store.tally(poll, len(answers))
    total = sum(counts)
    st.caption(f"{total} answer{'s' if total != 1 else ''}, anonymous")
    for i, (answer, n) in enumerate(zip(answers, counts)):
        share = n / total if total else 0.0
        mark = " ← yours" if i == mine else ""
        st.progress(share, text=f"{answer}: **{n}** ({share:.0%}){mark}")


def panel(step: int) -> None:
    """Beside the step's figure: the question and (students) its answers to pick before the reveal,
    the anonymous tally after it. Draws nothing when no question is asked on this step."""
    poll, q, _ = on_step(step)
    if poll is None:
        return
    _panel(step, poll["id"])


@st.fragment
def _panel(step: int, poll_id: str) -> None:
    """(A fragment: a student's answer re-runs this panel only, not the step's figures.)"""
    poll, q, _ = on_step(step)
    if poll is None or poll["id"] != poll_id:  # cleared or replaced since the page was drawn
        st.caption("The question was taken away.")
        return
    text, answers = q.render(poll["words"])
    st.markdown(f":material/quiz: **Predict** — {text}")
    student = roles.is_student()
    mine = poll["votes"].get(st.session_state.get(VOTER_KEY, "")) if student else None
    if poll["state"] == "revealed":
        _tally(poll, answers, mine)
        if student and mine is None:
            st.caption("You did not answer this one.")
        return
    if not student:
        for i, a in enumerate(answers, start=1):
            st.markdown(f"{i}. {a}")
        st.caption("Students pick one answer; the tally shows when you reveal it.")
        return
    key = f"poll_vote_{poll_id}"
    st.radio("Your answer", answers, index=mine, key=key, on_change=_vote, args=(poll_id, answers, key),
             label_visibility="collapsed")
    if ERROR_KEY in st.session_state:
        st.warning(st.session_state.pop(ERROR_KEY))
    elif mine is not None:
        st.caption("Counted. You can change it until the lecturer reveals the tally.")
    else:
        st.caption("Pick one: the tally shows when the lecturer reveals it.")
