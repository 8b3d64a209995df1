"""A study's runs compared at matched accuracy: each run's geometry at the first snapshot round
where its test accuracy reaches one fixed threshold, so that a less trained model is never read
as a collapsed one (a skewed run learns slower, and an early embedding uses fewer directions).

The default threshold is the lowest final test accuracy among the compared runs, rounded down to
a whole percent: every compared run reaches it (the last round is always a snapshot round)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..runs.store import RunNotFound, RunStore, StoreError
from .table import REPLICATE, summarize

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
