"""The seed paper's claims (Göksu & Pugeault 2025), checked one by one against the studies of a
run-store root (the recorded ones: ``scripts/record_studies.py``).

Each claim names the study that tests it here, the two groups of runs it compares (or, for "the
lowest of all methods", FedQuad against each other method), and the direction the paper states.
Each run contributes one value: the mean of its last ``LAST_ROUNDS`` rounds (accuracy) or last
``LAST_SNAPSHOTS`` snapshots (geometry), so a run's round-to-round swing is not read as an effect.
Two groups with the same seeds are compared seed by seed (a paired t-test), others by Welch's
test (``table.compare``); every measure has a smallest effect of interest δ (``effects``), and
the verdict (``verdicts``) is supported / not supported / negligible / inconclusive, decided with
Holm's correction across every tested row of the table (one family for the difference tests,
one for the equivalence tests), every tested row keeping its p:

- a row comparing FedQuad with several methods ("the lowest of all") adjusts within the row first
  (Holm over its comparisons) when one other method refutes it, and takes the largest p (every
  comparison must hold) when it is supported;
- a row at matched accuracy takes the largest p of its levels, and shows the numbers and the
  interval of that level (the interval and the p on a row come from one comparison); levels that
  disagree in direction make it inconclusive.

Beside it: the robustness of the verdict (the same before Holm's correction, under ± 2 std bands,
on the final round's values instead of the last-k mean and, for a geometry row, at matched
accuracy; "robust" only when all agree and the study's FedAvg has reached a plateau, ``plateau``),
the verdict at several matched accuracy levels for geometry rows, and the study's plateau.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..runs.store import RunStore, StoreError
from .claim_runs import LAST_ROUNDS, LAST_SNAPSHOTS, NAMES, StudyRuns, _num, label as _label, point_values, resolve, run_value, seed_values  # noqa: F401
from .confirm import _runs, arm_plateau, equal_samples_values
from .claim_finish import BEFORE_HOLM, MATCHED_CHECK, ROBUST, SAMPLES_CHECK, equivalence_p, finish_row, verdict_at_scale  # noqa: F401
from .claim_list import (CLAIMS, LOW_PARTICIPATION, NOT_IN_TABLE, NOT_OFFLINE, PARTICIPATION_CLAIM, Claim,  # noqa: F401
                         low_participation, unused_studies)
from .claims_table import (COLUMNS, ClaimResult, claim_cells, claim_verdicts, claims_markdown, format_p as _p,  # noqa: F401
                           difference_text, how_text, left_out_text, numbers_text, test_text, tested_rows)
from .effects import effect_text, smallest_effect
from ..vocab.metrics import labels as metric_labels
from .matched import MatchedComparison, accuracy_levels, curve as _curve, matched_comparison  # noqa: F401
from .plateau import plateau as plateau_of
from .stats import Difference, first_crossing, holm, tost
from .store import StudyStore
from .table import NO_DATA, ONE_SEED, Verdict, compare
from .verdicts import (INCONCLUSIVE, NEGLIGIBLE, NOT_RUN, NOT_SUPPORTED, ONE, OPPOSITE, SUPPORTED, band_verdict,  # noqa: F401
                       combined, decide, direction_verdict, judge, row_p)

WITHIN_NOISE = INCONCLUSIVE  # the name earlier code used
_Runs = StudyRuns  # the name earlier code used
GEOMETRY = ("effective_rank", "ratio", "ratio_l2", "local_effective_rank", "local_ratio", "local_cka",
            "intra_l2", "inter_l2")
METRIC_NAMES = metric_labels()  # the measures' long names (vocab.metrics)





def claim_verdict(v: Verdict, expect: str) -> str:
    """The verdict of one comparison on its own (no correction for the other rows)."""
    return judge(v, expect)


def _judge(expect: str) -> Callable[[Verdict], str]:
    return lambda v: judge(v, expect)


def lowest_verdict(verdicts: list[Verdict]) -> str:
    """``a`` is the lowest of all (``verdicts``: a vs each other, each on its own test): refuted by
    one other method below it (Holm-adjusted within these comparisons), supported when below
    every other."""
    usable = [v for v in verdicts if v.state != NO_DATA]
    if not usable:
        return NOT_RUN
    if any(v.state == ONE_SEED for v in usable):
        return ONE
    return _lowest(usable)[0]


def _lowest(vs: list[Verdict]) -> tuple[str, int, float, float | None]:
    """(verdict, index of the deciding comparison, its p for the family, its equivalence p): one
    comparison with the other method below ``a`` beyond noise after Holm within the row refutes;
    every comparison below supports (the largest p); a tie with the lowest other is negligible."""
    adjusted = holm([v.test.p for v in vs])
    above = [i for i, v in enumerate(vs) if v.test.diff > 0]
    if above:
        i = min(above, key=lambda k: adjusted[k])
    lowest = min(range(len(vs)), key=lambda k: vs[k].mean_b)
    if above:
        verdict = decide(vs[i].test, vs[i].delta, "below", p=adjusted[i])
        if verdict == NOT_SUPPORTED:
            return verdict, i, adjusted[i], vs[lowest].tost_p
    if above:
        return decide(vs[i].test, vs[i].delta, "below", p=adjusted[i], p_eq=vs[lowest].tost_p), i, adjusted[i], \
            vs[lowest].tost_p
    i = max(range(len(vs)), key=lambda k: vs[k].test.p)
    states = {decide(v.test, v.delta, "below") for v in vs}
    verdict = SUPPORTED if states == {SUPPORTED} else decide(vs[lowest].test, vs[lowest].delta, "below",
                                                              p=vs[i].test.p, p_eq=vs[lowest].tost_p)
    return (INCONCLUSIVE if verdict == SUPPORTED and states != {SUPPORTED} else verdict), i, vs[i].test.p, \
        vs[lowest].tost_p


def study_plateau(r: StudyRuns) -> tuple[bool | None, str]:
    """Whether FedAvg at the study's strongest skew (its base alpha when alpha is not swept; the
    most local epochs) has reached a plateau (``plateau``: the pooled slope of its last rounds'
    accuracy inside a band around 0). (None, why) when it cannot be told."""
    axes = r.study.get("axes") or {}
    methods = axes.get("method") or []
    method = "fedavg" if "fedavg" in methods or not methods else methods[0]
    coords = resolve(r.study, {"method": method, "alpha": "skew"})
    extra = {k: max(v) for k, v in axes.items() if k == "local_epochs" and v}
    curves = [[float(x["test_accuracy"]) for x in r.rows(p["run_id"]) if _num(x.get("test_accuracy"))]
              for p in r.points({**coords, **extra})]
    who = _label({"method": method, **coords, **extra})
    found = plateau_of(curves)
    if found is None:
        return None, f"{who}: runs too short to tell"
    return found.reached, f"{who}: {found.text()}"


def _changing(r: StudyRuns) -> str:
    """'its study is still changing (slope ...)' when the study's FedAvg is not at its plateau, else ''."""
    reached, _ = study_plateau(r)
    if reached is not False:
        return ""
    axes = r.study.get("axes") or {}
    methods = axes.get("method") or []
    coords = resolve(r.study, {"method": "fedavg" if "fedavg" in methods or not methods else methods[0], "alpha": "skew"})
    extra = {k: max(v) for k, v in axes.items() if k == "local_epochs" and v}
    found = plateau_of([[float(x["test_accuracy"]) for x in r.rows(p["run_id"]) if _num(x.get("test_accuracy"))]
                        for p in r.points({**coords, **extra})])
    return f"its study is still changing ({found.short()})"


