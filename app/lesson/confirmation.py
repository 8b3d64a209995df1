"""What fresh seeds make of the Lesson's claims: the registered confirmatory rows
(``fedquad_core/study/registration.toml``, judged by ``fedquad_core.api.confirmation`` on the
confirmation studies, ``app.studies.confirmed``).

- ``add_confirmation``: under the takeaway of a step that teaches a registered claim (steps 2, 4,
  6 and 7), one line "Confirmed on fresh seeds? C1 (...): verdict · ..."; each row's takeaway and
  numbers in "The numbers" (and the deck's notes);
- ``step_confirmed``: step 9, every registered row with its verdict on the screen, its numbers
  one click away.

Every word about a result comes from the row's verdict (``api.ConfirmedRow``). Pure: no streamlit."""
from __future__ import annotations

import pandas as pd

from fedquad_core import api

from app.export.slides import Slide, SlideFigure
from app.lesson import text
from app.lesson.figures import claims_figure, claims_summary_figure
from app.studies import confirmed

HEAD = "Registered confirmation on fresh seeds (rules fixed before the runs, docs/verdicts.md):"
RULES = ("Each row was registered before its runs (fedquad_core/study/registration.toml: the runs compared, the "
         "measure, the direction, the smallest effect of interest δ and its reason, the test, the seeds from a "
         "power calculation) and run on seeds no exploratory study used. Supported: the Holm-adjusted interval "
         "excludes zero in the claimed direction, the estimate is at least δ, and no other registered comparison "
         "(matched accuracy, equal samples or equal rounds) goes against it; no difference that matters: an "
         "equivalence test puts it inside ±δ; otherwise not shown either way. A row whose study has fewer seeds "
         "than its power calculation asks reads \"not confirmed: needs N seeds\".")
FOOTER = "confirmation studies in assets/confirmed · fedquad study confirm · every row and rule: docs/verdicts.md"


def _rows_sentences(rows) -> list[str]:
    """Each row's takeaway and its primary comparison's numbers, one line a row."""
    return [text.said(f"{r.id}: {r.sentence}" + (f" The numbers: {r.numbers}." if r.numbers else ""))
            for r in rows]


def add_confirmation(content: Slide, step: int) -> None:
    """The registered rows of the step's claims (``confirmed.STEP_ROWS``): each row and its verdict
    under the takeaway, its takeaway and numbers in the step's sentences. Nothing when no
    confirmation study is in."""
    rows = confirmed.for_step(step)
    if rows:
        content.confirmed = [text.said(r.short) for r in rows]
        for r in rows:  # the deck's footer gives each row's verdict words without the claim's tag
            text.said(r.words)
        content.confirmed_numbers = _rows_sentences(rows)


ORDER = ("shown beyond seed noise", "not shown: the data go the other way", "no difference that matters",
         "not shown either way", "needing more seeds", "still to record")


def takeaway(rows) -> str:
    """How many registered claims got each verdict on fresh seeds, in the verdicts' plain words,
    the strongest first (at most ``api.words.MAX_WORDS`` words)."""
    words = [r.words for r in rows]
    words = ["still to record" if w.startswith(("recording", "not yet recorded")) else
             "needing more seeds" if w.startswith("not confirmed") else w for w in words]
    ranked = sorted(dict.fromkeys(words), key=lambda w: ORDER.index(w) if w in ORDER else len(ORDER))
    counts = ", ".join(f"{words.count(w)} {w}" for w in ranked)
    sentence = f"{len(rows)} registered claims on fresh seeds: {counts}."
    if api.words.word_count(sentence) > api.words.MAX_WORDS:
        sentence = f"Fresh seeds: {counts}."
    return text.said(sentence)


def step_confirmed(data, talk: bool) -> Slide:
    """Step 9: every registered row, its verdict on fresh seeds, its numbers one click away (``data``
    is not read: the confirmation studies are the project's own, whatever study the Lesson shows)."""
    rows = confirmed.rows()
    title = "9 · Confirmed on fresh seeds?"
    if not rows:
        return Slide(title, problem="No confirmation study in assets/confirmed (scripts/confirm_studies.py records "
                                    "them; docs/verdicts.md).")
    summary = [{"rows": [r.id], "text": r.claim, "verdict": text.said(r.words)} for r in rows]
    for r in rows:
        text.said(r.claim), text.said(r.short)
    full = pd.DataFrame([{"#": r.id, "claim": r.claim, "verdict": text.said(r.verdict),
                          "difference (95 % CI)": r.numbers or "-"} for r in rows])
    figures = [SlideFigure("registered_summary", claims_summary_figure(summary, talk, header="registered claim",
                                                                 widths=(0.35, 4.2, 1.9)),
                           pd.DataFrame([{"rows": r.id, "claim": r.claim, "verdict": s["verdict"]}
                                         for r, s in zip(rows, summary)])),
               SlideFigure("registered_rows", claims_figure(full, talk), full, screen_only=True)]
    where = "; ".join(f"{', '.join(r.id for r in rows if r.study == study)} on {study}"
                      for study in dict.fromkeys(r.study for r in rows))
    return Slide(title, [RULES, f"The rows and their studies: {where} (each row's numbers below)."], figures, FOOTER,
                 takeaway=takeaway(rows), confirmed_numbers=_rows_sentences(rows))
