"""A claims-table row's last step, once the whole table is in (``paper_claims.check_claims``): its
verdict under Holm's correction across the table, its robustness (every check the row runs, and
what each says when it differs from the verdict), and its verdict with δ halved and doubled."""
from __future__ import annotations

import dataclasses

from .claims_table import ClaimResult
from .stats import tost
from .verdicts import INCONCLUSIVE, NEGLIGIBLE, NOT_RUN, NOT_SUPPORTED, ONE, OPPOSITE, SUPPORTED, decide

ROBUST = "robust"
MATCHED_CHECK = "the comparison at matched accuracy"
SAMPLES_CHECK = "the comparison at equal samples"
BEFORE_HOLM = "the test before Holm's correction"


def _confounded(name: str, check: str, verdict: str, see: int | None) -> str:
    """The words for a matched-accuracy comparison that turns the verdict round (at every level or
    at some): the difference at equal rounds is, at least partly, one of how far training got."""
    opposite = OPPOSITE.get(verdict)
    turned = opposite is not None and (check == opposite or f", {opposite} at " in check)
    if name != MATCHED_CHECK or not turned:
        return ""
    return f" (confounded by training, see row {see})" if see else " (confounded by training)"


def finish_row(result: ClaimResult, p_holm: float | None, p_eq_holm: float | None, see: int | None = None,
            sensitivity: tuple[str, ...] = ()) -> ClaimResult:
    """The verdict under Holm's correction (the row's decision p and equivalence p, each adjusted
    in its family), and its robustness: ``robust`` when the verdict before the correction, the
    ± 2 std bands (not for a negligible verdict: bands cannot show an absence), the final round's
    values and the matched accuracy levels (where the row has them) all give the same verdict and
    the study is at its plateau."""
    if result.diff is None or result.verdict in (NOT_RUN, ONE):
        return dataclasses.replace(result, p_holm=p_holm, p_eq_holm=p_eq_holm)
    expect = "below" if result.lowest else result.expect
    verdict = decide(result.diff, result.delta_value, expect, p=p_holm, p_eq=p_eq_holm)
    # a correction only raises p-values: it can weaken a verdict, never make one (a row the raw
    # test leaves inconclusive, e.g. levels that disagree or one comparison under δ, stays so)
    if result.verdict == INCONCLUSIVE or (not result.agree and verdict in (SUPPORTED, NOT_SUPPORTED)):
        verdict = INCONCLUSIVE
    # supported only when no check goes against it and, for a final-window row, its arms have
    # stopped changing on the row's own measure (docs/verdicts.md: the strict rule)
    if verdict == SUPPORTED and (result.against or (result.changing and not result.matched_row)):
        verdict = INCONCLUSIVE
    checks = (((BEFORE_HOLM, result.verdict),) if p_holm is not None else ()) + result.checks
    if verdict == NEGLIGIBLE:
        checks = tuple(c for c in checks if not c[0].startswith("± 2 std"))
    odd = [f"{name} give{'s' if name.startswith('the') else ''} {v}" + _confounded(name, v, verdict, see)
           for name, v in checks if v != verdict]
    odd += [result.changing] if result.changing else []
    odd += [f"{c} has its estimate against the claim" for c in result.against]
    odd += ["its verdict depends on δ"] if sensitivity and len(set(sensitivity) | {verdict}) > 1 else []
    robustness = ROBUST if not odd else "not robust: " + "; ".join(odd)
    return dataclasses.replace(result, verdict=verdict, p_holm=p_holm, p_eq_holm=p_eq_holm, robustness=robustness,
                               sign=result.sign if verdict in (SUPPORTED, NOT_SUPPORTED) else 0,
                               sensitivity=sensitivity)


def verdict_at_scale(result: ClaimResult, scale: float, p_holm: float | None, p_eq_holm: float | None) -> str:
    """The row's verdict with δ scaled by ``scale`` (the same Holm p; the equivalence p recomputed
    at the new margin and adjusted in its family by the caller)."""
    if result.diff is None or result.delta_value is None or result.verdict in (NOT_RUN, ONE):
        return ""
    scaled = dataclasses.replace(result, delta_value=result.delta_value * scale)
    return finish_row(scaled, p_holm, p_eq_holm).verdict


def equivalence_p(result: ClaimResult, scale: float) -> float | None:
    if result.p_eq is None or result.diff is None or result.delta_value is None:
        return None
    return tost(result.diff, result.delta_value * scale)