def _compare(a: dict, b: dict, metric: str, pair: bool = True) -> Verdict:
    """``a`` against ``b`` (seed -> value), with the measure's δ (relative measures: of b's mean);
    ``pair`` False: Welch's test even on the same seeds (the groups do not share a partition)."""
    vals = [x for x in b.values() if _num(x)]
    delta = smallest_effect(metric, math.fsum(vals) / len(vals) if vals else None)
    return compare(a, b, delta) if pair else compare(list(a.values()), list(b.values()), delta)


def pairable(a: dict, b: dict) -> bool:
    """Whether two groups' runs share their partitions seed by seed (the same alpha: only the
    method or the local epochs differ), the one case a paired test is registered for; at
    different alphas the runs share seed, data and initialisation but not the partition."""
    return a.get("alpha", "-") == b.get("alpha", "-")


def _against(tests: list, expect: str) -> bool:
    """Whether a check's estimate (one per matched level, or the equal-samples one) goes the
    other way than the claim."""
    want = {"above": 1, "below": -1, "not below": 1}[expect]
    return any(t is not None and t.diff * want < 0 for t in tests)


def _equal_samples(r: StudyRuns, a: dict, b: dict, metric: str, pair: bool) -> tuple[Verdict, list[str]]:
    """``a`` at ``b``'s samples seen (``confirm.equal_samples_values``): its verdict and the runs left out."""
    a_vals, b_vals, left = equal_samples_values(r, a, b, metric, pair)
    return _compare(a_vals, b_vals, metric, pair), left


