"""The seed paper's claims (Göksu & Pugeault 2025), checked one by one against the studies of a
run-store root (the recorded ones: ``scripts/record_studies.py``).

Each claim names the study that tests it here, the two groups of runs it compares (or, for "the
lowest of all methods", FedQuad against each other method), and the direction the paper states.
Each run contributes one value: the mean of its last ``LAST_ROUNDS`` rounds (accuracy) or last
``LAST_SNAPSHOTS`` snapshots (geometry), so a run's round-to-round swing is not read as an effect.
The verdict comes from Welch's test of the difference of the two groups' means
(``stats.welch``), with Holm's correction across every tested row of the table:

- ``supported``: the Holm-adjusted p is below 0.05 and the difference lies in the paper's
  direction (for "X is kept": X above the reference);
- ``not supported``: the same, the other way (for "X is kept": X below the reference);
- ``inconclusive``: otherwise (with these seeds no difference is shown, which is not a proof of none);
- ``untested: one seed``: a group has a single seed;
- ``not run here``: no study in the root tests it (or the datasets are not available offline).

Beside it: the robustness of the verdict (the same under ± 2 std bands and on the final round's
values instead of the last-k mean: "robust" only when all three agree and the study's FedAvg has
reached a plateau), the verdict at several matched accuracy levels for geometry rows (each run's
snapshot curve interpolated at each level), and whether the study's runs reached a plateau
(``plateau``).
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..config.alpha import alpha_text
from ..runs.store import RunNotFound, RunStore, StoreError
from .matched import MatchedComparison, accuracy_levels, curve as _curve, matched_comparison  # noqa: F401
from .stats import LEVEL, bands_separated, first_crossing, holm, plateau_gain
from .store import StudyStore
from .table import NO_DATA, ONE_SEED, Verdict, compare

SUPPORTED, NOT_SUPPORTED, INCONCLUSIVE, NOT_RUN = "supported", "not supported", "inconclusive", "not run here"
WITHIN_NOISE = INCONCLUSIVE  # the name earlier code used
ONE = "untested: one seed"
ROBUST = "robust"
LAST_ROUNDS, LAST_SNAPSHOTS = 10, 3  # each run's value: the mean of its last k rounds / snapshots
PLATEAU_WINDOW, PLATEAU_GAIN = 10, 0.01  # trained to a plateau: under 1 point gained in the last 10 rounds
GEOMETRY = ("effective_rank", "ratio", "ratio_l2", "local_effective_rank", "local_ratio", "local_cka",
            "intra_l2", "inter_l2")
NAMES = {"fedavg": "FedAvg", "fedprox": "FedProx", "moon": "MOON", "supcon": "SupConFL", "triplet": "TripletFL",
         "quadruplet": "QuadrupletFL", "fedquad": "FedQuad"}
METRIC_NAMES = {"final_acc": "test accuracy", "effective_rank": "global effective rank (entropy of σ²)",
                "local_effective_rank": "local effective rank (entropy of σ²)", "local_cka": "local-vs-global CKA",
                "intra_l2": "intra-class distance (L2-normalised)", "inter_l2": "inter-class distance (L2-normalised)",
                "ratio": "intra / inter ratio"}


@dataclass(frozen=True)
class Claim:
    """One checkable claim: ``a`` against ``b`` (coords; the special values below are resolved
    on the study's axes) on ``metric``, expected ``above`` / ``below`` / ``not below``; ``lowest``
    compares method ``a`` against every other method of the study; ``matched``: at matched accuracy.

    Special coordinate values: ``"skew"`` the smallest alpha, ``"iid"`` IID (else the largest
    alpha), ``"paper"`` alpha 0.3 when the study has it (the paper's), else the smallest;
    ``"max"`` the axis's largest value (local_epochs: the most local computation)."""
    text: str
    study: str
    metric: str
    a: dict
    b: dict | None
    expect: str
    matched: bool = False
    lowest: bool = False
    fallback: str | None = None  # the study used when ``study`` is not in the store


@dataclass(frozen=True)
class ClaimResult:
    """One row of the claims table: what was compared and measured, the verdict, and its footing
    (the difference with its 95 % CI, raw and Holm-adjusted p, Hedges' g, robustness, the verdicts
    at matched accuracy levels, the study's plateau)."""
    text: str
    study: str
    measure: str
    numbers: str
    verdict: str
    difference: str = "-"
    p: float | None = None
    p_holm: float | None = None
    g: float | None = None
    robustness: str = "-"
    matched: str = "-"
    plateau: str = "-"
    expect: str = ""
    sign: int = 0  # the tested difference's sign (+1 / -1) when it is beyond seed noise, else 0
    checks: tuple[tuple[str, str], ...] = ()  # (check, its verdict): the robustness checks
    climbing: str = ""  # the study's FedAvg still gains over its last rounds: why (robust needs a plateau)


CLAIMS: tuple[Claim, ...] = (
    Claim("Under label skew, local models lose directions (local collapse)", "digits-local", "local_effective_rank",
          {"method": "fedavg", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "iid", "local_epochs": "max"}, "below"),
    Claim("Under label skew, local representations drift from the global one (inconsistent)", "digits-local",
          "local_cka", {"method": "fedavg", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "iid", "local_epochs": "max"}, "below"),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below"),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_cka",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below"),
    Claim("Under label skew, the aggregated global embedding space collapses", "fmnist-skew", "effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below", matched=True),
    Claim("(the same, at the final round, accuracy not matched)", "fmnist-skew", "effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below"),
    Claim("FedQuad mitigates collapse in the local models", "digits-local", "local_effective_rank",
          {"method": "fedquad", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "skew", "local_epochs": "max"}, "above"),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_effective_rank",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above"),
    Claim("FedQuad mitigates collapse in the global model", "fmnist-skew", "effective_rank",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above", matched=True),
    Claim("FedQuad has the lowest intra-class variance of all methods", "fmnist-methods", "intra_l2",
          {"method": "fedquad", "alpha": "paper"}, None, "below", lowest=True),
    Claim("FedQuad keeps inter-class separation (the paper's regime)", "fmnist-paper", "inter_l2",
          {"method": "fedquad"}, {"method": "fedavg"}, "not below"),
    Claim("FedQuad is ahead of FedAvg under skew", "fmnist-skew", "final_acc",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above"),
    Claim("FedQuad is ahead of FedAvg in the paper's regime (many clients, low participation)", "fmnist-paper",
          "final_acc", {"method": "fedquad"}, {"method": "fedavg"}, "above", fallback="fmnist-regime"),
    Claim("FedQuad is ahead of MOON in the paper's regime", "fmnist-paper", "final_acc",
          {"method": "fedquad"}, {"method": "moon"}, "above", fallback="fmnist-regime"),
    Claim("FedQuad is ahead of MOON under skew", "fmnist-methods", "final_acc",
          {"method": "fedquad", "alpha": "paper"}, {"method": "moon", "alpha": "paper"}, "above"),
)
LOW_PARTICIPATION = 0.05
PARTICIPATION_CLAIM = "FedQuad stays ahead of FedAvg at 1-5 % participation per round"
NOT_OFFLINE = ("CIFAR-10, 200 clients, α = 0.3: FedQuad 80.13 %, FedAvg 74.05 %, MOON 49.69 %",
               "CIFAR-100, 200 clients, α = 0.3: FedQuad 26.90 %, MOON 13.06 %",
               "Tiny-ImageNet, 10 clients, α = 0.3: FedQuad 35.06 %")


# ---- the verdicts -------------------------------------------------------------------------------
def direction_verdict(sign: int, expect: str) -> str:
    """The verdict for a difference of sign ``sign`` (+1 a above b, -1 below, 0 not shown) on a
    claim that ``a`` is ``expect`` of ``b``."""
    if sign == 0:
        return INCONCLUSIVE
    if expect == "not below":
        return SUPPORTED if sign > 0 else NOT_SUPPORTED
    return SUPPORTED if sign == {"above": 1, "below": -1}[expect] else NOT_SUPPORTED


def claim_verdict(v: Verdict, expect: str, p: float | None = None) -> str:
    """The verdict of one comparison (``a`` vs ``b``) for a claim that ``a`` is ``expect`` of
    ``b``: by its own 95 % interval, or by ``p`` (a Holm-adjusted p-value) when given."""
    if v.state == NO_DATA:
        return NOT_RUN
    if v.state == ONE_SEED:
        return ONE
    shown = v.separated if p is None else p < 1 - LEVEL
    return direction_verdict((1 if v.mean_a > v.mean_b else -1) if shown else 0, expect)


def _judge(expect: str) -> Callable[[Verdict], str]:
    return lambda v: claim_verdict(v, expect)


def band_verdict(v: Verdict, expect: str, k: float = 2.0) -> str:
    """The verdict the ± k std bands give (a robustness check, not the decision)."""
    if v.state in (NO_DATA, ONE_SEED):
        return claim_verdict(v, expect)
    apart = bands_separated(v.mean_a, v.std_a or 0.0, v.mean_b, v.std_b or 0.0, k)
    return direction_verdict((1 if v.mean_a > v.mean_b else -1) if apart else 0, expect)


def lowest_verdict(verdicts: list[Verdict]) -> str:
    """``a`` is the lowest of all: below every other beyond seed noise (``verdicts``: a vs each other)."""
    usable = [v for v in verdicts if v.state != NO_DATA]
    if not usable:
        return NOT_RUN
    if any(v.state == ONE_SEED for v in usable):
        return ONE
    if any(v.direction > 0 for v in usable):
        return NOT_SUPPORTED
    return SUPPORTED if all(v.direction < 0 for v in usable) else INCONCLUSIVE


# ---- reading the numbers ------------------------------------------------------------------------
def _alphas(study) -> list:
    return list((study.get("axes") or {}).get("alpha") or [])


def resolve(study: dict[str, Any], coords: dict) -> dict:
    """``coords`` with the special values (see ``Claim``) replaced by the study's axis values; an
    axis the study does not sweep is left out (every run shares its base value)."""
    axes, out = study.get("axes") or {}, {}
    for key, value in coords.items():
        values = axes.get(key)
        if not values:
            continue
        numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if value == "skew":
            value = min(numbers) if numbers else None
        elif value == "iid":
            value = None if None in values else (max(numbers) if numbers else None)
        elif value == "paper":
            value = next((v for v in numbers if math.isclose(v, 0.3)), min(numbers) if numbers else None)
        elif value == "max":
            value = max(numbers) if numbers else values[-1]
        out[key] = value
    return out


def _same(a, b) -> bool:
    return repr(a) == repr(b)


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


class _Runs:
    """The finished points of one study, their metrics rows read once."""

    def __init__(self, runs: RunStore, study: dict):
        self.runs, self.study, self._rows = runs, study, {}

    def points(self, coords: dict) -> list[dict]:
        out = []
        for p in self.study.get("points", []):
            if not p.get("run_id") or not all(_same(p["coords"].get(k), v) for k, v in coords.items()):
                continue
            if self.rows(p["run_id"]):
                out.append(p)
        return out

    def left_out(self, coords: dict) -> list[str]:
        """The points matching ``coords`` whose run did not finish, named with the reason
        ("seed 1 diverged in round 50"): a verdict names the runs it could not use."""
        out = []
        for p in self.study.get("points", []):
            if not all(_same(p["coords"].get(k), v) for k, v in coords.items()) or self.rows(p["run_id"] or ""):
                continue
            who = _label({k: v for k, v in p["coords"].items() if k not in coords or k == "method"})
            try:
                status = self.runs.read_status(p["run_id"]) if p.get("run_id") else {}
            except (RunNotFound, StoreError):
                status = {}
            if status.get("diverged_round") is not None:
                out.append(f"{who} diverged in round {status['diverged_round']}")
            else:
                out.append(f"{who} {status.get('state') or 'not run'}")
        return out

    def rows(self, run_id: str) -> list[dict]:
        if run_id not in self._rows:
            try:
                ok = self.runs.read_status(run_id).get("state") == "finished"
                self._rows[run_id] = self.runs.read_metrics(run_id) if ok else []
            except (RunNotFound, StoreError):
                self._rows[run_id] = []
        return self._rows[run_id]


def run_value(rows: list[dict], metric: str, how: str = "last-k") -> float | None:
    """One run's value of ``metric``: ``final`` (its last value) or ``last-k`` (the mean of its
    last ``LAST_ROUNDS`` accuracies, or of its last ``LAST_SNAPSHOTS`` snapshot values)."""
    key = "test_accuracy" if metric == "final_acc" else metric
    vals = [float(r[key]) for r in rows if _num(r.get(key))]
    if not vals:
        return None
    if how == "final":
        return vals[-1]
    k = LAST_ROUNDS if metric == "final_acc" else LAST_SNAPSHOTS
    tail = vals[-k:]
    return math.fsum(tail) / len(tail)


def point_values(runs: RunStore, study: dict, coords: dict, metric: str, how: str = "final",
                 _cache: _Runs | None = None) -> list[float]:
    """The metric's value (``run_value``) of each finished point matching ``coords`` (one per seed)."""
    r = _cache or _Runs(runs, study)
    out = [run_value(r.rows(p["run_id"]), metric, how) for p in r.points(coords)]
    return [v for v in out if v is not None]


def matched_values(runs: RunStore, study: dict, a: dict, b: dict, metric: str) -> tuple[list, list, float | None]:
    """Per-seed ``metric`` of groups ``a`` and ``b`` at the middle matched accuracy level, and that
    level (None when the runs share no accuracy range)."""
    m = matched_comparison(_Runs(runs, study), a, b, metric, label=_label)
    if not m.levels:
        return [], [], None
    mid = len(m.levels) // 2
    r = _Runs(runs, study)
    pick = lambda c: [v for v in (first_crossing(*_curve(r.rows(p["run_id"]), metric), m.levels[mid])  # noqa: E731
                                  for p in r.points(c)) if v is not None]
    return pick(a), pick(b), m.levels[mid]


def study_plateau(r: _Runs) -> tuple[bool | None, str]:
    """Whether FedAvg at the study's strongest skew (its base alpha when alpha is not swept) has
    reached a plateau: its accuracy gains under ``PLATEAU_GAIN`` over its last ``PLATEAU_WINDOW``
    rounds (``stats.plateau_gain``, the mean over seeds). (None, why) when it cannot be told."""
    axes = r.study.get("axes") or {}
    methods = axes.get("method") or []
    method = "fedavg" if "fedavg" in methods or not methods else methods[0]
    coords = resolve(r.study, {"method": method, "alpha": "skew"})
    extra = {k: max(v) for k, v in axes.items() if k == "local_epochs" and v}
    gains = [plateau_gain([float(x["test_accuracy"]) for x in r.rows(p["run_id"]) if _num(x.get("test_accuracy"))],
                          PLATEAU_WINDOW) for p in r.points({**coords, **extra})]
    gains = [g for g in gains if g is not None]
    who = _label({"method": method, **coords, **extra})
    if not gains:
        return None, f"{who}: runs too short to tell"
    gain = math.fsum(gains) / len(gains)
    ok = gain < PLATEAU_GAIN
    return ok, (f"{who} gains {gain * 100:+.1f} points over its last {PLATEAU_WINDOW} rounds "
                f"(mean of {_seeds(len(gains))}): {'plateau reached' if ok else 'still climbing'}")


def _label(coords: dict) -> str:
    parts = []
    for k, v in coords.items():
        if k == "method":
            parts.append(NAMES.get(v, str(v)))
        elif k == "alpha":
            parts.append(alpha_text(v, "label"))
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)


def _fmt(metric: str) -> tuple[str, float, str]:
    return (".1f", 100.0, " %") if metric == "final_acc" else (".2f", 1.0, "")


def _numbers(v: Verdict, metric: str, a: str, b: str) -> str:
    empty = [name for name, n in ((a, v.n_a), (b, v.n_b)) if not n]
    if empty:
        return "no finished runs with this metric for " + " and ".join(empty)
    spec, scale, unit = _fmt(metric)
    ta, tb = v.text(spec, scale)
    return f"{a}: {ta}{unit} ({_seeds(v.n_a)}) vs {b}: {tb}{unit} ({_seeds(v.n_b)})"


def _left_out(r: _Runs, groups: list[dict]) -> str:
    """"; left out, not finished: MOON, seed 1 diverged in round 50", or "" when every run of
    ``groups`` finished."""
    gone = [x for g in groups for x in r.left_out(g)]
    return "; left out, not finished: " + ", ".join(gone) if gone else ""


def _how(metric: str) -> str:
    return (f"mean of the last {LAST_ROUNDS} rounds" if metric == "final_acc"
            else f"mean of the last {LAST_SNAPSHOTS} snapshots")


def _difference(v: Verdict, metric: str) -> str:
    if v.test is None:
        return "-"
    spec, scale, unit = _fmt(metric)
    return v.test.text(spec, scale, unit)


def _empty(claim: Claim, study: str, numbers: str) -> ClaimResult:
    return ClaimResult(claim.text, study, METRIC_NAMES.get(claim.metric, claim.metric), numbers, NOT_RUN,
                       expect=claim.expect)


def check_claim(claim: Claim, studies: StudyStore) -> ClaimResult:
    """One claim, with its raw p-value (``p_holm`` and the final verdict come from ``check_claims``,
    which corrects across the family; alone, the verdict uses the row's own 95 % interval)."""
    name = claim.study if studies.exists(claim.study) or not claim.fallback else claim.fallback
    if not studies.exists(name):
        return _empty(claim, name, f"study '{name}' is not in this store")
    try:
        study = studies.read(name)
    except StoreError as e:
        return _empty(claim, name, f"damaged, left out: {e}")
    r, a = _Runs(studies.runs, study), resolve(study, claim.a)
    what = METRIC_NAMES.get(claim.metric, claim.metric)
    reached, plateau = study_plateau(r)
    climbing = _climbing(plateau) if reached is False else ""
    if claim.lowest:
        others = [m for m in (study.get("axes") or {}).get("method", []) if m != a.get("method")]
        mine = point_values(r.runs, study, a, claim.metric, "last-k", r)
        verdicts = {m: compare(mine, point_values(r.runs, study, {**a, "method": m}, claim.metric, "last-k", r))
                    for m in others}
        usable = {m: v for m, v in verdicts.items() if v.n_b}
        if not usable or not mine:
            return _empty(claim, name, "no finished runs to compare")
        verdict = lowest_verdict(list(usable.values()))
        where = _label({k: v for k, v in a.items() if k != "method"})
        tests = [v.test for v in usable.values() if v.test is not None]
        if verdict == NOT_SUPPORTED:  # one other method below it beyond noise refutes the claim: its test
            low = min((m for m in usable if usable[m].direction > 0 and usable[m].test is not None),
                      key=lambda m: usable[m].test.p)
            p, who = usable[low].test.p, "a method below it"
        else:  # every comparison must hold: the weakest one's p
            low = min(usable, key=lambda m: usable[m].mean_b)
            p, who = (max(t.p for t in tests) if len(tests) == len(usable) else None), "lowest other"
        numbers = _numbers(usable[low], claim.metric, NAMES.get(a["method"], a["method"]),
                           f"{who}, {NAMES.get(low, low)}") + _left_out(r, [a] + [{**a, "method": m} for m in others])
        return ClaimResult(claim.text, name, f"{what} ({_how(claim.metric)}), {where}, against {len(usable)} other "
                           f"method{'s' if len(usable) != 1 else ''}", numbers, verdict,
                           _difference(usable[low], claim.metric), p, None, usable[low].test.g if usable[low].test else None,
                           plateau=plateau, expect=claim.expect,
                           sign={SUPPORTED: -1, NOT_SUPPORTED: 1}.get(verdict, 0),
                           checks=(("± 2 std bands", _lowest_bands(list(usable.values()))),), climbing=climbing)
    b = resolve(study, claim.b or {})
    geometry = claim.metric in GEOMETRY
    matched = matched_comparison(r, a, b, claim.metric, label=_label) if geometry else None
    final = compare(point_values(r.runs, study, a, claim.metric, "final", r),
                    point_values(r.runs, study, b, claim.metric, "final", r))
    if claim.matched:
        if not matched.levels:
            return ClaimResult(claim.text, name, f"{what}, at matched accuracy", matched.text(_judge(claim.expect)), NOT_RUN,
                               plateau=plateau, expect=claim.expect)
        mid = matched.verdicts[len(matched.levels) // 2]
        tests = [v.test for v in matched.verdicts]
        signs = {(1 if v.mean_a > v.mean_b else -1) for v in matched.verdicts if v.test is not None}
        p = max(t.p for t in tests) if all(t is not None for t in tests) and len(signs) == 1 else None
        verdict = matched.combined(_judge(claim.expect))
        levels = ", ".join(f"{x:.1%}" for x in matched.levels)
        v = mid
        measure = (f"{what}, at matched accuracy ({levels}: each run's snapshot curve interpolated; "
                   f"numbers at {matched.levels[len(matched.levels) // 2]:.1%}, p the largest of the levels')")
        bands = {band_verdict(x, claim.expect) for x in matched.verdicts}
        return ClaimResult(claim.text, name, measure, _numbers(v, claim.metric, _label(a), _label(b)) + _left_out(r, [a, b]), verdict,
                           _difference(v, claim.metric), p, None, v.test.g if v.test else None, "-",
                           matched.text(_judge(claim.expect)), plateau, claim.expect,
                           sign=(signs.pop() if len(signs) == 1 and verdict in (SUPPORTED, NOT_SUPPORTED) else 0),
                           checks=(("± 2 std bands at every level", bands.pop() if len(bands) == 1 else "mixed"),),
                           climbing=climbing)
    v = compare(point_values(r.runs, study, a, claim.metric, "last-k", r),
                point_values(r.runs, study, b, claim.metric, "last-k", r))
    verdict = claim_verdict(v, claim.expect)
    return ClaimResult(claim.text, name, f"{what} ({_how(claim.metric)})",
                       _numbers(v, claim.metric, _label(a), _label(b)) + _left_out(r, [a, b]), verdict, _difference(v, claim.metric), v.test.p if v.test else None, None,
                       v.test.g if v.test else None, "-",
                       matched.text(_judge(claim.expect)) if matched is not None else "-", plateau, claim.expect,
                       sign=v.direction, checks=(("± 2 std bands", band_verdict(v, claim.expect)),
                                                 ("the final round alone", claim_verdict(final, claim.expect))),
                       climbing=climbing)


def _climbing(plateau: str) -> str:
    """'its study is still climbing (+1.2 points over its last 10 rounds)' from ``study_plateau``'s text."""
    gain = plateau.split(" gains ", 1)[-1].split(" (mean", 1)[0]
    return f"its study is still climbing ({gain})"


def _lowest_bands(verdicts: list[Verdict]) -> str:
    states = [band_verdict(v, "below") for v in verdicts]
    if NOT_SUPPORTED in states:
        return NOT_SUPPORTED
    return SUPPORTED if states and all(x == SUPPORTED for x in states) else INCONCLUSIVE


def _finish(result: ClaimResult, p_holm: float | None) -> ClaimResult:
    """The verdict under Holm's correction (a row stays supported / not supported only when its
    adjusted p is below 0.05; else it becomes inconclusive), and its robustness: ``robust`` when
    the verdict before the correction, the ± 2 std bands and the final round's values (where the
    row has them) all give the same verdict and the study is not still climbing."""
    verdict = result.verdict
    if p_holm is not None and verdict in (SUPPORTED, NOT_SUPPORTED) and p_holm >= 1 - LEVEL:
        verdict = INCONCLUSIVE
    if verdict in (NOT_RUN, ONE) or not result.checks:
        return dataclasses.replace(result, verdict=verdict, p_holm=p_holm)
    checks = ((("the test before Holm's correction", result.verdict),) if p_holm is not None else ()) + result.checks
    odd = [f"{name} give{'s' if name.startswith('the') else ''} {v}" for name, v in checks if v != verdict]
    odd += [result.climbing] if result.climbing else []
    robustness = ROBUST if not odd else "not robust: " + "; ".join(odd)
    return dataclasses.replace(result, verdict=verdict, p_holm=p_holm, robustness=robustness,
                               sign=result.sign if verdict in (SUPPORTED, NOT_SUPPORTED) else 0)


def _low_participation(studies: StudyStore) -> list[tuple[float, str]]:
    """(participation, name) of the studies with a participation of at most 5 % (in the base or
    on an axis) that compare FedQuad and FedAvg, lowest participation first."""
    out = []
    for name in studies.names():
        try:
            s = studies.read(name)
        except StoreError:
            continue
        values = [(s.get("base") or {}).get("participation"), *((s.get("axes") or {}).get("participation") or [])]
        low = [v for v in values if isinstance(v, (int, float)) and v <= LOW_PARTICIPATION]
        if low:
            out.append((min(low), name))
    return sorted(out)


def check_claims(root: str | os.PathLike) -> list[ClaimResult]:
    """Every claim, checked against the studies of ``root``, in the order of ``CLAIMS``, then the
    participation claim and the settings this project cannot run offline; verdicts corrected
    across every tested row (Holm)."""
    studies = StudyStore(Path(root))
    out = [check_claim(c, studies) for c in CLAIMS]
    low = _low_participation(studies)
    if low:
        ptc, name = low[0]
        s = studies.read(name)
        on_axis = ptc in ((s.get("axes") or {}).get("participation") or [])
        c = Claim(PARTICIPATION_CLAIM, name, "final_acc", {"method": "fedquad", **({"participation": ptc} if on_axis else {})},
                  {"method": "fedavg", **({"participation": ptc} if on_axis else {})}, "above")
        out.append(check_claim(c, studies))
    else:
        out.append(ClaimResult(PARTICIPATION_CLAIM, "-", "test accuracy",
                               "no study in this store has a participation of 5 % or less", NOT_RUN))
    out += [ClaimResult(f"Paper's result: {t}", "-", "test accuracy", "no such data offline", NOT_RUN)
            for t in NOT_OFFLINE]
    adjusted = holm([r.p for r in out])
    return [_finish(r, p) for r, p in zip(out, adjusted)]


def tested_rows(results: list[ClaimResult]) -> int:
    return sum(r.p is not None for r in results)


COLUMNS = ("#", "Claim (paper)", "Study here", "Measure", "Measured (mean ± std over seeds)",
           "Difference (95 % CI)", "p (Holm)", "Verdict", "Robustness", "At matched accuracy")


def claim_cells(i: int, r: ClaimResult) -> list[str]:
    """One row of the table as text cells, in the order of ``COLUMNS``."""
    p = "-" if r.p is None else f"{_p(r.p)} ({_p(r.p_holm)})" if r.p_holm is not None else _p(r.p)
    return [str(i), r.text, f"`{r.study}`" if r.study != "-" else "-", r.measure, r.numbers, r.difference, p,
            f"**{r.verdict}**", r.robustness, r.matched]


def claims_markdown(results: list[ClaimResult]) -> str:
    """The claims as a markdown table (``fedquad study claims``), then how the verdicts were made
    and each study's plateau."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for i, r in enumerate(results, start=1):
        lines.append("| " + " | ".join(c.replace("|", "/") for c in claim_cells(i, r)) + " |")
    lines += ["", f"Verdicts: Welch's test of the difference of the means, Holm-corrected across the "
              f"{tested_rows(results)} tested rows (p raw, then adjusted); supported / not supported only "
              f"when the adjusted p is below {1 - LEVEL:.2f}, else inconclusive. Each run's value is the mean of "
              f"its last {LAST_ROUNDS} rounds (accuracy) or last {LAST_SNAPSHOTS} snapshots (geometry). "
              f"Robust: the ± 2 std bands and the final round's values give the same verdict, and the study's "
              f"FedAvg at its strongest skew has reached a plateau (under {PLATEAU_GAIN * 100:g} point gained over "
              f"its last {PLATEAU_WINDOW} rounds)."]
    seen = []
    for r in results:
        if r.study != "-" and r.plateau != "-" and r.study not in seen:
            seen.append(r.study)
            lines.append(f"- `{r.study}`: {r.plateau}.")
    return "\n".join(lines)


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return "< 0.001" if p < 0.001 else f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def _seeds(n: int) -> str:
    return f"{n} seed" + ("" if n == 1 else "s")
