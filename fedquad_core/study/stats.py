"""The statistics behind every verdict: two groups of per-seed values compared by the difference
of their means with a 95 % confidence interval, its p-value and an effect size (Hedges' g), and
Holm's correction across a family of such tests.

- **Paired t** (``paired``) when both groups have the same seeds: within a seed the compared runs
  share the data subset, the initialisation and (for a comparison of methods) the partition, so
  the per-seed differences carry the comparison and their spread is the noise;
- **Welch's t** (``welch``, unequal variances) otherwise.
- **Equivalence** (``tost``: two one-sided tests against a smallest effect of interest δ) and
  **non-inferiority** (``noninferior``): "no difference that matters" is a test of its own, never
  read off a p above 0.05.
- **Plateau** (``slope``, ``mean_interval``): the slope of a run's last rounds with its interval.

A difference is **beyond seed noise** only when its confidence interval excludes 0; otherwise it
is **inconclusive with n seeds** (not "no effect": more seeds could still show one), unless an
equivalence test shows it inside the smallest effect of interest (``effects``). The ± 1 std
seed bands the figures draw are the picture, not the decision (with 3 seeds and no true
difference, ± 1 std bands separate 8-18 % of the time).

Welch, B. L. (1947). The generalization of "Student's" problem when several different population
variances are involved. Biometrika 34. Hedges, L. V. (1981). Distribution theory for Glass's
estimator of effect size. J. Educ. Stat. 6. Holm, S. (1979). A simple sequentially rejective
multiple test procedure. Scand. J. Stat. 6. Schuirmann, D. J. (1987). A comparison of the two
one-sided tests procedure and the power approach for assessing the equivalence of average
bioavailability. J. Pharmacokinet. Biopharm. 15. Lakens, D. (2017). Equivalence tests. Soc.
Psychol. Personal. Sci. 8."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..vocab.words import p_words

LEVEL = 0.95  # the confidence level of every interval (and 1 - LEVEL the test's alpha)


@dataclass(frozen=True)
class Difference:
    """``a`` minus ``b``: the difference of the means, its ``level`` confidence interval
    ``[low, high]``, the two-sided p-value, the degrees of freedom (Welch-Satterthwaite, or n - 1
    pairs), Hedges' g (the difference over the two groups' pooled std, so that it reads the same
    paired or not; None when both groups have no spread), the standard error ``se`` and
    ``pairs`` (the number of seeds paired; 0: Welch's test of two independent groups)."""
    diff: float
    low: float
    high: float
    p: float
    df: float
    g: float | None
    level: float = LEVEL
    se: float = 0.0
    pairs: int = 0

    @property
    def paired(self) -> bool:
        return self.pairs > 0

    @property
    def test_name(self) -> str:
        """``paired t, 5 seeds`` or ``Welch``."""
        return f"paired t, {self.pairs} seeds" if self.paired else "Welch"

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
    df = se2 ** 2 / ((va / n_a) ** 2 / (n_a - 1) + (vb / n_b) ** 2 / (n_b - 1))
    return _t_difference(diff, math.sqrt(se2), df, g, level)


def _t_difference(diff: float, se: float, df: float, g: float | None, level: float, pairs: int = 0) -> Difference:
    from scipy import stats as _scipy  # on first use: scipy.stats takes a while to import

    half = float(_scipy.t.ppf(0.5 + level / 2, df)) * se
    p = float(2 * _scipy.t.sf(abs(diff) / se, df))
    return Difference(diff, diff - half, diff + half, min(1.0, p), float(df), g, level, se, pairs)


def paired(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> Difference | None:
    """The paired t-test of ``a[i] - b[i]`` (the same seed ``i`` on both sides): the mean
    difference, its interval from the differences' spread on n - 1 degrees of freedom, and Hedges'
    g over the two groups' pooled std; None below 2 pairs."""
    a, b = [float(x) for x in a], [float(x) for x in b]
    if len(a) != len(b):
        raise ValueError(f"paired values need as many on each side ({len(a)} vs {len(b)})")
    n = len(a)
    if n < 2:
        return None
    d = [x - y for x, y in zip(a, b)]
    diff = math.fsum(d) / n
    sd = math.sqrt(math.fsum((x - diff) ** 2 for x in d) / (n - 1))
    g = hedges_g(diff, _var(a), n, _var(b), n)
    if sd == 0.0:  # every seed the same difference: exact
        return Difference(diff, diff, diff, 1.0 if diff == 0 else 0.0, float(n - 1), g, level, 0.0, n)
    return _t_difference(diff, sd / math.sqrt(n), n - 1, g, level, pairs=n)


def _var(v: Sequence[float]) -> float:
    m = math.fsum(v) / len(v)
    return math.fsum((x - m) ** 2 for x in v) / (len(v) - 1)


def _t_sf(t: float, df: float) -> float:
    from scipy import stats as _scipy  # lazy: about 0.7 s of scipy.stats (benchmarks/lazy_imports.py); the pages import this module

    return float(_scipy.t.sf(t, df))


def tost(d: Difference, delta: float) -> float:
    """The equivalence p-value of ``d`` against the margin ±``delta`` (two one-sided tests,
    Schuirmann 1987): the larger of the one-sided p-values of "difference <= -delta" and
    "difference >= +delta"; below 1 - LEVEL exactly when the (2 LEVEL - 1) interval, 90 % at the
    usual 95 %, lies inside (-delta, +delta)."""
    if delta <= 0:
        return 1.0
    if d.se <= 0.0:
        return 0.0 if abs(d.diff) < delta else 1.0
    return max(_t_sf((d.diff + delta) / d.se, d.df), _t_sf((delta - d.diff) / d.se, d.df))


def noninferior(d: Difference, delta: float) -> float:
    """The one-sided p-value of "a is below b by delta or more" (non-inferiority of ``a`` with the
    margin ``delta``): small when the difference is shown to be above -delta."""
    if d.se <= 0.0:
        return 0.0 if d.diff > -delta else 1.0
    return _t_sf((d.diff + delta) / d.se, d.df)


def welch_values(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> Difference | None:
    """``welch`` of two lists of per-seed values."""
    def summary(v):
        n = len(v)
        m = math.fsum(v) / n if n else 0.0
        s = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
        return m, s, n
    return welch(*summary(list(a)), *summary(list(b)), level=level)


p_text = p_words  # ``p < 0.001``, ``p = 0.004``, ``p = 0.0503``, ``p = 0.21``: the one p formatter (vocab.words)


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


def mean_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float, float] | None:
    """The mean of ``values`` and its t-interval over them (n - 1 degrees of freedom); None below 2."""
    v = [float(x) for x in values]
    n = len(v)
    if n < 2:
        return None
    m = math.fsum(v) / n
    sd = math.sqrt(_var(v))
    if sd == 0.0:
        return m, m, m
    from scipy import stats as _scipy  # lazy: about 0.7 s of scipy.stats (benchmarks/lazy_imports.py); the pages import this module

    half = float(_scipy.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return m, m - half, m + half


def slope(values: Sequence[float], level: float = LEVEL) -> tuple[float, float, float] | None:
    """The least-squares slope of ``values`` against their index (per round), with its ``level``
    interval (n - 2 degrees of freedom; rounds are treated as independent, which a run's
    round-to-round swings are not: read it as a description, and pool seeds with ``mean_interval``
    for a decision); None below 3 values."""
    y = [float(x) for x in values]
    n = len(y)
    if n < 3:
        return None
    xm, ym = (n - 1) / 2, math.fsum(y) / n
    sxx = math.fsum((i - xm) ** 2 for i in range(n))
    b = math.fsum((i - xm) * (v - ym) for i, v in enumerate(y)) / sxx
    resid = math.fsum((v - ym - b * (i - xm)) ** 2 for i, v in enumerate(y))
    se = math.sqrt(resid / (n - 2) / sxx)
    if se == 0.0:
        return b, b, b
    from scipy import stats as _scipy  # lazy: about 0.7 s of scipy.stats (benchmarks/lazy_imports.py); the pages import this module

    half = float(_scipy.t.ppf(0.5 + level / 2, n - 2)) * se
    return b, b - half, b + half