def _arms_plateau(r: StudyRuns, groups: list[dict], metric: str, delta: float | None) -> str:
    """"" when every arm is at a plateau on the row's own measure (slope of the last 20 rounds
    pooled over seeds inside ±δ per 10 rounds), else what is still changing."""
    out = []
    for g in groups:
        reached, text = arm_plateau(_runs(r, g), metric, delta or 0.0)
        if reached is not True:
            out.append(f"{_label(g)}: {text}")
    return "still changing on its own measure (" + "; ".join(out) + ")" if out else ""


def _empty(claim: Claim, study: str, numbers: str) -> ClaimResult:
    return ClaimResult(claim.text, study, METRIC_NAMES.get(claim.metric, claim.metric), numbers, NOT_RUN,
                       expect=claim.expect)


def _row(claim: Claim, name: str, measure: str, numbers: str, v: Verdict, verdict: str, p: float | None,
         p_eq: float | None, a: dict, b: dict | None, **kw) -> ClaimResult:
    """A tested row from its deciding comparison ``v``: the interval, g and test printed are ``v``'s;
    its ``key`` names the study, the measure and the two groups' resolved coords."""
    return ClaimResult(claim.text, name, measure, numbers, verdict, difference_text(v, claim.metric), p, None,
                       v.test.g if v.test else None, expect=claim.expect, test=test_text(v, claim.expect),
                       delta=effect_text(claim.metric, v.delta), p_eq=p_eq, diff=v.test, delta_value=v.delta,
                       key=row_key(name, claim.metric, a, b), matched_row=claim.matched, **kw)


def row_key(study: str, metric: str, a: dict, b: dict | None) -> tuple:
    """What identifies a row's comparison: the study, the measure and the groups' coords (sorted)."""
    return (study, metric, tuple(sorted((k, repr(v)) for k, v in a.items())),
            tuple(sorted((k, repr(v)) for k, v in (b or {}).items())))


def check_claim(claim: Claim, studies: StudyStore) -> ClaimResult:
    """One claim, with its raw p-values (``p_holm`` and the final verdict come from
    ``check_claims``, which corrects across the family; alone, the verdict uses the row's own p)."""
    name, study = _claim_study(claim, studies)
    if isinstance(study, ClaimResult):  # not in the store, or damaged: the row says so
        return study
    r, a = StudyRuns(studies.runs, study), resolve(study, claim.a)
    what = METRIC_NAMES.get(claim.metric, claim.metric)
    plateau, changing = study_plateau(r)[1], _changing(r)
    if claim.lowest:
        return _check_lowest(claim, name, r, a, what, plateau, changing)
    b = resolve(study, claim.b or {})
    pair = pairable(a, b)
    matched = (matched_comparison(r, a, b, claim.metric, label=_label, paired=pair)  # a geometry row, or one at
               if claim.metric in GEOMETRY or claim.matched else None)                # matched accuracy itself
    if claim.matched:
        return _check_matched(claim, name, r, a, b, what, matched, plateau, changing)
    v = _compare(seed_values(r, a, claim.metric), seed_values(r, b, claim.metric), claim.metric, pair)
    final = _compare(seed_values(r, a, claim.metric, "final"), seed_values(r, b, claim.metric, "final"),
                     claim.metric, pair)
    verdict = judge(v, claim.expect)
    checks = (("± 2 std bands", band_verdict(v, claim.expect)), ("the final round alone", judge(final, claim.expect)))
    more, against, samples = _other_comparisons(claim, r, a, b, pair, verdict, matched)
    own = _arms_plateau(r, [a, b], claim.metric, v.delta)
    return _row(claim, name, f"{what} ({how_text(claim.metric)})",
                numbers_text(v, claim.metric, _label(a), _label(b)) + left_out_text(r, [a, b]), v, verdict,
                row_p(v, claim.expect), v.tost_p if claim.expect != "not below" else None, a, b,
                matched=matched.text(_judge(claim.expect)) if matched is not None else "-", plateau=plateau,
                sign=v.direction, checks=checks + more, changing=own, against=against,
                samples=samples)


