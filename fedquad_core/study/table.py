"""A study's numbers: one row per grid point (``study_frame``) and, over seeds, the mean, std
and count of each metric per (method, x value, other slider axes) (``response_table``), and the one
decision whether two groups of seeds differ beyond seed noise (``compare``, ``Verdict``: a paired
t-test when both groups have the same seeds, Welch's test otherwise, with a 95 % confidence
interval, ``stats``; given a smallest effect of interest δ, an equivalence test as well).

Only finished runs count towards the means; a point whose run is missing, running, failed,
cancelled or diverged is listed in its group's ``missing``."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Mapping, Sequence

from ..runs.store import RunNotFound, RunStore, StoreError
from .stats import LEVEL, Difference, bands_separated, p_text, paired, tost, welch

# the mean local-model metrics of the last snapshot row that has them (docs/run-store.md, "Local models");
# None for runs that did not measure their clients
LOCAL_METRICS = ("local_acc_all", "local_acc_own", "local_acc_own_any", "local_effective_rank", "local_ratio", "local_cka",
                 "update_cosine", "update_norm")
METRICS = ("final_acc", "best_acc", "final_ratio", "final_ratio_l2", "effective_rank", *LOCAL_METRICS)
REPLICATE, SERIES = "seed", "method"


def _last(rows: list[dict], key: str) -> float | None:
    for row in reversed(rows):
        value = row.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
    return None


def run_numbers(runs: RunStore, run_id: str | None) -> dict[str, Any]:
    """state, rounds and the metrics of one run (state 'missing' when there is no such run)."""
    empty = {"state": "missing", "rounds": 0, **dict.fromkeys(METRICS)}
    if not run_id:
        return empty
    try:
        state = runs.read_status(run_id).get("state", "queued")
        rows = runs.read_metrics(run_id)
    except (RunNotFound, StoreError):
        return empty
    accs = [r["test_accuracy"] for r in rows if isinstance(r.get("test_accuracy"), (int, float))]
    return {"state": state, "rounds": len(rows), "final_acc": accs[-1] if accs else None,
            "best_acc": max(accs) if accs else None, "final_ratio": _last(rows, "ratio"),
            "final_ratio_l2": _last(rows, "ratio_l2"), "effective_rank": _last(rows, "effective_rank"),
            **{m: _last(rows, m) for m in LOCAL_METRICS}}


def study_frame(runs: RunStore, study: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per point: its coords, ``run_id``, ``state``, ``rounds`` and the metrics."""
    cache: dict[str | None, dict] = {}
    out = []
    for p in study["points"]:
        run_id = p.get("run_id")
        if run_id not in cache:
            cache[run_id] = run_numbers(runs, run_id)
        out.append({**p["coords"], "run_id": run_id, **cache[run_id]})
    return out


def slider_axes(study: dict[str, Any]) -> list[str]:
    """Axes with more than one value, other than the replicate (seed) and series (method) axes."""
    return [k for k, v in study["axes"].items() if k not in (REPLICATE, SERIES) and len(v) > 1]


def _hashable(value: Any) -> Any:
    return repr(value)


