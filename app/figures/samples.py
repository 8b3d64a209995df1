"""Equal rounds or equal samples? FedQuad processes more samples per round than FedAvg (its
quadruplets), so an accuracy gap at the same round can be one of compute. ``equal_samples_note``
says, from the runs an accuracy figure shows, how many samples each method processed and whether
the gap at equal rounds survives at equal samples, by the claims table's rule: each run's mean
over its last 10 rounds, and the method that processed more read where it had processed the
other's totals over those rounds (its curve against samples interpolated there, never
extrapolated); seed by seed (``engine.stats.compare``) when the runs carry seeds. Pure: a
metrics frame in, one sentence out."""
from __future__ import annotations

import numpy as np
import pandas as pd

from fedquad_core import api as engine

SAME = 1.05  # totals within 5 % of each other: no note (the comparison is already at equal samples)


def _curve(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    rows = rows.dropna(subset=["samples_total", "test_accuracy"]).sort_values("round")
    return rows["samples_total"].to_numpy(float), rows["test_accuracy"].to_numpy(float)


def _pct(v: engine.Verdict) -> tuple[str, str]:
    a, b = v.text(".1f", 100.0)
    return a + " %", b + " %"


def _words(v: engine.Verdict, more: str) -> str:
    delta = f"±{engine.words.delta_points(v.delta)}" if v.delta else "±δ"
    return engine.words.difference_words(v, more, delta, engine.words.p_words)


def _rows(runs: pd.DataFrame) -> list[dict]:
    """A run's metrics frame as the engine's rows (round, samples_total, test_accuracy)."""
    rows = runs.dropna(subset=["samples_total", "test_accuracy"]).sort_values("round")
    return rows[["round", "samples_total", "test_accuracy"]].to_dict("records")


def work_differs(frame: pd.DataFrame) -> bool:
    """Whether the runs of ``frame`` (a metrics frame) process different numbers of samples a round
    (more than 5 % apart at their latest round): then rounds are not equal work, and the Live page
    offers "samples processed" as its x axis first."""
    need = {"run", "round", "samples_total"}
    if frame is None or frame.empty or not need <= set(frame.columns):
        return False
    rows = frame.dropna(subset=["round", "samples_total"])
    rows = rows[pd.to_numeric(rows["round"], errors="coerce") > 0]
    if rows["run"].nunique() < 2:
        return False
    last = rows.sort_values("round").groupby("run").last()
    per_round = (pd.to_numeric(last["samples_total"], errors="coerce") / pd.to_numeric(last["round"])).dropna()
    per_round = per_round[per_round > 0]
    return len(per_round) >= 2 and float(per_round.max()) > SAME * float(per_round.min())


def equal_samples_note(frame: pd.DataFrame) -> str:
    """The sentence (empty when the frame has not two methods with samples counts, or their totals
    are within 5 % of each other)."""
    need = {"method", "round", "samples_total", "test_accuracy", "run"}
    if frame is None or frame.empty or not need <= set(frame.columns):
        return ""
    methods = list(dict.fromkeys(frame["method"]))
    if len(methods) != 2:
        return ""
    by = "seed" if "seed" in frame.columns else "run"
    runs = {m: {k: g for k, g in frame[frame["method"] == m].groupby(by if by == "seed" else "run")} for m in methods}
    if by == "run":
        if any(len(r) != 1 for r in runs.values()):
            return ""
        runs = {m: {0: next(iter(r.values()))} for m, r in runs.items()}
    seeds = [s for s in runs[methods[0]] if s in runs[methods[1]]]
    totals = {m: {s: _curve(runs[m][s])[0][-1] for s in seeds if len(_curve(runs[m][s])[0])} for m in methods}
    seeds = [s for s in seeds if all(s in totals[m] for m in methods)]
    if not seeds:
        return ""
    less, more = sorted(methods, key=lambda m: np.mean([totals[m][s] for s in seeds]))
    ratios = [totals[more][s] / totals[less][s] for s in seeds if totals[less][s] > 0]
    if not ratios or max(ratios) < SAME:
        return ""
    rounds, samples = {}, {}
    for s in seeds:  # the claims table's rule: each run's last-10-round window (engine.stats.equal_samples_values)
        more_rows, less_rows = _rows(runs[more][s]), _rows(runs[less][s])
        mine, ref = engine.stats.run_value(more_rows, "final_acc"), engine.stats.run_value(less_rows, "final_acc")
        if mine is not None and ref is not None:
            rounds[s] = (mine, ref)
        at = engine.stats.at_reference_samples(more_rows, less_rows, "final_acc")
        if at is not None and ref is not None:
            samples[s] = (at, ref)
    if not rounds:
        return ""
    lo, hi = min(ratios), max(ratios)
    ratio = f"{lo:.2f}×" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}×"
    M, L = engine.words.method_label(more), engine.words.method_label(less)
    v_rounds = engine.stats.compare({s: a for s, (a, _) in rounds.items()}, {s: b for s, (_, b) in rounds.items()}, 0.01)
    out = (f"Samples processed: {M} {ratio} {L}'s by the last round. At equal rounds (each run's last 10) {M} "
           f"{_pct(v_rounds)[0]} against {L} {_pct(v_rounds)[1]} ({_words(v_rounds, M)})")
    if not samples:
        return out + "."
    v_samples = engine.stats.compare({s: a for s, (a, _) in samples.items()}, {s: b for s, (_, b) in samples.items()}, 0.01)
    out += (f"; at equal samples ({M} read where it had processed {L}'s totals of those rounds) {_pct(v_samples)[0]} against "
            f"{_pct(v_samples)[1]} ({_words(v_samples, M)})")
    if v_rounds.separated:
        same = v_samples.separated and v_samples.direction == v_rounds.direction
        out += ": the gap at equal rounds " + ("survives at equal samples" if same else "is not shown at equal samples")
    return out + "."