def _claim_study(claim: Claim, studies: StudyStore) -> tuple[str, dict | ClaimResult]:
    """(the study the claim is checked on: its own, else its fallback when its own is absent;
    the study, or the row saying it is not in the store or is damaged)."""
    name = claim.study if studies.exists(claim.study) or not claim.fallback else claim.fallback
    if not studies.exists(name):
        return name, _empty(claim, name, f"study '{name}' is not in this store")
    try:
        return name, studies.read(name)
    except StoreError as e:
        return name, _empty(claim, name, f"damaged, left out: {e}")


def _other_comparisons(claim: Claim, r: StudyRuns, a: dict, b: dict, pair: bool, verdict: str,
                       matched) -> tuple[tuple, tuple[str, ...], str]:
    """(the robustness checks at matched accuracy and at equal samples seen, the ones whose
    estimate goes against the claim, the equal-samples cell): a geometry row is compared at
    matched accuracy (less trained is not collapsed), an accuracy row at equal samples (more
    samples seen is not a better method)."""
    checks, against, samples = (), [], "-"
    if matched is not None and matched.levels:
        checks += ((MATCHED_CHECK, _matched_check(matched, claim.expect, verdict)),)
        # against it: an estimate the other way at some level, or none that matters at any
        # (negligible at every level: the gap at the last rounds is one of training, not collapse)
        if _against([x.test for x in matched.verdicts], claim.expect) or \
                matched.combined(_judge(claim.expect)) == NEGLIGIBLE:
            against.append(MATCHED_CHECK)
    if claim.metric == "final_acc":
        es, left = _equal_samples(r, a, b, claim.metric, pair)
        if es.n_a and es.n_b:  # runs without samples_total (none recorded here) have no such check
            checks += ((SAMPLES_CHECK, judge(es, claim.expect)),)
        samples = _samples_text(es, left)
        if _against([es.test], claim.expect):
            against.append(SAMPLES_CHECK)
    return checks, tuple(against), samples


def _check_lowest(claim: Claim, name: str, r: StudyRuns, a: dict, what: str, plateau: str, changing: str):
    others = [m for m in (r.study.get("axes") or {}).get("method", []) if m != a.get("method")]
    mine = seed_values(r, a, claim.metric)
    verdicts = {m: _compare(mine, seed_values(r, {**a, "method": m}, claim.metric), claim.metric) for m in others}
    usable = {m: v for m, v in verdicts.items() if v.n_b}
    if not usable or not mine:
        return _empty(claim, name, "no finished runs to compare")
    where = _label({k: v for k, v in a.items() if k != "method"})
    measure = (f"{what} ({how_text(claim.metric)}), {where}, against {len(usable)} other "
               f"method{'s' if len(usable) != 1 else ''}")
    left = left_out_text(r, [a] + [{**a, "method": m} for m in others])
    if any(v.test is None for v in usable.values()):
        state = ONE if any(v.state == ONE_SEED for v in usable.values()) else NOT_RUN
        return ClaimResult(claim.text, name, measure, "a group has a single seed" + left, state, expect=claim.expect)
    methods = list(usable)
    verdict, i, p, p_eq = _lowest([usable[m] for m in methods])
    low, v = methods[i], usable[methods[i]]
    who = "a method below it" if v.test.diff > 0 else "lowest other" if v.mean_b == min(
        x.mean_b for x in usable.values()) else "weakest comparison"
    numbers = numbers_text(v, claim.metric, NAMES.get(a["method"], a["method"]), f"{who}, {NAMES.get(low, low)}") + left
    within = " (Holm within the row)" if v.test.diff > 0 and len(usable) > 1 else ""
    own = _arms_plateau(r, [a, {**a, "method": low}], claim.metric, v.delta)
    return _row(claim, name, measure + within, numbers, v, verdict, p, p_eq, a, None, plateau=plateau, lowest=True,
                sign={SUPPORTED: -1, NOT_SUPPORTED: 1}.get(verdict, 0),
                checks=(("± 2 std bands", _lowest_bands(list(usable.values()))),), changing=own)


