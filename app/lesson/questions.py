"""The predictions a presenter may pose to the class on a Lesson step (``app.lesson.poll``), as data: one
per step that has a prediction worth asking, before its figure is discussed. The answers are
options, none a claim: the reveal is the step's own figure and its verdict, computed from the runs.

``{skew}`` and ``{iid}`` in the words are the α values the step shows (the study's strongest skew
and its IID end), filled in by the presenter's page when the question is posed. ``role`` is the
study the step reads (``app.lesson.data.ROLES``).
Pure: no streamlit.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    qid: str
    role: str
    text: str
    answers: tuple[str, ...]

    def words(self, skew: str, iid: str) -> dict[str, str]:
        return {"skew": skew, "iid": iid}

    def render(self, words: dict[str, str]) -> tuple[str, list[str]]:
        fill = {"skew": words.get("skew", "strong skew"), "iid": words.get("iid", "IID")}
        return self.text.format(**fill), [a.format(**fill) for a in self.answers]


QUESTIONS: dict[int, Question] = {
    1: Question("skew_classes", "local", "Under label skew ({skew}), how many of the classes does a typical client hold "
                "most of its data in?", ("one or two", "about half of them", "nearly all of them")),
    2: Question("forget", "local", "Right after local training at {skew}, how does a client's model do on all classes, "
                "against its own classes?", ("about as well on all as on its own", "somewhat worse on all",
                                             "far worse on all")),
    4: Question("global_rank", "global", "Which averaged model keeps its classes apart in more directions (higher "
                "effective rank): FedAvg at {skew} or at {iid}?", ("at {skew}", "at {iid}",
                                                                   "no difference beyond seed noise")),
    6: Question("fedquad_rank", "local", "At {skew}, which method's models keep more directions in their embedding "
                "(effective rank)?", ("FedAvg", "FedQuad", "no difference beyond seed noise")),
    7: Question("price", "global", "At the same number of samples processed, which method reaches the higher test "
                "accuracy at {skew}?", ("FedAvg", "FedQuad", "no difference beyond seed noise")),
}


def question(step: int, qid: str | None = None) -> Question | None:
    """The question of ``step`` (and, when ``qid`` is given, only if it is that question)."""
    q = QUESTIONS.get(step)
    return q if q is not None and (qid is None or q.qid == qid) else None
