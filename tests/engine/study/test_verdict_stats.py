"""Issue 33's statistics, by hand: the paired test when two groups share their seeds, the
equivalence test against a smallest effect of interest, non-inferiority, the slope of a curve,
and the four verdicts they give."""
from __future__ import annotations

import pytest

from fedquad_core.study import stats
from fedquad_core.study.effects import effect_text, smallest_effect
from fedquad_core.study.table import NEGLIGIBLE, NOISE, SEPARATED, compare
from fedquad_core.study.verdicts import INCONCLUSIVE, NEGLIGIBLE as NEG, NOT_SUPPORTED, SUPPORTED, decide, judge


def test_paired_by_hand():
    # differences 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t = 3.464 on 2 df; t(0.975, 2) = 4.3027
    d = stats.paired([11.0, 12.0, 13.0], [10.0, 10.0, 10.0])
    assert d.diff == pytest.approx(2.0) and d.df == 2 and d.pairs == 3 and d.paired
    assert d.se == pytest.approx(3 ** -0.5)
    assert d.low == pytest.approx(2 - 4.3027 / 3 ** 0.5, abs=1e-3) and d.high == pytest.approx(2 + 4.3027 / 3 ** 0.5, abs=1e-3)
    assert d.p == pytest.approx(0.0742, abs=5e-4)
    assert d.test_name == "paired t, 3 seeds"
    assert stats.paired([1.0], [2.0]) is None
    exact = stats.paired([2.0, 3.0], [1.0, 2.0])  # every seed the same difference
    assert exact.low == exact.high == 1.0 and exact.p == 0.0
    with pytest.raises(ValueError):
        stats.paired([1.0, 2.0], [1.0])


def test_a_paired_comparison_on_shared_seeds():
    """Issue 33: the seeds carry most of the spread (each seed's run is 5 points better or worse
    for both methods), FedQuad 1 point above FedAvg on every seed but one. Welch on the two groups
    sees 1 point inside a 5-point spread: inconclusive; the paired test on the same seeds sees the
    differences 1.0, 1.2, 0.8, 1.1, 0.9: beyond seed noise. Different seeds: Welch, as before."""
    fedavg = {0: 0.70, 1: 0.75, 2: 0.80, 3: 0.65, 4: 0.72}
    fedquad = {0: 0.71, 1: 0.762, 2: 0.808, 3: 0.661, 4: 0.729}
    welch = compare(list(fedquad.values()), list(fedavg.values()))
    paired = compare(fedquad, fedavg)
    assert welch.state == NOISE and not welch.test.paired
    assert paired.state == SEPARATED and paired.test.paired and paired.test.pairs == 5 and paired.direction == 1
    assert paired.test.diff == pytest.approx(welch.test.diff)  # the same difference, a different noise
    assert paired.test.p < 0.001 < 0.5 < welch.test.p
    assert paired.test.g == pytest.approx(welch.test.g)  # g over the groups' pooled std either way
    assert "paired t, 5 seeds" in paired.why()
    # one seed missing on one side: not the same seeds, so Welch on what there is
    other = compare(fedquad, {k: v for k, v in fedavg.items() if k != 4})
    assert not other.test.paired and other.n_b == 4


def test_tost_by_hand():
    # difference 0.1, se 0.1, df 10, margin 0.5: one-sided p of t = (0.1 + 0.5) / 0.1 = 6 and of
    # t = (0.5 - 0.1) / 0.1 = 4 on 10 df: the larger, P(T > 4) = 0.00126
    d = stats.Difference(0.1, -0.12, 0.32, 0.34, 10.0, None, se=0.1)
    assert stats.tost(d, 0.5) == pytest.approx(0.00126, abs=2e-5)
    assert stats.tost(d, 0.1) == pytest.approx(0.5)  # the difference on the margin: p 0.5
    assert stats.tost(d, 0.0) == 1.0
    assert stats.noninferior(d, 0.5) == pytest.approx(stats._t_sf(6.0, 10.0))
    exact = stats.Difference(0.1, 0.1, 0.1, 0.0, 4.0, None, se=0.0)
    assert stats.tost(exact, 0.5) == 0.0 and stats.tost(exact, 0.05) == 1.0


