"""The lesson's data: the recorded studies it tells its story from (``ROLES``: ``digits-local``
for the local models, ``fmnist-skew`` for the global model across alpha), or the user's own study
or runs for every step, read from a run-store root, with the handful of look-ups the steps need.
Pure: no streamlit.

A study is the JSON described in docs/studies.md (``<root>/studies/<name>.json``). When the user has runs but
no study with the needed axes, ``study_from_runs`` builds the same shape from the finished runs
(axes alpha x method x seed), so the steps have one code path.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.roots import recorded_dir, runs_dir as user_dir
from fedquad_core import api
from fedquad_core.api import RunStore, RunView, StoreError, Verdict, stats
from fedquad_core.api import words

alpha_words = words.alpha_words  # ("IID", "α=0.1"; NaN is IID): the Lesson's modules take it from here

# which recorded study tells which part: the global model from fmnist-skew; the local models from
# the candidate with the largest local collapse beyond seed noise (``strongest_local``), so a
# re-recorded study is picked up by its numbers; digits-local when none shows one
ROLES = {"local": "digits-local", "global": "fmnist-skew"}
LOCAL_CANDIDATES = ("fmnist-skew", "digits-local")
LESSON_STUDY = ROLES["local"]
NEEDED_AXES = ("alpha", "method")
RECORD_HINT = ("the recorded studies {names} are missing from {root}: run "
               "`python scripts/record_studies.py` (or switch on \"Use my runs\" with a study over alpha and method)")


class Missing(LookupError):
    """The study lacks a run or a metric this step needs (the message says which)."""


def read_studies(root: Path) -> list[dict]:
    """Every readable study in ``root`` (a damaged study file is left out: ``api.study_view(root).studies()``)."""
    return list(api.study_view(root).studies()[0].values())


def has_axes(study: dict, axes=NEEDED_AXES) -> bool:
    return all(len(study.get("axes", {}).get(a) or []) >= (2 if a == "alpha" else 1) for a in axes)


def study_from_runs(root: Path) -> dict | None:
    """A study-shaped dict over the finished runs of ``root`` (axes alpha, method, seed)."""
    runs, points = api.run_view(root), []
    for info in runs.runs():
        if info.state != "finished":
            continue
        c = info.config
        points.append({"coords": {"alpha": c.get("alpha"), "method": c.get("method"), "seed": c.get("seed", 0)},
                       "run_id": info.run_id, "key": info.status.get("key")})
    if not points:
        return None
    axes = {a: _ordered({p["coords"][a] for p in points}) for a in ("alpha", "method", "seed")}
    base = runs.store.read_config(points[0]["run_id"])
    return {"name": "my-runs", "title": "My runs", "base": base, "axes": axes, "points": points}


def _ordered(values: set) -> list:
    """Ascending, None (IID) last."""
    return sorted((v for v in values if v is not None), key=str if any(isinstance(v, str) for v in values) else float) \
        + ([None] if None in values else [])


@dataclass
class LessonData:
    """One study plus its run store; every look-up tolerates missing runs (returns None / []):
    they read through one damage-tolerant view (``fedquad_core.api.run_view``, each run's metrics
    read once), shared by the data of every part of the story (``role``)."""
    root: Path
    study: dict
    source: str = "recorded"
    _runs: RunView | None = field(default=None, repr=False)
    notices: set = field(default_factory=set, repr=False)  # one line per damaged file met (shown by the page)
    studies: dict = field(default_factory=dict, repr=False)  # recorded: every study of the root by name

    def role(self, role: str) -> "LessonData":
        """The data for one part of the story: the recorded study named in ``ROLES`` (the user's
        own study for every part). Raises ``Missing`` naming the study to record."""
        if self.source != "recorded":
            return self
        name = strongest_local(self.root, self.studies)[0] if role == "local" else ROLES[role]
        if name == self.study.get("name"):
            return self
        if name not in self.studies:
            raise Missing(f"the recorded study '{name}' is missing from {self.root}: run "
                          f"`python scripts/record_studies.py --only {name}`")
        return LessonData(self.root, self.studies[name], self.source, self._runs, notices=self.notices,
                          studies=self.studies)

    def __post_init__(self):
        if self._runs is None:
            self._runs = api.run_view(self.root, cache_metrics=True)

    @property
    def store(self) -> RunStore:
        return self._runs.store

    def axis(self, name: str) -> list:
        return list(self.study.get("axes", {}).get(name) or [])

    def base(self, key: str, default=None):
        return (self.study.get("base") or {}).get(key, default)

    def runs(self, **coords) -> list[str]:
        """Run ids of the finished points whose coordinates match ``coords`` (in seed order)."""
        out = []
        for p in self.study.get("points", []):
            c, rid = p.get("coords", {}), p.get("run_id")
            if rid and all(_same(c.get(k, self.base(k)), v) for k, v in coords.items()) and self._exists(rid):
                out.append(rid)
        return list(dict.fromkeys(out))

    def points(self, coords: dict) -> list[dict]:
        """The finished points matching ``coords``, one per run (a reader for
        ``engine.stats.matched_comparison`` and ``engine.stats.accuracy_profile``, with ``rows``)."""
        ids, out = set(self.runs(**coords)), {}
        for p in self.study.get("points", []):
            if p.get("run_id") in ids and self.metrics(p["run_id"]):
                out.setdefault(p["run_id"], p)
        return list(out.values())

    def rows(self, run_id: str) -> list[dict]:
        return self.metrics(run_id)

    def run(self, **coords) -> str | None:
        ids = self.runs(**coords)
        return ids[0] if ids else None

    def _exists(self, run_id: str) -> bool:
        return self._runs.exists(run_id)

    def config(self, run_id: str) -> dict:
        return self.store.read_config(run_id)

    def metrics(self, run_id: str) -> list[dict]:
        return self._runs.metrics(run_id)

    def final(self, run_id: str, key: str) -> float | None:
        """The metric's last recorded value (snapshot metrics: the last snapshot round's)."""
        vals = [r[key] for r in self.metrics(run_id) if r.get(key) is not None]
        return float(vals[-1]) if vals else None

    def partition(self, run_id: str) -> dict | None:
        return self.store.read_partition(run_id)

    def snapshot_rounds(self, run_id: str) -> list[int]:
        """The rounds whose snapshot reads; a damaged snapshot file is left out and noted."""
        self.notices.update(self._runs.snapshot_damage(run_id))
        return self._runs.snapshot_rounds(run_id, readable=True)

    def snapshot(self, run_id: str, round_: int) -> dict[str, np.ndarray]:
        return self.store.read_snapshot(run_id, round_)

    def stored_umap(self, run_id: str, round_: int) -> np.ndarray | None:
        """The stored UMAP layout (read with ``allow_pickle=False``, shape checked), or None: none
        stored, or a damaged one (noted)."""
        xy, damage = self._runs.layout(run_id, round_)
        if damage:
            self.notices.add(f"{damage}: shown with PCA")
        return xy

    def skew_alpha(self) -> float | None:
        """The strong-skew alpha the lesson shows: 0.1 if the study has it, else its smallest."""
        alphas = [a for a in self.axis("alpha") if a is not None]
        if not alphas:
            return None
        return next((a for a in alphas if math.isclose(a, 0.1)), min(alphas))

    def iid_alpha(self) -> float | None:
        """None (IID) when the study has it, else its largest alpha."""
        alphas = self.axis("alpha")
        return None if None in alphas or not alphas else max(alphas)

    def settings(self) -> str:
        """The footer: which data these figures come from."""
        b = self.study.get("base") or {}
        parts = [f"{self.source} study '{self.study.get('name')}'", f"dataset {b.get('dataset', '?')}",
                 f"{b.get('num_clients', '?')} clients", f"{b.get('rounds', '?')} rounds",
                 f"seeds {', '.join(str(s) for s in self.axis('seed')) or b.get('seed', 0)}"]
        return " · ".join(parts)


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b))
    return a == b


def _local_collapse(d: "LessonData") -> Verdict | None:
    """FedAvg's local effective rank at the study's strongest skew against IID (at its most local
    epochs), compared over seeds; None when the study lacks those runs or local metrics."""
    if not has_axes(d.study):
        return None
    at = {"local_epochs": max(d.axis("local_epochs"))} if d.axis("local_epochs") else {}
    vals = [[d.final(r, "local_effective_rank") for r in d.runs(alpha=a, method="fedavg", **at)]
            for a in (d.skew_alpha(), d.iid_alpha())]
    if not all(any(v is not None for v in side) for side in vals):
        return None
    return stats.compare(*vals)


def strongest_local(root: Path, studies: dict) -> tuple[str, str]:
    """The recorded study that tells the local models' story, chosen by the numbers: of
    ``LOCAL_CANDIDATES`` present, the one whose FedAvg local effective rank drops most under skew
    beyond seed noise (largest |Hedges' g|), else ``ROLES["local"]``; and why, in words."""
    best = None
    for name in LOCAL_CANDIDATES:
        if name not in studies:
            continue
        v = _local_collapse(LessonData(root, studies[name], "recorded", studies=studies))
        if v is None or not v.separated or v.direction >= 0 or v.test.g is None:
            continue
        if best is None or abs(v.test.g) > abs(best[1].test.g):
            best = (name, v)
    if best is None:
        return ROLES["local"], ("the default: in no candidate is FedAvg's local effective rank under skew apart "
                                "from IID's beyond seed noise")
    name, v = best
    a, b = v.text()
    return name, (f"chosen by its numbers: the largest local collapse beyond seed noise of the recorded studies "
                  f"(FedAvg's local effective rank {a} under skew against {b} IID, g = {v.test.g:.1f})")


def load(use_mine: bool = False, study_name: str | None = None) -> tuple[LessonData | None, str | None]:
    """(data, None) or (None, what to run instead). Recorded: the ``ROLES`` studies. Mine: the named
    user study (or the first one with alpha and method axes), else the user's finished runs."""
    if not use_mine:
        root = recorded_dir()
        studies = {s.get("name"): s for s in read_studies(root)}
        study = next((studies[n] for n in ROLES.values() if n in studies), None)
        if study is None:
            return None, RECORD_HINT.format(names=" and ".join(f"'{n}'" for n in ROLES.values()), root=root)
        return LessonData(root, study, "recorded", studies=studies), None
    root = user_dir()
    studies = [s for s in read_studies(root) if has_axes(s)]
    study = next((s for s in studies if s.get("name") == study_name), studies[0] if studies else None)
    study = study or study_from_runs(root)
    if study is None or not has_axes(study):
        return None, ("Your runs do not make a lesson yet: it needs finished FedAvg and FedQuad runs at two "
                      "or more α (or a study over α and method of your own).")
    return LessonData(root, study, "my"), None


_CLAIMS: dict[tuple, Any] = {}
_CHECKING = threading.Lock()  # one check at a time: a class on the Lesson waits for one answer (app/studies/confirmed.py)


def claims_of(data: LessonData):
    """The claims table of ``data``'s root (``api.claims``: its rows, and ``verdicts()``), computed once per root and
    state of its study files (it reads every claim's runs: seconds)."""
    folder = api.study_view(data.root).folder
    try:
        stamp = tuple(sorted((f.name, f.stat().st_mtime_ns) for f in folder.glob("*.json")))
    except OSError:
        stamp = ()
    key = (str(data.root), stamp)
    with _CHECKING:
        if key not in _CLAIMS:
            table = api.claims(data.root)
            _CLAIMS.clear()
            _CLAIMS[key] = table
        return _CLAIMS[key]


def table_result(data: LessonData, metric: str, a: dict, b: dict, matched: bool = False) -> tuple[int, object] | None:
    """(row number, ``ClaimResult``) of the claims-table row that makes the same comparison as a
    lesson sentence (the same study, measure and groups; ``matched``: the row at matched accuracy),
    or None (the user's own runs, or no such row)."""
    if data.source != "recorded":
        return None
    key = stats.row_key(data.study.get("name", ""), metric, a, b)
    for i, r in enumerate(claims_of(data), start=1):
        if r.key == key and r.matched_row == matched:
            return i, r
    return None


def table_row(data: LessonData, metric: str, a: dict, b: dict, matched: bool = False) -> tuple | None:
    """(row number, verdict, robust, Holm-adjusted p) of ``table_result``'s row, or None."""
    found = table_result(data, metric, a, b, matched)
    if found is None:
        return None
    i, r = found
    return i, r.verdict, r.robustness == "robust", r.p_holm


def user_study_names() -> list[str]:
    return [s["name"] for s in read_studies(user_dir()) if has_axes(s) and s.get("name")]
