"""A claim's verdict in words, from one comparison (``table.Verdict``: the difference, its interval
and p, and the equivalence test against the measure's smallest effect of interest δ):

- ``supported``: beyond seed noise (p below 0.05, Holm-adjusted in the claims table) and at least
  δ, in the claim's direction; for a claim that X is *kept* ("not below"), non-inferiority: the
  one-sided test shows the difference above -δ;
- ``not supported``: the same, the other way (for "not below": the interval lies below -δ);
- ``negligible``: the equivalence test (two one-sided tests) puts the difference inside ±δ: no
  difference that matters, whether or not it is beyond seed noise;
- ``inconclusive``: otherwise (neither a difference of at least δ nor its absence is shown);
- ``untested: one seed`` / ``not run here``: no test possible / no data.
"""
from __future__ import annotations

from .stats import LEVEL, Difference, bands_separated, noninferior
from .table import NO_DATA, ONE_SEED, Verdict

SUPPORTED, NOT_SUPPORTED, NEGLIGIBLE, INCONCLUSIVE = "supported", "not supported", "negligible", "inconclusive"
NOT_RUN, ONE = "not run here", "untested: one seed"
ALPHA = 1 - LEVEL
OPPOSITE = {SUPPORTED: NOT_SUPPORTED, NOT_SUPPORTED: SUPPORTED}


def direction_verdict(sign: int, expect: str) -> str:
    """The verdict for a difference of sign ``sign`` (+1 a above b, -1 below, 0 not shown) on a
    claim that ``a`` is ``expect`` of ``b``."""
    if sign == 0:
        return INCONCLUSIVE
    if expect == "not below":
        return SUPPORTED if sign > 0 else NOT_SUPPORTED
    return SUPPORTED if sign == {"above": 1, "below": -1}[expect] else NOT_SUPPORTED


def decide(t: Difference, delta: float | None, expect: str, p: float | None = None,
           p_eq: float | None = None) -> str:
    """The verdict of one difference ``t`` (a minus b) for a claim that ``a`` is ``expect`` of ``b``:
    ``p`` the decision's p-value (default: ``t``'s own two-sided p, or for "not below" its
    non-inferiority p), ``p_eq`` the equivalence p (both Holm-adjusted in the claims table)."""
    delta = delta or 0.0
    if expect == "not below":
        p = noninferior(t, delta) if p is None else p
        if p < ALPHA:
            return SUPPORTED
        return NOT_SUPPORTED if t.high < -delta else INCONCLUSIVE
    p = t.p if p is None else p
    if p_eq is not None and p_eq < ALPHA and delta > 0:
        return NEGLIGIBLE
    if p < ALPHA and abs(t.diff) >= delta and t.diff != 0:
        return direction_verdict(1 if t.diff > 0 else -1, expect)
    return INCONCLUSIVE


def judge(v: Verdict, expect: str) -> str:
    """``decide`` on a ``Verdict``'s own test (no correction for other rows)."""
    if v.state == NO_DATA:
        return NOT_RUN
    if v.state == ONE_SEED or v.test is None:
        return ONE
    return decide(v.test, v.delta, expect, p_eq=v.tost_p)


def row_p(v: Verdict, expect: str) -> float | None:
    """The p-value a row enters the family with: the two-sided p, or for "not below" the
    non-inferiority p."""
    if v.test is None:
        return None
    return noninferior(v.test, v.delta or 0.0) if expect == "not below" else v.test.p


def band_verdict(v: Verdict, expect: str, k: float = 2.0) -> str:
    """The verdict the ± k std bands give (a robustness check, not the decision): a direction when
    the bands miss each other and the difference is at least δ."""
    if v.state in (NO_DATA, ONE_SEED) or v.test is None:
        return judge(v, expect)
    apart = bands_separated(v.mean_a, v.std_a or 0.0, v.mean_b, v.std_b or 0.0, k)
    big = abs(v.mean_a - v.mean_b) >= (v.delta or 0.0)
    return direction_verdict((1 if v.mean_a > v.mean_b else -1) if apart and big else 0, expect)


def combined(states: list[str], none: str = NOT_RUN) -> str:
    """Several levels' verdicts as one: their common verdict, else inconclusive."""
    if not states:
        return none
    return states[0] if len(set(states)) == 1 else INCONCLUSIVE
