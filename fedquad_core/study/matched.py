"""A study's runs compared at matched accuracy, so that a less trained model is never read as a
collapsed one (a skewed run learns slower, and an early embedding uses fewer directions).

- ``matched_comparison``: two groups at several accuracy levels spread over the range every
  compared run crosses between snapshots (``accuracy_levels``), each run's (accuracy, metric)
  snapshot curve interpolated at each level (``stats.first_crossing``); a verdict per level, a
  combined one only when the levels agree, and the runs that cannot resolve a level named.
  The claims table and the lesson use it.
- ``matched_accuracy``: each run at the first snapshot round whose accuracy reaches one threshold
  (by default the lowest final accuracy of the compared runs, rounded down to a whole percent);
  ``fedquad study show --matched-accuracy`` prints it."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..runs.store import RunNotFound, RunStore, StoreError
from .effects import smallest_effect
from .stats import first_crossing
from .table import REPLICATE, Verdict, compare, summarize

MATCHED_LEVELS = 3  # accuracy levels two groups are compared at

GEOMETRY = ("effective_rank", "ratio", "ratio_l2", "local_effective_rank", "local_ratio", "local_cka")


@dataclass
class Matched:
    """``threshold`` (a fraction), how it was chosen (``how``), and one row per compared point:
    its coords, ``run_id``, ``round`` (None: never reached), ``test_accuracy`` there and the
    ``GEOMETRY`` values of that snapshot row (None where the run does not record one)."""
    threshold: float | None
    how: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    def groups(self, keys=("round", "test_accuracy", *GEOMETRY)) -> list[dict[str, Any]]:
        """Over seeds, per point of the other axes: ``<key>_mean``, ``_std``, ``_n`` of the rows that
        reached the threshold, and ``values[key]`` (the per-seed list, for ``compare``)."""
        out: dict[tuple, dict] = {}
        for row in self.rows:
            coords = {k: v for k, v in row["coords"].items() if k != REPLICATE}
            g = out.setdefault(tuple((k, repr(v)) for k, v in coords.items()), {**coords, "values": {}, "reached": 0,
                                                                                   "total": 0})
            g["total"] += 1
            g["reached"] += row["round"] is not None
            for key in keys:
                if row["round"] is not None:
                    g["values"].setdefault(key, []).append(row.get(key))
        for g in out.values():
            for key in keys:
                g[f"{key}_mean"], g[f"{key}_std"], g[f"{key}_n"] = summarize(g["values"].get(key, []))
        return list(out.values())


def snapshot_rows(runs: RunStore, run_id: str) -> list[dict]:
    """The metrics rows of a run that carry both a test accuracy and a snapshot geometry."""
    try:
        rows = runs.read_metrics(run_id)
    except (RunNotFound, StoreError):
        return []
    return [r for r in rows if _num(r.get("test_accuracy")) and _num(r.get("effective_rank"))]


def _num(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _matches(coords: dict, where) -> bool:
    """``where``: None (every point), one dict of coords, or a list of them (a point matching any)."""
    if where is None:
        return True
    options = where if isinstance(where, list) else [where]
    return any(all(repr(coords.get(k)) == repr(v) for k, v in w.items()) for w in options)


def matched_accuracy(runs: RunStore, study: dict[str, Any], threshold: float | None = None,
                     where: dict[str, Any] | list[dict[str, Any]] | None = None) -> Matched:
    """Each finished point of ``study`` (those whose coords equal ``where``'s values, or one of a
    list of such dicts) at the first
    snapshot round with test accuracy >= ``threshold`` (default: the lowest final accuracy among
    them, rounded down to a whole percent)."""
    curves: dict[str, list[dict]] = {}
    points = []
    for p in study.get("points", []):
        rid = p.get("run_id")
        if not rid or not _matches(p.get("coords", {}), where):
            continue
        try:
            if runs.read_status(rid).get("state") != "finished":
                continue
        except (RunNotFound, StoreError):
            continue
        if rid not in curves:
            curves[rid] = snapshot_rows(runs, rid)
        if curves[rid]:
            points.append(p)
    if threshold is None:
        finals = [curves[p["run_id"]][-1]["test_accuracy"] for p in points]
        if not finals:
            return Matched(None, "no finished run with snapshot metrics")
        threshold = math.floor(min(finals) * 100 + 1e-9) / 100
        how = f"the lowest final accuracy of the {len(finals)} compared runs, rounded down to a whole percent"
    else:
        how = "given"
    out = Matched(float(threshold), how)
    for p in points:
        hit = next((r for r in curves[p["run_id"]] if r["test_accuracy"] >= threshold - 1e-12), None)
        row = {"coords": dict(p["coords"]), "run_id": p["run_id"], "round": int(hit["round"]) if hit else None,
               "test_accuracy": float(hit["test_accuracy"]) if hit else None}
        row.update({k: (float(hit[k]) if hit and _num(hit.get(k)) else None) for k in GEOMETRY})
        out.rows.append(row)
    return out


# ---- several levels, interpolated ------------------------------------------------------------
def curve(rows: list[dict], metric: str) -> tuple[list[float], list[float]]:
    """(accuracy, metric) at each snapshot row that has both."""
    pairs = [(float(r["test_accuracy"]), float(r[metric])) for r in rows
             if _num(r.get("test_accuracy")) and _num(r.get(metric))]
    return [a for a, _ in pairs], [m for _, m in pairs]


def accuracy_levels(curves: list[tuple[list[float], list[float]]], count: int = MATCHED_LEVELS) -> list[float]:
    """``count`` accuracy levels evenly spread over the range every run's snapshots cross: from the
    highest first-snapshot accuracy to the lowest best accuracy (inset by a tenth of the range at
    each end); [] when the runs share no range."""
    curves = [c for c in curves if c[0]]
    if not curves:
        return []
    lo = max(acc[0] for acc, _ in curves)
    hi = min(max(acc) for acc, _ in curves)
    if hi - lo < 0.005:
        return []
    inset = (hi - lo) / 10
    step = (hi - lo - 2 * inset) / (count - 1) if count > 1 else 0.0
    return [lo + inset + i * step for i in range(count)]


@dataclass
class MatchedComparison:
    """Two groups compared at each accuracy level: the levels, a ``Verdict`` per level and the
    runs that do not resolve a level (never reach it, or reach it before their first snapshot)."""
    levels: list[float]
    verdicts: list[Verdict]
    unresolved: list[list[str]]

    def states(self, judge: Callable[[Verdict], str]) -> list[str]:
        """Each level's verdict in words (``judge``: a Verdict -> its verdict)."""
        return [judge(v) for v in self.verdicts]

    def combined(self, judge: Callable[[Verdict], str], none: str = "not run here",
                 disagree: str = "inconclusive") -> str:
        """The levels' common verdict; ``disagree`` when they disagree, ``none`` without levels."""
        states = self.states(judge)
        if not states:
            return none
        return states[0] if len(set(states)) == 1 else disagree

    def text(self, judge: Callable[[Verdict], str], spec: str = ".2f") -> str:
        if not self.levels:
            return "no accuracy range that every compared run crosses between snapshots"
        parts = []
        for level, v, missing, state in zip(self.levels, self.verdicts, self.unresolved, self.states(judge)):
            ta, tb = v.text(spec)
            part = f"{level:.1%}: {ta} vs {tb}, {state}"
            if missing:
                part += f" (not resolved: {', '.join(missing)})"
            parts.append(part)
        agree = len(set(self.states(judge))) == 1
        return "; ".join(parts) + ("" if agree else " — the levels disagree")


