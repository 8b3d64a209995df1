"""Has a study's training reached a plateau? A two-sided rule: the slope of FedAvg's test accuracy
over its last ``WINDOW`` rounds, per seed, pooled over seeds as their mean with a t-interval
(the seeds are independent; a run's rounds are not), and a plateau only when that interval lies
inside ±``BAND`` per round. A climbing, a falling and a swinging curve all fail it ("still
changing"); a flat one with too few seeds to show it is flat fails it too, and says how many seeds
its spread would need.

Why these numbers: ``BAND`` is 0.1 points per round, the accuracy's smallest effect of interest
(1 point, ``effects``) over 10 rounds, the window each run's value averages: at the band's edge,
ten more rounds would move a run's value by the smallest difference the verdicts care about.
``WINDOW`` is 20 rounds: long enough for a slope to stand out of round-to-round swings of several
points, short enough to describe the end of a 60-100 round run."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .stats import LEVEL, mean_interval, slope

WINDOW = 20  # rounds the slope is fitted over
BAND = 0.001  # accuracy per round (0.1 points a round: 1 point per 10 rounds)
PER = 10  # the slopes are printed per this many rounds


@dataclass(frozen=True)
class Plateau:
    """``slopes`` (per seed, accuracy per round), the pooled ``mean`` with its interval
    ``[low, high]`` (None below 2 seeds: then the one seed's own regression interval), and
    ``reached``: the interval inside ±BAND."""
    slopes: tuple[float, ...]
    mean: float
    low: float
    high: float

    @property
    def reached(self) -> bool:
        return -BAND <= self.low and self.high <= BAND

    @property
    def falling(self) -> bool:
        return self.high < 0

    def seeds_needed(self) -> int | None:
        """How many seeds the slopes' spread would need for the interval to fit the band (None
        when the mean slope itself is outside the band, or there is no spread to extrapolate)."""
        if len(self.slopes) < 2 or abs(self.mean) >= BAND:
            return None
        sd = math.sqrt(math.fsum((s - self.mean) ** 2 for s in self.slopes) / (len(self.slopes) - 1))
        if sd == 0:
            return None
        from scipy import stats as _scipy  # lazy: about 0.7 s of scipy.stats (benchmarks/lazy_imports.py); the pages import this module

        for n in range(2, 1001):
            if abs(self.mean) + float(_scipy.t.ppf(0.5 + LEVEL / 2, n - 1)) * sd / math.sqrt(n) <= BAND:
                return n
        return None

    def short(self) -> str:
        """``slope +0.59 points per 10 rounds, 95 % CI -0.33 to +1.51``."""
        per = lambda x: f"{x * 100 * PER:+.2f}"  # noqa: E731
        return (f"slope of the last {WINDOW} rounds {per(self.mean)} points per {PER} rounds, "
                f"{round(LEVEL * 100)} % CI {per(self.low)} to {per(self.high)}")

    def text(self) -> str:
        per = lambda x: f"{x * 100 * PER:+.2f}"  # noqa: E731
        seeds = ", ".join(per(s) for s in self.slopes)
        head = (f"{self.short()} ({'mean of ' + str(len(self.slopes)) + ' seeds: ' if len(self.slopes) > 1 else 'one seed: '}"
                f"{seeds})")
        band = f"±{BAND * 100 * PER:g} point per {PER} rounds"
        if self.reached:
            return f"{head}: plateau (the interval inside {band})"
        why = ("falling" if self.falling else "climbing" if self.low > 0 else
               f"not shown flat: the interval reaches outside {band}")
        need = self.seeds_needed()
        more = (f"; at this mean and spread about {need} seeds would be needed to show it flat, or more rounds"
                if need else f"; more rounds would be needed: the mean slope itself is outside {band}"
                if abs(self.mean) >= BAND else "")
        return f"{head}: still changing ({why}{more})"


def plateau(curves: list[list[float]]) -> Plateau | None:
    """The rule on the accuracy curves of one group's runs (one per seed); None when no run has
    ``WINDOW`` rounds."""
    fits = [slope(c[-WINDOW:]) for c in curves if len(c) >= WINDOW]
    fits = [f for f in fits if f is not None]
    if not fits:
        return None
    slopes = tuple(f[0] for f in fits)
    pooled = mean_interval(slopes)
    mean, low, high = pooled if pooled is not None else fits[0]
    return Plateau(slopes, mean, low, high)
