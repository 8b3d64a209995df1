"""The seed paper's claims (Göksu & Pugeault 2025), checked one by one against the studies of a
run-store root (the recorded ones: ``scripts/record_studies.py``).

Each claim names the study that tests it here, the two groups of runs it compares (or, for "the
lowest of all methods", FedQuad against each other method), and the direction the paper states.
The measured numbers are mean ± std over seeds; the verdict comes from ``table.compare`` (the
± 1 std seed bands) and nothing else:

- ``supported``: the bands are separated in the paper's direction (for "X is kept": X is not
  below the reference beyond seed noise);
- ``not supported``: separated the other way;
- ``within seed noise``: the bands meet;
- ``one seed: no claim beyond noise``: a group has a single seed;
- ``not run here``: no study in the root tests it (or the datasets are not available offline).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runs.store import RunNotFound, RunStore, StoreError
from .matched import matched_accuracy
from .store import StudyStore
from .table import NO_DATA, NOISE, ONE_SEED, Verdict, compare

SUPPORTED, NOT_SUPPORTED, WITHIN_NOISE, NOT_RUN = "supported", "not supported", "within seed noise", "not run here"
ONE = "one seed: no claim beyond noise"
NAMES = {"fedavg": "FedAvg", "fedprox": "FedProx", "moon": "MOON", "supcon": "SupConFL", "triplet": "TripletFL",
         "quadruplet": "QuadrupletFL", "fedquad": "FedQuad"}
METRIC_NAMES = {"final_acc": "final test accuracy", "effective_rank": "global effective rank",
                "local_effective_rank": "local effective rank", "local_cka": "local-vs-global CKA",
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


@dataclass(frozen=True)
class ClaimResult:
    text: str
    study: str
    measure: str
    numbers: str
    verdict: str


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
    Claim("FedQuad keeps inter-class separation", "fmnist-methods", "inter_l2",
          {"method": "fedquad", "alpha": "paper"}, {"method": "fedavg", "alpha": "paper"}, "not below"),
    Claim("FedQuad is ahead of FedAvg under skew", "fmnist-skew", "final_acc",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above"),
    Claim("FedQuad is ahead of FedAvg in the paper's regime (many clients, low participation)", "fmnist-regime",
          "final_acc", {"method": "fedquad"}, {"method": "fedavg"}, "above"),
    Claim("FedQuad is ahead of MOON in the paper's regime", "fmnist-regime", "final_acc",
          {"method": "fedquad"}, {"method": "moon"}, "above"),
    Claim("FedQuad is ahead of MOON under skew", "fmnist-methods", "final_acc",
          {"method": "fedquad", "alpha": "paper"}, {"method": "moon", "alpha": "paper"}, "above"),
)
LOW_PARTICIPATION = 0.05
PARTICIPATION_CLAIM = "FedQuad stays ahead of FedAvg at 1-5 % participation per round"
NOT_OFFLINE = ("CIFAR-10, 200 clients, α = 0.3: FedQuad 80.13 %, FedAvg 74.05 %, MOON 49.69 %",
               "CIFAR-100, 200 clients, α = 0.3: FedQuad 26.90 %, MOON 13.06 %",
               "Tiny-ImageNet, 10 clients, α = 0.3: FedQuad 35.06 %")


# ---- the verdicts -------------------------------------------------------------------------------
def claim_verdict(v: Verdict, expect: str) -> str:
    """The verdict of one comparison (``a`` vs ``b``) for a claim that ``a`` is ``expect`` of ``b``."""
    if v.state == NO_DATA:
        return NOT_RUN
    if v.state == ONE_SEED:
        return ONE
    if expect == "not below":
        return NOT_SUPPORTED if v.direction < 0 else SUPPORTED
    if v.state == NOISE:
        return WITHIN_NOISE
    return SUPPORTED if v.direction == {"above": 1, "below": -1}[expect] else NOT_SUPPORTED


def lowest_verdict(verdicts: list[Verdict]) -> str:
    """``a`` is the lowest of all: below every other beyond seed noise (``verdicts``: a vs each other)."""
    usable = [v for v in verdicts if v.state != NO_DATA]
    if not usable:
        return NOT_RUN
    if any(v.state == ONE_SEED for v in usable):
        return ONE
    if any(v.direction > 0 for v in usable):
        return NOT_SUPPORTED
    return SUPPORTED if all(v.direction < 0 for v in usable) else WITHIN_NOISE


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


def point_values(runs: RunStore, study: dict, coords: dict, metric: str) -> list[float]:
    """The metric's final value of each finished point matching ``coords`` (one per seed)."""
    key = "test_accuracy" if metric == "final_acc" else metric
    out = []
    for p in study.get("points", []):
        if not p.get("run_id") or not all(_same(p["coords"].get(k), v) for k, v in coords.items()):
            continue
        try:
            if runs.read_status(p["run_id"]).get("state") != "finished":
                continue
            rows = runs.read_metrics(p["run_id"])
        except (RunNotFound, StoreError):
            continue
        vals = [r[key] for r in rows if isinstance(r.get(key), (int, float)) and math.isfinite(r[key])]
        if vals:
            out.append(float(vals[-1]))
    return out


def matched_values(runs: RunStore, study: dict, a: dict, b: dict, metric: str) -> tuple[list, list, float | None]:
    """Per-seed ``metric`` of groups ``a`` and ``b`` at matched accuracy (threshold: the lowest
    final accuracy of the two groups' runs), and the threshold."""
    m = matched_accuracy(runs, study, where=[a, b])
    pick = lambda c: [r[metric] for r in m.rows if r["round"] is not None  # noqa: E731
                      and all(_same(r["coords"].get(k), v) for k, v in c.items()) and r.get(metric) is not None]
    return pick(a), pick(b), m.threshold


