"""Step 7's numbers from every seed: what FedQuad costs against FedAvg for the same rounds
(samples processed, an exact count per run, and wall time), and the two compared at equal samples
instead of equal rounds, by the claims table's rule. Pure: no streamlit."""
from __future__ import annotations

from fedquad_core.api import Verdict, stats
from app.lesson.data import LessonData
from app.lesson.figures import versus

def _runs(d: LessonData, alpha, method: str) -> dict:
    """seed -> metrics rows of the finished runs of ``method`` at ``alpha``."""
    return {stats.seed_of(p): d.metrics(p["run_id"]) for p in d.points({"alpha": alpha, "method": method})}


def _last(rows: list[dict], key: str) -> float | None:
    vals = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
    return float(vals[-1]) if vals else None


def cost(d: LessonData, alpha) -> dict | None:
    """``samples`` and ``times``: seed -> FedQuad's over FedAvg's total samples processed and wall
    time, for the seeds both have; ``time``: FedQuad's wall time against FedAvg's (seconds, paired
    on the seeds). None when a run lacks the counts."""
    fq, fa = _runs(d, alpha, "fedquad"), _runs(d, alpha, "fedavg")
    seeds = [s for s in fq if s in fa]
    if not seeds:
        return None
    got = {s: {k: (_last(fq[s], k), _last(fa[s], k)) for k in ("samples_total", "elapsed")} for s in seeds}
    if any(None in pair or pair[1] == 0 for g in got.values() for pair in g.values()):
        return None
    return {"samples": {s: g["samples_total"][0] / g["samples_total"][1] for s, g in got.items()},
            "times": {s: g["elapsed"][0] / g["elapsed"][1] for s, g in got.items()},
            "time": stats.compare({s: g["elapsed"][0] for s, g in got.items()}, {s: g["elapsed"][1] for s, g in got.items()})}


def equal_samples(d: LessonData, alpha) -> Verdict | None:
    """FedQuad against FedAvg at equal samples seen, by the claims table's rule
    (``engine.stats.equal_samples_values``: FedQuad's accuracy interpolated at FedAvg's samples over its
    last 10 rounds, against FedAvg's mean over those rounds), seed by seed; None without such runs."""
    a, b, _ = stats.equal_samples_values(d, {"alpha": alpha, "method": "fedquad"}, {"alpha": alpha, "method": "fedavg"},
                                         "final_acc", True)
    if not a or not b:
        return None
    return stats.compare(a, b, stats.smallest_effect("final_acc"))


DEMO_STUDY = "digits-alpha"  # the recorded study made with the one-minute demo's settings (docs/studies.md, "Recorded studies")


def demo_comparison(data: LessonData) -> dict | None:
    """The one-minute demo's comparison on its recorded study (every seed at the demo's α): FedQuad
    against FedAvg at equal rounds (each run's mean of its last 10 rounds) and at equal samples,
    and the samples ratio; None when the study is not in the root (the user's own runs)."""
    study = data.studies.get(DEMO_STUDY) if data.source == "recorded" else None
    if not study:
        return None
    d = LessonData(data.root, study, data.source, data._runs, notices=data.notices, studies=data.studies)
    alpha = d.skew_alpha()
    spent = cost(d, alpha)
    at_samples_ = equal_samples(d, alpha)
    if spent is None or at_samples_ is None:
        return None
    rounds = versus(d, "final_acc", {"alpha": alpha, "method": "fedquad"}, {"alpha": alpha, "method": "fedavg"})
    return {"study": DEMO_STUDY, "alpha": alpha, "samples": spent["samples"], "rounds": rounds,
            "equal_samples": at_samples_}
