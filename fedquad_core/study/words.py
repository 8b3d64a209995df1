"""Every sentence the project ships that states a result comes from a verdict, through these
templates, keyed by the verdict: the Lesson's takeaways, the deck's titles, docs/claims.md's and
docs/studies.md's prose (written by ``scripts/write_result_docs.py``; a test fails when the pages
differ from what it writes).

- ``takeaway(verdict, claim, qualifiers)``: one plain sentence of at most ``MAX_WORDS`` words a
  student can repeat, never stronger than the verdict;
- ``qualifiers(row)``: what weakens a row's reading (still changing, depends on δ, a comparison
  whose estimate goes the other way), in words;
- ``difference_words(verdict, who, delta_text, p_text)``: one comparison (``table.Verdict``) in a
  clause, for a figure's note (the Live demo's equal-samples note);
- ``RESULT_PHRASES``: the phrases that state a result; a test renders every Lesson step and deck
  slide and fails on one that no verdict produced."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from .table import NEGLIGIBLE as SMALL
from .table import NOISE, SEPARATED, Verdict
from .verdicts import INCONCLUSIVE, NEGLIGIBLE, NOT_RUN, NOT_SUPPORTED, ONE, SUPPORTED

if TYPE_CHECKING:
    from .claims_table import ClaimResult

MAX_WORDS = 25  # the most words a takeaway may have (``word_count``)

# The opening words of each verdict's takeaway: the strongest thing that verdict allows.
OPENING = {
    SUPPORTED: "Shown beyond seed noise",
    NOT_SUPPORTED: "Not shown: the data go the other way",
    NEGLIGIBLE: "No difference that matters (shown inside ±δ)",
    INCONCLUSIVE: "Not shown either way with these seeds",
    ONE: "Untested: one seed",
    NOT_RUN: "Not run here",
}
# Result phrases a sentence may use only when a verdict produced it (the phrase test's list).
RESULT_PHRASES = ("beyond noise", "beyond seed noise", "no effect", "nil", "robust", "belongs to", "under δ",
                  "collapses", "mitigates", "is ahead")


def qualifiers(*, changing: bool = False, depends_on_delta: bool = False, against: tuple[str, ...] = ()) -> list[str]:
    """Most telling first: a comparison whose estimate goes the other way, then training still
    changing, then a verdict that depends on δ (``takeaway`` keeps those that fit)."""
    out = ["reverses " + check.replace("the comparison ", "").replace(" seen", "") for check in against]
    if changing:
        out.append("training not settled")
    if depends_on_delta:
        out.append("depends on δ")
    return out


def takeaway(verdict: str, claim: str, quals: list[str] | None = None) -> str:
    """``Shown beyond seed noise: FedQuad keeps inter-class separation.`` and, for the weaker
    verdicts, what weakens it, in at most ``MAX_WORDS`` words: the verdict's words and the first
    (most telling) qualifier are always kept, the claim is shortened to make room, and the other
    qualifiers follow as far as they fit."""
    head = OPENING.get(verdict, verdict.capitalize())
    quals = list(quals or [])
    words = claim.rstrip(".").split()
    room = MAX_WORDS - word_count(head) - (word_count(quals[0]) if quals else 0)
    if len(words) > room:
        words = words[:room - 1] + ["…"]
    sentence = f"{head}: {' '.join(words)}"
    kept = quals[:1]
    for q in quals[1:]:
        if word_count(sentence) + sum(word_count(k) for k in kept) + word_count(q) <= MAX_WORDS:
            kept.append(q)
    return sentence + (f" ({'; '.join(kept)})" if kept else "") + "."


def claim_words(text: str) -> str:
    """A claims-table row's text as a takeaway's claim: the parentheses of a row that repeats
    another row's claim ("(the same, on Fashion-MNIST)") dropped."""
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def word_count(sentence: str) -> int:
    """The words of a sentence as the takeaway rule counts them (at most ``MAX_WORDS``)."""
    return len(sentence.split())


def row_takeaway(row: "ClaimResult", claim: str | None = None) -> str:
    """A claims-table row (``ClaimResult``) as its takeaway: its verdict's opening, its claim (or
    ``claim``: the paper's claim a row that repeats another row checks), and its qualifiers (a
    comparison going the other way, training still changing, a verdict that changes at δ/2 or 2δ)."""
    depends = bool(row.sensitivity) and len(set(row.sensitivity) | {row.verdict}) > 1
    return takeaway(row.verdict, claim or claim_words(row.text),
                    qualifiers(changing=bool(row.changing), depends_on_delta=depends, against=row.against))


def stray_phrases(text: str, produced: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The ``RESULT_PHRASES`` in ``text`` outside the fragments in ``produced`` (the words a verdict
    or a template wrote): a phrase a sentence states on its own. Whole words, any case."""
    rest = text
    for fragment in sorted({f for f in produced if f}, key=len, reverse=True):
        rest = rest.replace(fragment, " ¦ ")
    return [p for p in RESULT_PHRASES if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", rest, re.IGNORECASE)]


def difference_words(v: Verdict, who: str, delta_text: str, p_text: Callable[[float], str]) -> str:
    """One comparison in a clause: "higher with FedQuad, beyond seed noise (p = 0.01, 3 seeds)",
    "negligible: inside ±1 point (...)", "inconclusive with 3 seeds (p = 0.4)" or "one seed: no
    test possible" (``p_text`` formats a p value)."""
    if v.state == SEPARATED:
        return f"{'higher' if v.direction > 0 else 'lower'} with {who}, beyond seed noise ({p_text(v.test.p)}, {v.seeds})"
    if v.state == SMALL:
        return f"negligible: inside {delta_text} ({p_text(v.tost_p)}, {v.seeds})"
    if v.state == NOISE:
        return f"inconclusive with {v.seeds} ({p_text(v.test.p)})"
    return "one seed: no test possible"