def _label(coords: dict) -> str:
    parts = []
    for k, v in coords.items():
        if k == "method":
            parts.append(NAMES.get(v, str(v)))
        elif k == "alpha":
            parts.append("IID" if v is None else f"α={v:g}")
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)


def _numbers(v: Verdict, metric: str, a: str, b: str) -> str:
    empty = [name for name, n in ((a, v.n_a), (b, v.n_b)) if not n]
    if empty:
        return "no finished runs with this metric for " + " and ".join(empty)
    spec, scale = (".1f", 100.0) if metric == "final_acc" else (".2f", 1.0)
    ta, tb = v.text(spec, scale)
    unit = " %" if metric == "final_acc" else ""
    return f"{a}: {ta}{unit} ({_seeds(v.n_a)}) vs {b}: {tb}{unit} ({_seeds(v.n_b)})"


def check_claim(claim: Claim, studies: StudyStore) -> ClaimResult:
    if not studies.exists(claim.study):
        return ClaimResult(claim.text, claim.study, METRIC_NAMES.get(claim.metric, claim.metric),
                           f"study '{claim.study}' is not in this store", NOT_RUN)
    try:
        study = studies.read(claim.study)
    except StoreError as e:
        return ClaimResult(claim.text, claim.study, METRIC_NAMES.get(claim.metric, claim.metric),
                           f"damaged, left out: {e}", NOT_RUN)
    runs, a = studies.runs, resolve(study, claim.a)
    what = METRIC_NAMES.get(claim.metric, claim.metric)
    if claim.lowest:
        others = [m for m in (study.get("axes") or {}).get("method", []) if m != a.get("method")]
        mine = point_values(runs, study, a, claim.metric)
        verdicts = {m: compare(mine, point_values(runs, study, {**a, "method": m}, claim.metric)) for m in others}
        usable = {m: v for m, v in verdicts.items() if v.n_b}
        if not usable or not mine:
            return ClaimResult(claim.text, claim.study, what, "no finished runs to compare", NOT_RUN)
        low = min(usable, key=lambda m: usable[m].mean_b)
        where = _label({k: v for k, v in a.items() if k != "method"})
        numbers = _numbers(usable[low], claim.metric, NAMES.get(a["method"], a["method"]),
                           f"lowest other, {NAMES.get(low, low)}")
        return ClaimResult(claim.text, claim.study, f"{what}, {where}, against {len(usable)} other method{'s' if len(usable) != 1 else ''}",
                           numbers, lowest_verdict(list(usable.values())))
    b = resolve(study, claim.b or {})
    if claim.matched:
        va, vb, threshold = matched_values(runs, study, a, b, claim.metric)
        what += (f", at matched accuracy {threshold:.0%} (each run at the first snapshot reaching it)"
                 if threshold is not None else ", at matched accuracy")
    else:
        va, vb = point_values(runs, study, a, claim.metric), point_values(runs, study, b, claim.metric)
        what += ", final round" if claim.metric != "final_acc" else ""
    v = compare(va, vb)
    return ClaimResult(claim.text, claim.study, what, _numbers(v, claim.metric, _label(a), _label(b)),
                       claim_verdict(v, claim.expect))


def _low_participation(studies: StudyStore) -> list[str]:
    """Names of the studies with a participation of at most 5 % (in the base or on an axis)."""
    out = []
    for name in studies.names():
        try:
            s = studies.read(name)
        except StoreError:
            continue
        values = [(s.get("base") or {}).get("participation"), *((s.get("axes") or {}).get("participation") or [])]
        if any(isinstance(v, (int, float)) and v <= LOW_PARTICIPATION for v in values):
            out.append(name)
    return out


def check_claims(root: str | os.PathLike) -> list[ClaimResult]:
    """Every claim, checked against the studies of ``root``, in the order of ``CLAIMS``, then the
    participation claim and the settings this project cannot run offline."""
    studies = StudyStore(Path(root))
    out = [check_claim(c, studies) for c in CLAIMS]
    low = _low_participation(studies)
    if low:
        s = studies.read(low[0])
        ptc = (s.get("base") or {}).get("participation")
        c = Claim(PARTICIPATION_CLAIM, low[0], "final_acc", {"method": "fedquad", "participation": ptc},
                  {"method": "fedavg", "participation": ptc}, "above")
        out.append(check_claim(c, studies))
    else:
        out.append(ClaimResult(PARTICIPATION_CLAIM, "-", "final test accuracy",
                               "no study in this store has a participation of 5 % or less", NOT_RUN))
    out += [ClaimResult(f"Paper's result: {t}", "-", "final test accuracy", "no such data offline", NOT_RUN)
            for t in NOT_OFFLINE]
    return out


def claims_markdown(results: list[ClaimResult]) -> str:
    """The claims as a markdown table (``fedquad study claims``)."""
    lines = ["| # | Claim (paper) | Study here | Measure | Measured (mean ± std over seeds) | Verdict |",
             "|---|---|---|---|---|---|"]
    for i, r in enumerate(results, start=1):
        cells = [str(i), r.text, f"`{r.study}`" if r.study != "-" else "-", r.measure, r.numbers, f"**{r.verdict}**"]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def _seeds(n: int) -> str:
    return f"{n} seed" + ("" if n == 1 else "s")
