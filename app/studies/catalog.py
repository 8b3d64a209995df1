"""The dashboard's door to studies (docs/studies.md): the studies of both run-store roots (the user's
and the recorded, read-only one), their points as a table, the final snapshot of a run as the
Explore page shows it.

Nothing here trains or imports a model; the engine (``fedquad_core.api``) reads the study files
and the runs; a study is started by ``service.launching`` (the app's one launcher). Reading a
recorded run never writes into its folder (no UMAP requests: the stored UMAP layout, else PCA)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fedquad_core import api
from fedquad_core.api import stats, words
from app import service
from app.projection import cache as projection
from app.projection import maths
from app.plain import md_text

SERIES, REPLICATE = "method", "seed"
LOCAL_METRICS = ("local_acc_all", "local_acc_own", "local_acc_own_any", "local_effective_rank", "local_ratio", "local_cka",
                 "update_cosine", "update_norm")  # the mean over a run's measured clients (engine's study table)
METRICS = ("final_acc", "best_acc", "final_ratio", "final_ratio_l2", "effective_rank", *LOCAL_METRICS)


@dataclass(frozen=True)
class StudyRef:
    source: str        # "mine" | "recorded"
    name: str
    title: str

    @property
    def id(self) -> str:
        """The study's id in a link: ``recorded:digits-alpha`` or ``mine:my-study``."""
        return f"{self.source}:{self.name}"

    @property
    def label(self) -> str:
        return f"{self.title} ({'recorded' if self.source == 'recorded' else 'mine'})"


def study_refs() -> list[StudyRef]:
    """Every readable study: the recorded ones first (what a fresh clone shows), then the user's
    (a damaged study file is left out: ``damaged_studies`` names it)."""
    return _scan()[0]


def damaged_studies() -> list[str]:
    """One line per study file that cannot be read, with its reason (for the page's notice)."""
    return _scan()[1]


def _scan() -> tuple[list[StudyRef], list[str]]:
    out, damaged = [], []
    for source in ("recorded", "mine"):
        root = service.source_root(source)
        if source == "recorded" and service.runs_dir().resolve() == root.resolve():
            continue
        studies, left_out = api.study_view(root).studies()  # a damaged study file is named there and left out
        damaged += [f"{source}: {line}" for line in left_out]
        out += [StudyRef(source, name, str(study.get("title") or name)) for name, study in studies.items()]
    return out, damaged


def damaged_note(most: int = 2) -> str | None:
    """One line for a page: every damaged study named, the first ``most`` with their reasons; None
    when there is none. Markdown-escaped: a reason quotes what the file holds."""
    damaged = damaged_studies()
    if not damaged:
        return None
    names = [line.split(" ", 3)[2] if line.split(" ", 3)[1:2] == ["study"] else line for line in damaged]
    text = "Damaged studies, left out: " + "; ".join(damaged[:most])
    if len(damaged) > most:
        text += f"; and {len(damaged) - most} more ({', '.join(names[most:most + 20])}" \
                + (", ..." if len(damaged) > most + 20 else "") + ")"
    return md_text(text)


def ref_from_id(ref_id: str, refs: list[StudyRef]) -> StudyRef | None:
    return next((r for r in refs if r.id == ref_id), None)


def read_study(ref: StudyRef) -> dict:
    """The stored study, with the series (method) and replicate (seed) axes always present: a
    study run without them (``--grid alpha=0.1,iid``, or a seed-only grid) gets each as a
    one-value axis taken from its base settings, so every page can group by them."""
    return with_series_and_replicate(api.study_view(service.source_root(ref.source)).read(ref.name))


def with_series_and_replicate(study: dict) -> dict:
    base = study.get("base") or {}
    fill = {axis: base.get(axis, default) for axis, default in ((SERIES, "fedavg"), (REPLICATE, 0))
            if axis not in study["axes"]}
    if not fill:
        return study
    return {**study, "axes": {**study["axes"], **{a: [v] for a, v in fill.items()}},
            "points": [{**p, "coords": {**p["coords"], **fill}} for p in study["points"]]}


def slider_axes(study: dict) -> list[str]:
    """Axes with more than one value other than the series (method) and the replicate (seed)."""
    return [a for a, v in study["axes"].items() if a not in (SERIES, REPLICATE) and len(v) > 1]


