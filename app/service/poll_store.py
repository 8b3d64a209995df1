"""The class's poll (class mode): the presenter poses a prediction on a Lesson step, each student
session answers once before the reveal (a second answer replaces the first; none after it), the
presenter reveals and everyone sees the anonymous tally.

One file per class, beside the follow store: ``<runs>/follow/<code>.poll.json`` (a follow code has
no dot, so it never names a position file), written only through ``safe_io``'s atomic write (a
link or pipe planted at the name or at the ``follow`` folder is refused, never written through),
under a lock file ``<code>.poll.lock`` opened the same way, so two sessions' answers are never
lost to each other. Nothing is written elsewhere.

    {"round": int, "poll": null | {"id": str, "step": int, "qid": str, "words": {str: str},
                                   "state": "open" | "revealed", "asked": float,
                                   "votes": {voter: answer index}}}

``round`` goes up on ask, reveal and clear only (never on an answer), so a following page re-runs
once per change of the question, not once per vote. A voter is a random token of the student's
browser session (``app.lesson.poll``): the file holds no name, address or session id. Bounds: at most
``max_voters`` answers a question (the class's cap on sessions), at most ``MAX_BYTES`` a file, a
question's words and ids of bounded length. A missing file is no poll; a damaged one (too large,
not JSON, not of this shape) is reported in one line naming it (``Damaged``) and otherwise treated
as no poll, never a traceback; the presenter's next question replaces it.

Who may do what is checked here, whatever a page shows: ask, reveal and clear need the presenter
(``roles.require_presenter``); an answer needs a student's session in class mode.
"""
from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.service import roles
from fedquad_core import api
from fedquad_core.api import DamagedFile
from app.service.follow_store import check_code

MAX_BYTES = 128_000    # 1,000 answers of about 30 bytes each, and the question: far below
HARD_VOTERS = 1_000    # whatever the class's cap says, no poll file holds more answers
MAX_ANSWERS = 4
_ID = re.compile(r"[0-9a-f]{8,32}")
_QID = re.compile(r"[a-z0-9_]{1,32}")
_WORD = re.compile(r"[\w .=,+\-–()/]{1,32}", re.UNICODE)  # "α=0.1", "IID": words put into a question
LOCK_WAIT_S = 3.0


class PollError(ValueError):
    """An answer or an action that cannot be taken now (one line, shown as is)."""


@dataclass(frozen=True)
class Damaged:
    """A poll file that is there but cannot be used: ``name`` relative to the run store."""
    name: str
    reason: str

    def __str__(self) -> str:
        return f"The class's poll file {self.name} cannot be used ({self.reason}): it is ignored."


def _name(code: str) -> str:
    return f"{check_code(code)}.poll.json"


def path_of(root: Path | str, code: str) -> Path:
    return api.SharedFolder(root).path(_name(code))


def max_voters() -> int:
    return min(roles.max_sessions(), HARD_VOTERS)


def new_voter() -> str:
    return secrets.token_hex(8)


def _plain_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(data: Any) -> dict:
    """``data`` as a poll file holds it, or ValueError naming the first thing that is not."""
    if not isinstance(data, dict) or set(data) != {"round", "poll"}:
        raise ValueError("not a poll file")
    if not _plain_int(data["round"]) or data["round"] < 0:
        raise ValueError("its round is not a count")
    poll = data["poll"]
    if poll is None:
        return data
    if not isinstance(poll, dict) or set(poll) != {"id", "step", "qid", "words", "state", "asked", "votes"}:
        raise ValueError("its question is not of the poll's shape")
    if not (isinstance(poll["id"], str) and _ID.fullmatch(poll["id"])):
        raise ValueError("its question id is not an id")
    if not (_plain_int(poll["step"]) and 1 <= poll["step"] <= 99):
        raise ValueError("its step is not a step")
    if not (isinstance(poll["qid"], str) and _QID.fullmatch(poll["qid"])):
        raise ValueError("its question is not a question's name")
    words = poll["words"]
    if not (isinstance(words, dict) and len(words) <= 4 and all(
            isinstance(k, str) and _QID.fullmatch(k) and isinstance(v, str) and _WORD.fullmatch(v) for k, v in words.items())):
        raise ValueError("its words are not short words")
    if poll["state"] not in ("open", "revealed"):
        raise ValueError("its state is neither open nor revealed")
    if not isinstance(poll["asked"], (int, float)) or isinstance(poll["asked"], bool):
        raise ValueError("its time is not a time")
    votes = poll["votes"]
    if not isinstance(votes, dict) or len(votes) > HARD_VOTERS:
        raise ValueError(f"its answers are not a table of at most {HARD_VOTERS:,}")
    if not all(isinstance(k, str) and _ID.fullmatch(k) and _plain_int(v) and 0 <= v < MAX_ANSWERS for k, v in votes.items()):
        raise ValueError("an answer is not an answer's number")
    return data


