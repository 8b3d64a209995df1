"""The runs of one study as the claims table reads them: a claim's special coordinates resolved on
the study's axes (``resolve``), the finished points of a group with their metrics rows read once
(``StudyRuns``), each run's one value of a measure (``run_value``: the mean of its last rounds or
snapshots) and a group's values keyed by seed (``seed_values``), so that two groups with the same
seeds are compared seed by seed."""
from __future__ import annotations

import math
from typing import Any

from ..config.alpha import alpha_text
from ..runs.store import RunNotFound, RunStore, StoreError
from .matched import seed_of
from ..vocab.methods import labels as method_labels

LAST_ROUNDS, LAST_SNAPSHOTS = 10, 3  # each run's value: the mean of its last k rounds / snapshots
NAMES = method_labels()  # the methods' display names, from their own files (vocab.methods)


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


class StudyRuns:
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
            who = label({k: v for k, v in p["coords"].items() if k not in coords or k == "method"})
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


def seed_values(r: StudyRuns, coords: dict, metric: str, how: str = "last-k") -> dict:
    """``run_value`` of each finished point matching ``coords``, keyed by its seed (``matched.seed_of``)."""
    out = {}
    for p in r.points(coords):
        v = run_value(r.rows(p["run_id"]), metric, how)
        if v is not None:
            out[seed_of(p)] = v
    return out


def point_values(runs: RunStore, study: dict, coords: dict, metric: str, how: str = "final",
                 _cache: StudyRuns | None = None) -> list[float]:
    """The metric's value (``run_value``) of each finished point matching ``coords`` (one per seed)."""
    return list(seed_values(_cache or StudyRuns(runs, study), coords, metric, how).values())


def label(coords: dict) -> str:
    """``FedAvg, α=0.1, local_epochs=10``."""
    parts = []
    for k, v in coords.items():
        if k == "method":
            parts.append(NAMES.get(v, str(v)))
        elif k == "alpha":
            parts.append(alpha_text(v, "label"))
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)
