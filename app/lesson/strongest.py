"""Which of FedQuad's effects step 6 teaches, chosen by the numbers: among the lesson's local-model
studies (``data.LOCAL_CANDIDATES``), every comparison of FedQuad against FedAvg at the strongest
skew, one per local-epochs value and per accuracy measure (``MEASURES``: what a student can read
as "better"), is tested as the claims table tests a row (per-run last-k values, paired on shared
seeds, the measure's smallest effect of interest), Holm-corrected over all of them; the strongest
is the largest difference, in points, in FedQuad's favour, beyond noise after the correction and
at least the smallest effect. Its interaction with skew is the difference of the two methods'
per-seed differences at the strongest skew and at IID (a paired test of the per-seed
difference-in-differences). Pure: no streamlit."""
from __future__ import annotations

from dataclasses import dataclass

from fedquad_core.api import Verdict, stats
from app.lesson.data import LOCAL_CANDIDATES, LessonData
from app.lesson.figures import values, versus

MEASURES = ("local_acc_all", "local_acc_own", "final_acc")


@dataclass(frozen=True)
class Strongest:
    """The chosen comparison: ``study``, ``at`` (its local epochs, {} when not swept), ``metric``,
    ``verdict`` (FedQuad vs FedAvg at ``alpha``), ``iid`` (the same at ``alpha_iid``), ``did``
    (the difference-in-differences, a ``stats.Difference`` or None), ``p_holm`` and ``tested``
    (how many comparisons the choice was made among)."""
    study: str
    at: dict
    metric: str
    alpha: float | None
    alpha_iid: float | None
    verdict: Verdict
    iid: Verdict | None
    did: object
    p_holm: float
    tested: int


def candidates(data: LessonData) -> list[tuple[LessonData, dict, str, Verdict]]:
    """(study data, local epochs, measure, FedQuad vs FedAvg at the strongest skew) for every
    comparison the choice is made among."""
    out = []
    for name in LOCAL_CANDIDATES:
        if name not in data.studies:
            continue
        d = LessonData(data.root, data.studies[name], data.source, data._runs, notices=data.notices,
                       studies=data.studies)
        epochs = [e for e in d.axis("local_epochs") if e is not None] or [None]
        for e in epochs:
            at = {"local_epochs": e} if e is not None else {}
            for metric in MEASURES:
                v = versus(d, metric, {"alpha": d.skew_alpha(), "method": "fedquad", **at},
                           {"alpha": d.skew_alpha(), "method": "fedavg", **at})
                if v.test is not None:
                    out.append((d, at, metric, v))
    return out


def strongest_effect(data: LessonData) -> Strongest | None:
    """The strongest effect (see the module), or None when no comparison shows one (or the data are
    the user's own: the choice is made among the recorded studies)."""
    if data.source != "recorded":
        return None
    found = candidates(data)
    if not found:
        return None
    adjusted = stats.holm([v.test.p for *_, v in found])
    best = None
    for (d, at, metric, v), p in zip(found, adjusted):
        if p < 0.05 and v.test.diff > 0 and v.delta is not None and v.test.diff >= v.delta:
            if best is None or v.test.diff > best[0][3].test.diff:
                best = ((d, at, metric, v), p)
    if best is None:
        return None
    (d, at, metric, v), p = best
    iid_alpha = d.iid_alpha()
    iid = versus(d, metric, {"alpha": iid_alpha, "method": "fedquad", **at}, {"alpha": iid_alpha, "method": "fedavg", **at})
    return Strongest(d.study.get("name", "?"), at, metric, d.skew_alpha(), iid_alpha, v, iid,
                     interaction(d, metric, at), p, len(found))


def interaction(d: LessonData, metric: str, at: dict):
    """The paired test of (FedQuad - FedAvg at the strongest skew) - (FedQuad - FedAvg at IID),
    seed by seed (None without at least 2 seeds with all four runs)."""
    def gap(alpha):
        q = values(d, metric, alpha=alpha, method="fedquad", **at)
        a = values(d, metric, alpha=alpha, method="fedavg", **at)
        return {s: q[s] - a[s] for s in q.keys() & a.keys()}
    skew, iid = gap(d.skew_alpha()), gap(d.iid_alpha())
    seeds = sorted(skew.keys() & iid.keys(), key=repr)
    return stats.paired([skew[s] for s in seeds], [iid[s] for s in seeds]) if len(seeds) >= 2 else None
