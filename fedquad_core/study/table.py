"""A study's numbers: one row per grid point (``study_frame``) and, over seeds, the mean, std
and count of each metric per (method, x value, other slider axes) (``response_table``).

Only finished runs count towards the means; a point whose run is missing, running, failed,
cancelled or diverged is listed in its group's ``missing``."""
from __future__ import annotations

import math
import statistics
from typing import Any

from ..store import RunNotFound, RunStore, StoreError

# the mean local-model metrics of the last snapshot row that has them (README, "Local models");
# None for runs that did not measure their clients
LOCAL_METRICS = ("local_acc_all", "local_acc_own", "local_effective_rank", "local_ratio", "local_cka",
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