def response_table(rows: list[dict[str, Any]], x_axis: str | None, series: str = SERIES) -> list[dict[str, Any]]:
    """Per (series, x, other coords but the seed): ``<metric>_mean``, ``<metric>_std`` (sample
    std, None below two values), ``<metric>_n``, plus ``n`` finished of ``total`` points and the
    ``missing`` seeds. Groups are ordered by series, then x, then the other axes, each in the
    order its values first appear in ``rows`` (the grid's order)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        coords = {k: v for k, v in row.items() if k not in ("run_id", "state", "rounds", *METRICS, REPLICATE)}
        ordered = {**({series: coords.pop(series)} if series in coords else {}),
                   **({x_axis: coords.pop(x_axis)} if x_axis and x_axis in coords else {}), **coords}
        groups.setdefault(tuple(ordered.items()), []).append(row)
    order = {}
    for key in groups:
        for i, (_, value) in enumerate(key):
            order.setdefault((i, _hashable(value)), len(order))
    ranked = sorted(groups, key=lambda k: [order[(i, _hashable(v))] for i, (_, v) in enumerate(k)])
    table = []
    for key in ranked:
        members = groups[key]
        done = [r for r in members if r["state"] == "finished"]
        entry: dict[str, Any] = dict(key)
        for metric in METRICS:
            values = [r[metric] for r in done if r.get(metric) is not None]
            entry[f"{metric}_mean"] = statistics.fmean(values) if values else None
            entry[f"{metric}_std"] = statistics.stdev(values) if len(values) > 1 else None
            entry[f"{metric}_n"] = len(values)
        entry["n"], entry["total"] = len(done), len(members)
        entry["missing"] = [r.get(REPLICATE) for r in members if r["state"] != "finished"]
        table.append(entry)
    return table


# ---- the one decision "beyond seed noise or not" ------------------------------------------------
SEPARATED, NOISE, ONE_SEED, NO_DATA = "beyond seed noise", "inconclusive", "one seed: no test possible", "no data"
NEGLIGIBLE = "negligible"


@dataclass(frozen=True)
class Verdict:
    """Two groups of per-seed values, compared by Welch's test (``stats.welch``). ``state`` is

    - ``beyond seed noise``: both have at least 2 values and the 95 % confidence interval of the
      difference of their means excludes 0; ``direction`` is +1 when a's mean is above b's, -1 below;
    - ``inconclusive``: both have at least 2 values and the interval contains 0 (with these seeds
      no difference is shown; that is not a proof of none);
    - ``negligible``: only when a smallest effect of interest ``delta`` is given: the equivalence
      test (``stats.tost``) puts the difference inside ±delta (p ``tost_p`` below 0.05), whether
      or not it is beyond seed noise: no difference that matters;
    - ``one seed: no test possible``: either side has exactly one value (no spread to judge by);
    - ``no data``: either side has none.

    ``test`` holds the difference, its interval, p and Hedges' g; ``bands`` whether the mean ± 1
    std bands the figures draw miss each other (the picture, not the decision). Every place that
    says "higher", "lower", "beyond seed noise" (response plots, lesson sentences, the claims
    table) decides it here."""
    # the states, as a page names them (``v.state == Verdict.ONE_SEED``)
    SEPARATED: ClassVar[str] = SEPARATED
    NEGLIGIBLE: ClassVar[str] = NEGLIGIBLE
    NOISE: ClassVar[str] = NOISE
    ONE_SEED: ClassVar[str] = ONE_SEED
    NO_DATA: ClassVar[str] = NO_DATA

    mean_a: float | None
    std_a: float | None
    n_a: int
    mean_b: float | None
    std_b: float | None
    n_b: int
    state: str
    test: Difference | None = None
    bands: bool = False
    delta: float | None = None
    tost_p: float | None = None

    @property
    def negligible(self) -> bool:
        return self.state == NEGLIGIBLE

    @property
    def separated(self) -> bool:
        return self.state == SEPARATED

    @property
    def direction(self) -> int:
        """+1 (a above b), -1 (a below b), 0 (not beyond seed noise: no direction is claimed)."""
        if not self.separated:
            return 0
        return 1 if self.mean_a > self.mean_b else -1

    @property
    def seeds(self) -> str:
        """``5 vs 5 seeds`` (``5 seeds`` when both sides have as many)."""
        return f"{self.n_a} seeds" if self.n_a == self.n_b else f"{self.n_a} vs {self.n_b} seeds"

    def text(self, spec: str = ".2f", scale: float = 1.0) -> tuple[str, str]:
        """``mean ± std`` of each side (``mean`` alone for one value, '-' for none)."""
        return (mean_std_text(self.mean_a, self.std_a, self.n_a, spec, scale),
                mean_std_text(self.mean_b, self.std_b, self.n_b, spec, scale))

    def why(self, spec: str = ".2f", scale: float = 1.0, unit: str = "") -> str:
        """The decision in words: ``inconclusive with 3 seeds (difference +0.4, 95 % CI -0.2 to 1.0,
        p = 0.15)``; ``beyond seed noise (difference ..., p = 0.01, g = 2.1; 5 seeds)``."""
        if self.test is None:
            return self.state
        t = self.test
        g = f", g = {t.g:.1f}" if t.g is not None else ""
        inner = f"difference {t.text(spec, scale, unit)}, {p_text(t.p)}{g}"
        if self.separated:
            return f"beyond seed noise ({inner}; {self.seeds}, {t.test_name})"
        if self.negligible:
            return f"negligible: inside ±{self.delta:g} ({inner}; equivalence {p_text(self.tost_p)}; {t.test_name})"
        return f"inconclusive with {self.seeds} ({inner}; {t.test_name})"


def mean_std_text(mean, std, n, spec: str = ".2f", scale: float = 1.0) -> str:
    """``mean ± std`` (``mean`` alone for one value, '-' for none), scaled and formatted with ``spec``."""
    if not n:
        return "-"
    return format(mean * scale, spec) + (f" ± {format(std * scale, spec)}" if n > 1 else "")


def summarize(values) -> tuple[float | None, float | None, int]:
    """Mean, sample std (ddof 1; None below two values) and count of the finite numbers in ``values``."""
    v = [float(x) for x in values if isinstance(x, (int, float)) and math.isfinite(x)]
    return (statistics.fmean(v) if v else None, statistics.stdev(v) if len(v) > 1 else None, len(v))


def compare_summary(mean_a: float, std_a: float, n_a: int, mean_b: float, std_b: float, n_b: int) -> Verdict:
    """``compare`` from each side's mean, std and count (as a response table holds them)."""
    n_a = int(n_a or 0) if _finite(mean_a) else 0
    n_b = int(n_b or 0) if _finite(mean_b) else 0
    test, bands = None, False
    if not n_a or not n_b:
        state = NO_DATA
    elif n_a < 2 or n_b < 2:
        state = ONE_SEED
    else:
        ma, mb, sa, sb = float(mean_a), float(mean_b), float(std_a or 0.0), float(std_b or 0.0)
        test = welch(ma, sa, n_a, mb, sb, n_b)
        bands = bands_separated(ma, sa, mb, sb)
        state = SEPARATED if test.excludes_zero else NOISE
    return Verdict(float(mean_a) if n_a else None, float(std_a or 0.0) if n_a > 1 else None, n_a,
                   float(mean_b) if n_b else None, float(std_b or 0.0) if n_b > 1 else None, n_b, state, test, bands)