def read(root: Path | str, code: str) -> tuple[dict, Damaged | None]:
    """The class's poll file: ``({"round", "poll"}, None)``; a missing file reads as round 0 and
    no poll; a damaged one as that, with the ``Damaged`` line that names it."""
    shared, name = api.SharedFolder(root), _name(code)
    empty = {"round": 0, "poll": None}
    try:
        return _check(shared.read(name, MAX_BYTES)), None
    except FileNotFoundError:
        return empty, None
    except DamagedFile as e:
        return empty, Damaged(shared.shown(name), e.reason)
    except OSError as e:
        return empty, Damaged(shared.shown(name), e.strerror or str(e))
    except ValueError as e:
        return empty, Damaged(shared.shown(name), str(e))


def round_of(root: Path | str, code: str) -> int:
    """The round of the class's poll (changes on ask, reveal and clear), -1 when damaged."""
    data, damaged = read(root, code)
    return -1 if damaged else data["round"]


def _change(root: Path | str, code: str, change) -> dict:
    """Under the poll's lock file (``<code>.poll.lock``, the shared folder's ``update``): read the
    poll (a damaged file counts as none), ``change(data)`` it in place, write it back. Returns the
    new data."""
    def changed() -> dict:
        data, _ = read(root, code)
        change(data)
        return _check(data)  # never write what read() would call damaged

    try:
        return api.SharedFolder(root).update(_name(code), changed, wait_s=LOCK_WAIT_S)
    except TimeoutError:
        raise PollError("The poll is busy: try again in a moment.") from None


# ---- the presenter ------------------------------------------------------------------------------
def ask(root: Path | str, code: str, step: int, qid: str, words: dict[str, str]) -> dict:
    """Pose question ``qid`` on Lesson step ``step`` (it replaces any question, answered or not)."""
    roles.require_presenter("ask the class a question")

    def change(data):
        data["round"] += 1
        data["poll"] = {"id": secrets.token_hex(8), "step": int(step), "qid": qid, "words": dict(words),
                        "state": "open", "asked": time.time(), "votes": {}}
    return _change(root, code, change)


def reveal(root: Path | str, code: str) -> dict:
    """Close the question: no answer is taken after this, and everyone sees the tally."""
    roles.require_presenter("reveal the answers")

    def change(data):
        if data["poll"] is None:
            raise PollError("There is no question to reveal.")
        if data["poll"]["state"] != "revealed":
            data["poll"]["state"] = "revealed"
            data["round"] += 1
    return _change(root, code, change)


def clear(root: Path | str, code: str) -> dict:
    """Take the question away (its answers with it)."""
    roles.require_presenter("clear the question")

    def change(data):
        data["round"] += 1
        data["poll"] = None
    return _change(root, code, change)


# ---- a student ----------------------------------------------------------------------------------
def vote(root: Path | str, code: str, poll_id: str, voter: str, answer: int, answers: int) -> None:
    """Record ``voter``'s ``answer`` (0-based, of ``answers``) to question ``poll_id``; a second
    answer replaces the first. Refused (``PollError``, one line) after the reveal, for another
    question than the open one, from the presenter, and past the class's cap of answers."""
    if not roles.class_mode():
        raise PollError("Answers are taken in a class only.")
    if roles.is_presenter():
        raise PollError("The presenter asks; the students answer.")
    if not (isinstance(voter, str) and _ID.fullmatch(voter)):
        raise PollError("This session has no voter token.")
    if not (_plain_int(answer) and 0 <= answer < min(answers, MAX_ANSWERS)):
        raise PollError("Not one of the answers.")
    cap = max_voters()

    def change(data):
        poll = data["poll"]
        if poll is None or poll["id"] != poll_id:
            raise PollError("This question is no longer asked.")
        if poll["state"] != "open":
            raise PollError("The answers have been revealed: no more answers.")
        if voter not in poll["votes"] and len(poll["votes"]) >= cap:
            raise PollError(f"The poll has its {cap} answers (the class's cap): yours was not counted.")
        poll["votes"][voter] = answer
    _change(root, code, change)


def tally(poll: dict, answers: int) -> list[int]:
    """How many answered each of ``answers`` answers (anonymous counts)."""
    counts = [0] * answers
    for v in poll["votes"].values():
        if 0 <= v < answers:
            counts[v] += 1
    return counts
