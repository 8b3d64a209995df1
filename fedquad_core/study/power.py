"""How many seeds a registered comparison needs: the power calculation behind the confirmatory
registration (``registration.toml``, docs/verdicts.md).

A row is planned to find a difference of its smallest effect of interest δ with probability
``power`` (0.8) in a two-sided t-test at level ``alpha`` (0.05 divided by the number of rows of
its family, Holm's first step: the most a row can be asked to pass). ``sd`` is the spread of one
seed's value (Welch: of each group; paired: of the per-seed difference), taken from the
exploratory studies as a pilot: a pilot gives the noise, never the effect, which is δ, fixed
from the measure's scale (``effects``).

Power is the exact noncentral-t probability (scipy), not the normal approximation, so small
counts are not under-planned."""
from __future__ import annotations

import math

from scipy import stats

MAX_SEEDS = 400


def t_power(delta: float, sd: float, n: int, alpha: float, paired: bool) -> float:
    """Power of the two-sided t-test for a true difference ``delta`` with ``n`` seeds (paired:
    ``n`` pairs; Welch, planned as Student's with equal groups: ``n`` runs in each group)."""
    if n < 2 or sd <= 0:
        return 0.0 if n < 2 else 1.0
    if paired:
        df, se = n - 1, sd / math.sqrt(n)
    else:
        df, se = 2 * n - 2, sd * math.sqrt(2.0 / n)
    nc = abs(delta) / se
    crit = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def seeds_needed(delta: float, sd: float, alpha: float, power: float = 0.8, paired: bool = True) -> int:
    """The smallest seed count (per group for Welch) whose ``t_power`` reaches ``power``;
    ``MAX_SEEDS`` + 1 when none up to ``MAX_SEEDS`` does."""
    if delta <= 0 or not math.isfinite(sd) or sd < 0:
        raise ValueError(f"a power calculation needs delta > 0 and a finite sd >= 0 (got {delta}, {sd})")
    for n in range(2, MAX_SEEDS + 1):
        if t_power(delta, sd, n, alpha, paired) >= power:
            return n
    return MAX_SEEDS + 1