def compare(a_values: Mapping[Any, float | None] | Sequence[float | None],
            b_values: Mapping[Any, float | None] | Sequence[float | None], delta: float | None = None) -> Verdict:
    """Compare two groups of per-seed values (None and non-finite values are left out): lists
    (Welch's test), or dicts seed -> value: a paired t-test on the per-seed differences when both
    have the same seeds (at least 2), Welch's test otherwise. With ``delta`` (the smallest effect
    of interest, ``effects.smallest_effect``), a difference shown inside ±delta is ``negligible``."""
    a, b = _finite_items(a_values), _finite_items(b_values)
    v = compare_summary(*summarize(a.values()), *summarize(b.values()))
    if v.test is not None and isinstance(a_values, dict) and isinstance(b_values, dict) and a.keys() == b.keys():
        seeds = list(a)
        test = paired([a[s] for s in seeds], [b[s] for s in seeds])
        v = replace(v, test=test, state=SEPARATED if test.excludes_zero else NOISE)
    if delta is not None and v.test is not None:
        p_eq = tost(v.test, delta)
        v = replace(v, delta=delta, tost_p=p_eq, state=NEGLIGIBLE if p_eq < 1 - LEVEL else v.state)
    return v


def _finite_items(values) -> dict:
    """``values`` (a list, or a dict seed -> value) as a dict of its finite numbers (a list keyed by position)."""
    items = values.items() if isinstance(values, dict) else enumerate(values)
    return {k: float(x) for k, x in items if _finite(x)}


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)