class PointsReader(Protocol):
    """What ``matched_comparison`` and ``accuracy_profile`` read a study through (the claims'
    ``StudyRuns``, the Lesson's data, the Explore page's frame): the finished points matching some
    coords, and one run's metrics rows."""

    def points(self, coords: dict) -> list[dict]: ...

    def rows(self, run_id: str) -> list[dict]: ...


def matched_comparison(r: PointsReader, a: dict, b: dict, metric: str, levels: list[float] | None = None,
                       label: Callable[[dict], str] = lambda c: ", ".join(f"{k}={v}" for k, v in c.items()),
                       paired: bool = True) -> MatchedComparison:
    """Groups ``a`` and ``b`` (coords; ``r``: a ``paper_claims._Runs``-like reader with ``points``
    and ``rows``) at matched accuracy: each run's (accuracy, metric) snapshot curve
    interpolated at each level (``stats.first_crossing``); the levels default to
    ``accuracy_levels`` of the two groups' runs. ``paired``: False where the groups do not share
    their partitions (another alpha): Welch's test even on the same seeds."""
    groups = {}
    for name, coords in (("a", a), ("b", b)):
        groups[name] = [(p, curve(r.rows(p["run_id"]), metric)) for p in r.points(coords)]
    if levels is None:
        levels = accuracy_levels([c for g in groups.values() for _, c in g])
    verdicts, unresolved = [], []
    for level in levels:
        vals, missing = {}, []
        for name, members in groups.items():
            vals[name] = {}
            for p, (acc, met) in members:
                v = first_crossing(acc, met, level) if acc else None
                if v is None:
                    missing.append(label(p["coords"]))
                else:
                    vals[name][seed_of(p)] = v
        ref = summarize(vals["b"].values())[0]
        a_vals, b_vals = (vals["a"], vals["b"]) if paired else (list(vals["a"].values()), list(vals["b"].values()))
        verdicts.append(compare(a_vals, b_vals, smallest_effect(metric, ref)))
        unresolved.append(missing)
    return MatchedComparison(list(levels), verdicts, unresolved)


def seed_of(point: dict) -> Any:
    """What pairs two runs of a comparison: the point's seed (its run id when it has no seed
    coordinate, so that it pairs with nothing)."""
    coords = point.get("coords") or {}
    return coords[REPLICATE] if REPLICATE in coords else point.get("run_id")




def accuracy_profile(r: PointsReader, groups: dict[str, dict], metric: str, count: int = 12) -> list[dict[str, Any]]:
    """The honest picture of "less trained or collapsed": ``metric`` against test accuracy, per
    group (``groups``: label -> coords), at ``count`` accuracy levels over the range every run of
    every group crosses between snapshots; one row per (group, level) with the mean, sample std
    and number of the runs' interpolated values (``r`` as in ``matched_comparison``)."""
    members = {label: [curve(r.rows(p["run_id"]), metric) for p in r.points(coords)] for label, coords in groups.items()}
    levels = accuracy_levels([c for cs in members.values() for c in cs], count)
    out = []
    for label, curves in members.items():
        for level in levels:
            mean, std, n = summarize([first_crossing(acc, met, level) for acc, met in curves if acc])
            out.append({"group": label, "accuracy": level, "mean": mean, "std": std, "n": n})
    return out