def version(ref: StudyRef) -> tuple:
    """Changes whenever the study file or a point's status changes (a cache key for its table)."""
    root = service.source_root(ref.source)
    parts = [_mtime(root / "studies" / f"{ref.name}.json")]
    if ref.source == "mine":
        try:
            study = read_study(ref)
        except (OSError, ValueError):
            return tuple(parts)
        parts += [_mtime(root / p["run_id"] / "status.json") for p in study["points"] if p.get("run_id")]
    return tuple(parts)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def points_frame(ref: StudyRef) -> pd.DataFrame:
    """One row per grid point (the engine's ``StudyView.frame``): axis columns, run_id, state, the final
    metrics; ``source`` added. A point counts as done when its state is "finished"."""
    study = read_study(ref)
    rows = api.study_view(service.source_root(ref.source)).frame(study)
    df = pd.DataFrame(rows)
    for axis in study["axes"]:
        if axis in df:
            df[axis] = df[axis].astype(object).where(df[axis].notna(), None)
    df["source"] = ref.source
    return df


def progress(points: pd.DataFrame) -> tuple[int, int]:
    """(points finished, points in the grid)."""
    return int((points["state"] == "finished").sum()), len(points)


# ---- runs at a grid point --------------------------------------------------------------------
def run_metrics(ref: StudyRef, at: pd.DataFrame) -> pd.DataFrame:
    """The per-round metrics of the finished runs of ``at`` (rows of ``points_frame``), with
    ``method`` and ``seed`` columns."""
    runs = api.run_view(service.source_root(ref.source))
    frames = []
    for row in at[at["state"] == "finished"].itertuples(index=False):
        rows = runs.metrics(row.run_id)  # [] for a damaged or vanished run
        if rows:
            df = pd.DataFrame(rows)
            df["run"], df["method"], df["seed"] = row.run_id, getattr(row, SERIES, "?"), getattr(row, REPLICATE, 0)
            frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "method", "seed", "round"])


def final_snapshot(ref: StudyRef, run_id: str, *, project: bool = True) -> dict | None:
    """The run's last snapshot: ``round``, ``labels``, ``singular_values`` (recomputed from the
    embeddings when not stored) and, with ``project``, ``xy`` (the stored UMAP layout, else PCA)
    and ``kind`` ("UMAP" | "PCA"). None when the run has no snapshot."""
    runs = api.run_view(service.source_root(ref.source))
    found = runs.last_snapshot(run_id)  # the last readable one; a damaged snapshot file is left out
    if found is None:
        return None
    last, snap = found
    out = {"round": last, "labels": snap.get("labels")}
    s = snap.get("singular_values")
    if s is None and "embeddings" in snap:
        s = stats.singular_values(snap["embeddings"])
    out["singular_values"] = None if s is None else np.asarray(s, dtype=float)
    if project and "embeddings" in snap:
        xy = projection.umap_cached(runs.path(run_id), last)
        if xy is not None and len(xy) == len(snap["embeddings"]):
            out["xy"], out["kind"] = xy, "UMAP"
        else:
            out["xy"], out["kind"] = maths.pca_2d(snap["embeddings"]), "PCA"
    return out


def first_seed_runs(at: pd.DataFrame) -> dict[str, str]:
    """Per method, the finished run of the lowest seed at this grid point."""
    rows = [r for r in at.to_dict("records") if r["state"] == "finished"]
    if REPLICATE in at:  # stable: among equal seeds the table's order decides, as before
        rows.sort(key=lambda r: (r[REPLICATE] is None, r[REPLICATE] if r[REPLICATE] is not None else 0))
    out: dict[str, str] = {}
    for r in rows:
        out.setdefault(str(r[SERIES]), str(r["run_id"]))
    return out


def class_names(ref: StudyRef, run_id: str, n: int) -> list[str]:
    names = (api.run_view(service.source_root(ref.source)).partition(run_id) or {}).get("class_names") or []
    return [str(c) for c in names] if len(names) >= n else [str(i) for i in range(n)]


# ---- a study's grid as the study CLI writes it (starting a study: ``service.launching``) ----
def grid_args(axes: dict) -> list[str]:
    """``--grid axis=v1,v2`` arguments of the study CLI (alpha written by ``words.alpha_text``: IID as ``iid``)."""
    out = []
    for axis, values in axes.items():
        text = ",".join(words.alpha_text(v) if axis == "alpha" else repr(v) if isinstance(v, float) else str(v)
                        for v in values)
        out += ["--grid", f"{axis}={text}"]
    return out
