"""How a p value, a δ and an α are written, once each: every table, sentence, command and page
calls these. Torch-free.

- p: ``p_words(0.004)`` = "p = 0.004" (in a sentence), ``p_value(0.004)`` = "0.004" (a table
  cell, "-" for none). Two significant digits, three decimals below 0.01, three significant
  digits near the 0.05 line (0.0503 must not read as 0.05), "< 0.001" below that.
- δ: ``delta_words(metric, δ)`` = "1 point", "0.5", "0.014 (5 % of the reference)";
  ``delta_points(0.02)`` = "2 points" (an accuracy's δ); ``delta_margins()`` the δ of each kind of
  measure in one phrase (the claims table's and the Lesson's method notes).
- α: ``alpha_value`` ("iid", "0.5": what the command line and study files read back),
  ``alpha_short`` ("IID", "0.5": cells, ticks), ``alpha_words`` ("IID", "α=0.5": titles and
  sentences); all three are ``config.alpha.alpha_text``'s styles. (``config.run.alpha_label`` is
  the fingerprinted primitive underneath; ``alpha_text`` is the one to call.)"""
from __future__ import annotations

from ..config.alpha import alpha_text
from .metrics import METRICS


def p_value(p: float | None) -> str:
    """A p value for a table cell: "< 0.001", "0.004", "0.0503", "0.21"; "-" for None."""
    if p is None:
        return "-"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3g}" if 0.04 <= p < 0.06 else f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def p_words(p: float) -> str:
    """A p value in a sentence: "p < 0.001", "p = 0.004", "p = 0.21"."""
    text = p_value(p)
    return "p " + text if text.startswith("<") else "p = " + text


def delta_points(delta: float) -> str:
    """An accuracy's δ (a fraction) in points: "1 point", "2 points", "0.5 points"."""
    return f"{delta * 100:g} point" + ("" if delta == 0.01 else "s")


def delta_margins() -> str:
    """"accuracy 1 point, CKA 0.02, effective rank 0.5, distances 5 % of the reference group's mean"."""
    m = METRICS
    return (f"accuracy {delta_points(m['final_acc'].delta)}, CKA {m['local_cka'].delta:g}, effective rank "
            f"{m['effective_rank'].delta:g}, distances {m['intra_l2'].relative * 100:g} % of the reference group's mean")


def delta_words(metric: str, delta: float | None) -> str:
    """δ in words: ``1 point``, ``0.02``, ``0.5``, ``0.014 (5 % of the reference)``; "-" for None."""
    if delta is None:
        return "-"
    m = METRICS.get(metric)
    if m is not None and m.accuracy:
        return delta_points(delta)
    if m is not None and m.relative is not None:
        return f"{delta:.3f} ({m.relative * 100:g} % of the reference)"
    return f"{delta:g}"


def alpha_value(alpha: float | None) -> str:
    return alpha_text(alpha, "value")


def alpha_short(alpha: float | None) -> str:
    return alpha_text(alpha, "short")


def alpha_words(alpha: float | None) -> str:
    """α in titles and sentences: "IID", "α=0.5" (``alpha_text``'s "label" style)."""
    return alpha_text(alpha, "label")
