"""The confirmatory rows in words (``confirm.check_confirmatory``'s rows): each row's takeaway
through the verdict templates (``row_sentence``, with what weakens it: ``row_qualifiers``), its
verdict in plain words (``verdict_words``), its primary comparison's numbers in one line
(``row_numbers``), and the whole table as Markdown (``confirm_markdown``: ``fedquad study
confirm``, docs/claims.md)."""
from __future__ import annotations

import math

from ..vocab.metrics import labels as metric_labels, words as metric_words
from ..vocab.words import p_value
from .confirm import ACCURACY, NOT_RECORDED, Comparison, ConfirmRow
from .verdicts import INCONCLUSIVE, NEGLIGIBLE, NOT_SUPPORTED, SUPPORTED
from .words import qualifiers, takeaway


def row_sentence(x: ConfirmRow) -> str:
    """The row's takeaway (``words.takeaway``): the rules' verdict on its primary comparison, its
    claim, and what weakens it: a registered comparison whose estimate goes the other way, an arm
    still changing, a verdict that changes at δ/2 or 2δ."""
    return takeaway(x.judged or x.verdict, x.row["claim"], row_qualifiers(x))


def row_qualifiers(x: ConfirmRow) -> list[str]:
    """What weakens the row's verdict, most telling first (``words.qualifiers``)."""
    want = 1 if x.row["expect"] == "above" else -1
    other_way = x.primary is not None and x.primary.test is not None and x.primary.test.diff * want < 0
    # another comparison "reverses" the claim only where the primary estimate goes its way: where
    # the primary already goes the other way, another that does too weakens nothing more
    against = () if other_way else tuple(f"the comparison at {c.name}" for c in x.others
                                         if c.test is not None and c.test.diff * want < 0)
    quals = qualifiers(changing=x.still_changing, depends_on_delta=x.depends_on_delta, against=against)
    if other_way:
        quals.insert(0, "the estimate goes the other way")
    return quals


BRIEF_VERDICT = {SUPPORTED: "shown beyond seed noise", NEGLIGIBLE: "no difference that matters",
                 INCONCLUSIVE: "not shown either way", NOT_SUPPORTED: "not shown: the data go the other way"}


def verdict_words(verdict: str) -> str:
    """A row's verdict in plain words (``negligible``: "no difference that matters"); a status
    (recording, not yet recorded, needs N seeds) as it is."""
    return BRIEF_VERDICT.get(verdict, verdict)


def row_tag(claim: str) -> str:
    """The claim's last parenthesis, which tells rows of one claim apart ("10 local epochs",
    "Fashion-MNIST"), or the claim itself."""
    return claim[claim.rindex("(") + 1:-1] if claim.endswith(")") and "(" in claim else claim


def row_numbers(x: ConfirmRow) -> str:
    """The primary comparison's numbers in one line (``inter-class distance +0.339, 95 % CI 0.323
    to 0.354 at matched accuracy (56 fresh seeds)``), with what weakens the verdict; "" for a row
    without a test (recording, not yet recorded)."""
    c = x.primary
    if c is None or c.test is None:
        return ""
    metric = x.row["measure"]
    scale, unit, spec = _scaled(metric)
    name = metric_words().get(metric) or metric_labels().get(metric) or metric
    within = ""
    if x.judged == NEGLIGIBLE and x.delta is not None and math.isfinite(x.delta):
        within = f", inside ±{format(x.delta * scale, '.3g')}{unit}".replace("±1 points", "±1 point")
    n = c.test.pairs if c.test.paired else min(c.n_a, c.n_b)
    quals = "".join(f"; {q}" for q in row_qualifiers(x)) + (f"; left out: {', '.join(c.left_out)}" if c.left_out else "")
    return f"{name} {c.test.text(spec, scale, unit)} at {c.name}{within} ({n} fresh seeds{quals})"


# ---- the table -----------------------------------------------------------------------------------
COLUMNS = ("#", "Registered claim", "Study", "Measure", "Status", "Primary comparison (95 % CI)", "p (Holm)",
           "δ: equivalence p (Holm)", "Other comparisons", "Plateau (each arm)", "Verdict", "At δ/2 · 2δ")


def _scaled(metric: str) -> tuple[float, str, str]:
    return (100.0, " points", ".2f") if metric in ACCURACY else (1.0, "", ".3f")


def _comparison_text(c: Comparison | None, metric: str) -> str:
    if c is None:
        return "-"
    if c.test is None:
        return f"{c.name}: untested ({c.n_a} vs {c.n_b} seeds){'; ' + c.note if c.note else ''}"
    scale, unit, spec = _scaled(metric)
    t = c.test
    name = f"paired t, {t.pairs} seeds" if t.paired else f"Welch, {c.n_a} vs {c.n_b} seeds"
    extra = (f"; {c.note}" if c.note else "") + (f"; left out: {', '.join(c.left_out)}" if c.left_out else "")
    return f"{c.name}{extra}: {t.text(spec, scale, unit)} ({name}, p {_p(t.p)})"


def _p(p: float | None) -> str:
    return p_value(p)


def confirm_markdown(rows: list[ConfirmRow]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for x in rows:
        row, metric = x.row, x.row["measure"]
        scale, unit, _ = _scaled(metric)
        delta = "-" if x.delta is None or not math.isfinite(x.delta) else f"{x.delta * scale:.3g}{unit}".replace(
            "1 points", "1 point")
        status = x.status + ("" if x.affordable or x.status == NOT_RECORDED else
                             f"; {x.seeds} seeds registered, the power calculation asks {row['seeds_needed']}")
        sens = "-" if not x.at_half else f"{x.at_half} · {x.at_double}" + (" (depends on δ)" if x.depends_on_delta else "")
        cells = [row["id"], row["claim"], f"`{row['study']}`", f"{metric} ({row['compare']}; {row['test']})", status,
                 _comparison_text(x.primary, metric), _p(x.p_holm), f"{delta}: {_p(x.p_eq_holm)}",
                 "; ".join(_comparison_text(c, metric) for c in x.others) or "-", x.plateau or "-",
                 f"**{x.verdict}**", sens]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)
