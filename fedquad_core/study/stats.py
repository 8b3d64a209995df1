"""The statistics behind every verdict: two groups of per-seed values compared by the difference
of their means with a 95 % confidence interval (Welch's t, unequal variances), its p-value and an
effect size (Hedges' g), and Holm's correction across a family of such tests.

A difference is **beyond seed noise** only when its confidence interval excludes 0; otherwise it
is **inconclusive with n seeds** (not "no effect": more seeds could still show one). The ± 1 std
seed bands the figures draw are the picture, not the decision (with 3 seeds and no true
difference, ± 1 std bands separate 8-18 % of the time).

Welch, B. L. (1947). The generalization of "Student's" problem when several different population
variances are involved. Biometrika 34. Hedges, L. V. (1981). Distribution theory for Glass's
estimator of effect size. J. Educ. Stat. 6. Holm, S. (1979). A simple sequentially rejective
multiple test procedure. Scand. J. Stat. 6."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

LEVEL = 0.95  # the confidence level of every interval (and 1 - LEVEL the test's alpha)


@dataclass(frozen=True)
class Difference:
    """``a`` minus ``b``: the difference of the means, its ``level`` confidence interval
    ``[low, high]`` (Welch), the two-sided p-value, Welch-Satterthwaite degrees of freedom and
    Hedges' g (None when both groups have no spread)."""
    diff: float
    low: float
    high: float
    p: float
    df: float
    g: float | None
    level: float = LEVEL

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    @property
    def sign(self) -> int:
        """+1 when the interval lies above 0, -1 below, 0 when it contains 0."""
        return 1 if self.low > 0 else -1 if self.high < 0 else 0

    def text(self, spec: str = ".2f", scale: float = 1.0, unit: str = "") -> str:
        """The difference and its interval, e.g. ``+2.1 %, 95 % CI 0.4 to 3.8 %``."""
        f = lambda x: format(x * scale, spec)  # noqa: E731
        return f"{format(self.diff * scale, '+' + spec)}{unit}, {round(self.level * 100)} % CI {f(self.low)} to {f(self.high)}{unit}"


def welch(mean_a: float, std_a: float, n_a: int, mean_b: float, std_b: float, n_b: int,
          level: float = LEVEL) -> Difference | None:
    """Welch's test of ``mean_a - mean_b`` from each group's mean, sample std (ddof 1) and size;
    None when a group has fewer than 2 values (no spread to judge by)."""
    if n_a < 2 or n_b < 2:
        return None
    va, vb = float(std_a or 0.0) ** 2, float(std_b or 0.0) ** 2
    diff = float(mean_a) - float(mean_b)
    se2 = va / n_a + vb / n_b
    g = hedges_g(diff, va, n_a, vb, n_b)
    if se2 <= 0.0:  # no spread on either side: the difference is exact
        return Difference(diff, diff, diff, 1.0 if diff == 0 else 0.0, float(n_a + n_b - 2), g, level)
    from scipy import stats as _scipy  # on first use: scipy.stats takes a while to import

    df = se2 ** 2 / ((va / n_a) ** 2 / (n_a - 1) + (vb / n_b) ** 2 / (n_b - 1))
    se = math.sqrt(se2)
    half = float(_scipy.t.ppf(0.5 + level / 2, df)) * se
    p = float(2 * _scipy.t.sf(abs(diff) / se, df))
    return Difference(diff, diff - half, diff + half, min(1.0, p), float(df), g, level)


def welch_values(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> Difference | None:
    """``welch`` of two lists of per-seed values."""
    def summary(v):
        n = len(v)
        m = math.fsum(v) / n if n else 0.0
        s = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
        return m, s, n
    return welch(*summary(list(a)), *summary(list(b)), level=level)


def p_text(p: float) -> str:
    """``p < 0.001``, ``p = 0.004``, ``p = 0.21``."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.01 else f"p = {p:.2f}"


def hedges_g(diff: float, var_a: float, n_a: int, var_b: float, n_b: int) -> float | None:
    """The standardised difference (pooled sample std), small-sample corrected:
    g = J * d, J = 1 - 3 / (4 (n_a + n_b) - 9)."""
    dof = n_a + n_b - 2
    if dof <= 0:
        return None
    pooled = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / dof)
    if pooled == 0:
        return None
    return (1 - 3 / (4 * (n_a + n_b) - 9)) * diff / pooled


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values of a family (None entries are not tested and stay None): the k-th
    smallest of m p-values is multiplied by (m - k + 1), then made monotone and capped at 1."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    out: list[float | None] = [None] * len(pvalues)
    m, running = len(tested), 0.0
    for k, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


def bands_separated(mean_a: float, std_a: float, mean_b: float, std_b: float, k: float = 1.0) -> bool:
    """Whether the mean ± k std bands of two groups miss each other (touching counts as meeting):
    the picture the figures draw (k = 1), and a robustness check (k = 2), never the decision."""
    sa, sb = k * float(std_a or 0.0), k * float(std_b or 0.0)
    return max(mean_a - sa, mean_b - sb) > min(mean_a + sa, mean_b + sb)


def first_crossing(accuracy: Sequence[float], values: Sequence[float], level: float) -> float | None:
    """A run's ``values`` (one per snapshot) at the accuracy ``level``, linearly interpolated
    between the two snapshots where its accuracy first rises through ``level``; the snapshot's
    value when it equals the level; None when the run never reaches it, or reaches it at its first
    snapshot already (no snapshot below the level to interpolate from)."""
    for i, acc in enumerate(accuracy):
        if acc >= level - 1e-12:
            if math.isclose(acc, level, abs_tol=1e-12):
                return float(values[i])
            if i == 0:
                return None
            a0, a1 = accuracy[i - 1], acc
            t = (level - a0) / (a1 - a0)
            return float(values[i - 1] + t * (values[i] - values[i - 1]))
    return None


def plateau_gain(accuracy: Sequence[float], window: int = 10, smooth: int = 3) -> float | None:
    """How much a run's accuracy still gains over its last ``window`` rounds: the mean of its last
    ``smooth`` rounds minus the mean of the ``smooth`` rounds ending ``window`` rounds earlier
    (None for a run shorter than window + smooth rounds)."""
    acc = list(accuracy)
    if len(acc) < window + smooth:
        return None
    end = acc[-smooth:]
    start = acc[len(acc) - window - smooth:len(acc) - window]
    return math.fsum(end) / smooth - math.fsum(start) / smooth