def test_smallest_effects_are_stated_once():
    assert smallest_effect("final_acc") == 0.01 and smallest_effect("local_cka") == 0.02
    assert smallest_effect("effective_rank") == 0.5 and smallest_effect("local_effective_rank") == 0.5
    assert smallest_effect("intra_l2", 0.28) == pytest.approx(0.014)  # 5 % of the reference group's mean
    assert smallest_effect("intra_l2") is None and smallest_effect("unknown") is None
    assert effect_text("final_acc", 0.01) == "1 point" and effect_text("intra_l2", 0.014) == "0.014 (5 % of the reference)"


def test_a_negligible_difference_is_not_supported():
    """Issue 33, row 2: CKA 0.9955 against 0.9995 over 5 seeds, a difference of 0.004 beyond seed
    noise, is inside the smallest effect of interest 0.02: negligible, not supported."""
    skew = {s: 0.9955 + 0.001 * d for s, d in enumerate((-1.5, 0.5, 1.0, -0.5, 0.5))}
    iid = {s: 0.9995 + 0.0001 * d for s, d in enumerate((1, -1, 0, 1, -1))}
    v = compare(skew, iid, smallest_effect("local_cka"))
    assert v.test.p < 0.01 and v.tost_p < 0.001 and v.state == NEGLIGIBLE
    assert judge(v, "below") == NEG and "negligible: inside ±0.02" in v.why()
    big = compare({0: 0.80, 1: 0.85, 2: 0.83}, {0: 0.99, 1: 0.98, 2: 0.99}, 0.02)
    assert judge(big, "below") == SUPPORTED and judge(big, "above") == NOT_SUPPORTED


def test_the_four_verdicts():
    beyond_small = stats.Difference(0.3, 0.1, 0.5, 0.01, 8.0, 1.0, se=0.09)  # beyond noise, under δ = 0.5
    assert decide(beyond_small, 0.5, "above", p_eq=0.2) == INCONCLUSIVE
    assert decide(beyond_small, 0.5, "above", p_eq=0.01) == NEG
    assert decide(beyond_small, 0.2, "above") == SUPPORTED and decide(beyond_small, 0.2, "below") == NOT_SUPPORTED
    assert decide(beyond_small, 0.2, "above", p=0.06) == INCONCLUSIVE  # Holm-adjusted above the line
    # "X is kept" (not below): non-inferiority with margin δ, whichever way the difference goes
    small_down = stats.Difference(-0.05, -0.15, 0.05, 0.3, 8.0, None, se=0.04)
    assert decide(small_down, 0.5, "not below") == SUPPORTED
    assert decide(stats.Difference(-2.0, -2.5, -1.5, 0.0, 8.0, None, se=0.2), 0.5, "not below") == NOT_SUPPORTED


def test_p_near_the_line_keeps_three_digits():
    assert stats.p_text(0.0503) == "p = 0.0503" and stats.p_text(0.23) == "p = 0.23" and stats.p_text(0.004) == "p = 0.004"


def test_slope_by_hand():
    b, low, high = stats.slope([1.0, 2.0, 3.0, 4.0])
    assert b == pytest.approx(1.0) and low == high == pytest.approx(1.0)
    b, low, high = stats.slope([0.0, 1.0, 0.0, 1.0])  # by hand: sxy = 1, sxx = 5, slope 0.2
    assert b == pytest.approx(0.2) and low < 0 < high
    assert stats.slope([1.0, 2.0]) is None
    m, lo, hi = stats.mean_interval([1.0, 2.0, 3.0])  # mean 2, sd 1, t(0.975, 2) = 4.3027
    assert m == 2.0 and hi - m == pytest.approx(4.3027 / 3 ** 0.5, abs=1e-3)