def _check_matched(claim: Claim, name: str, r: StudyRuns, a: dict, b: dict, what: str, matched, plateau: str,
                   changing: str):
    if not matched.levels:
        return ClaimResult(claim.text, name, f"{what}, at matched accuracy", matched.text(_judge(claim.expect)),
                           NOT_RUN, plateau=plateau, expect=claim.expect)
    tests = [v.test for v in matched.verdicts]
    if any(t is None for t in tests):
        return ClaimResult(claim.text, name, f"{what}, at matched accuracy", matched.text(_judge(claim.expect)),
                           ONE, plateau=plateau, expect=claim.expect)
    i = max(range(len(tests)), key=lambda k: tests[k].p)  # every level must hold: the largest p decides
    v = matched.verdicts[i]
    signs = {(1 if t.diff > 0 else -1) for t in tests}
    eqs = [x.tost_p for x in matched.verdicts]
    p_eq = max(eqs) if all(e is not None for e in eqs) else None
    verdict = combined(matched.states(_judge(claim.expect)))
    levels = ", ".join(f"{x:.1%}" for x in matched.levels)
    measure = (f"{what}, at matched accuracy ({levels}: each run's snapshot curve interpolated; the row's numbers, "
               f"interval and p are those of the level with the largest p, {matched.levels[i]:.1%})")
    bands = {band_verdict(x, claim.expect) for x in matched.verdicts}
    return _row(claim, name, measure, numbers_text(v, claim.metric, _label(a), _label(b)) + left_out_text(r, [a, b]), v,
                verdict, tests[i].p, p_eq, a, b, matched=matched.text(_judge(claim.expect)), plateau=plateau,
                sign=(next(iter(signs)) if len(signs) == 1 and verdict in (SUPPORTED, NOT_SUPPORTED) else 0),
                checks=(("± 2 std bands at every level", next(iter(bands)) if len(bands) == 1 else "mixed"),),
                changing=_arms_plateau(r, [a, b], claim.metric, v.delta), agree=len(signs) == 1)


def _samples_text(v: Verdict, left: list[str]) -> str:
    """The equal-samples comparison in one cell: numbers, difference, p and its own verdict."""
    if v.test is None:
        return "no finished pair of runs to compare" if not v.n_a else "one seed: no test possible"
    ta, tb = v.text(".1f", 100.0)
    out = (f"{ta} % vs {tb} %: {v.test.text('.1f', 100.0, ' %')}, p {_p(v.test.p)}"
           f" ({v.test.test_name if v.test.paired else 'Welch'})")
    return out + (f"; left out: {', '.join(left)}" if left else "")


def _lowest_bands(verdicts: list[Verdict]) -> str:
    states = [band_verdict(v, "below") for v in verdicts]
    if NOT_SUPPORTED in states:
        return NOT_SUPPORTED
    return SUPPORTED if states and all(x == SUPPORTED for x in states) else INCONCLUSIVE


def _matched_check(matched, expect: str, verdict: str) -> str:
    """The matched-accuracy levels' common verdict, and how many levels give a direction other
    than ``verdict`` ("inconclusive, not supported at 1 of 3 levels")."""
    states = matched.states(_judge(expect))
    both = combined(states)
    odd = [s for s in (SUPPORTED, NOT_SUPPORTED) if s != verdict and s != both and s in states]
    return ", ".join([both] + [f"{s} at {states.count(s)} of {len(states)} levels" for s in odd])


def _matched_twin(results: list[ClaimResult], r: ClaimResult) -> int | None:
    """The row (1-based) that tests ``r``'s comparison at matched accuracy, if another row does."""
    return next((i for i, x in enumerate(results, start=1) if x is not r and x.matched_row and x.key == r.key), None)


def check_claims(root: str | os.PathLike) -> list[ClaimResult]:
    """Every claim, checked against the studies of ``root``, in the order of ``CLAIMS``, then the
    participation claim and the settings this project cannot run offline; verdicts corrected
    across every tested row (Holm: the difference tests as one family, the equivalence tests as
    another)."""
    studies = StudyStore(Path(root))
    out = [check_claim(c, studies) for c in CLAIMS]
    out = [dataclasses.replace(r, same_as=c.same_as) for r, c in zip(out, CLAIMS)]
    low = low_participation(studies)
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
    adjusted, adjusted_eq = holm([r.p for r in out]), holm([r.p_eq for r in out])
    half, double = holm([equivalence_p(r, 0.5) for r in out]), holm([equivalence_p(r, 2.0) for r in out])
    return [finish_row(r, p, q, _matched_twin(out, r),
                    tuple(x for x in (verdict_at_scale(r, 0.5, p, h), verdict_at_scale(r, 2.0, p, d)) if x))
            for r, p, q, h, d in zip(out, adjusted, adjusted_eq, half, double)]
