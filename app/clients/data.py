"""What the Clients page shows, read from the run stores (through ``app.service``): the
comparisons that measured their clients' local models, one round's measured clients as a table,
one client's numbers over the rounds it was measured, and its local embeddings next to the
global model's in one frame.

A *comparison* is a set of runs that differ only in the method: a study's grid point (every
axis but ``method`` fixed) or a group launched together from the dashboard. Only runs with
``embeddings/local_round_NNNN.npz`` files count (the engine writes them at snapshot rounds unless
``--local-clients 0``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from app import service
from app.figures.study import PAIR, value_label
from app.projection.maths import procrustes_align
from app.studies import catalog

LOCAL_METRICS = ("local_acc_all", "local_acc_own", "local_acc_own_any", "local_effective_rank", "local_ratio", "local_cka", "update_norm")
# the pairs the page opens on, first present wins: fmnist-skew at alpha 0.1, where a client's local
# model visibly differs from the global one (local rank about half of IID's), then digits-local
DEFAULTS = (("fmnist-skew", {"alpha": 0.1, "seed": 0}), ("digits-local", {"local_epochs": 10, "alpha": 0.1, "seed": 0}))


@dataclass(frozen=True)
class Comparison:
    id: str                     # "recorded:digits-local:alpha=0.1,local_epochs=10,seed=0" or "group:<group>"
    label: str
    runs: tuple[tuple[str, str], ...]   # (method, run_id), FedAvg and FedQuad first
    study: str = ""
    coords: tuple = ()

    @property
    def methods(self) -> dict[str, str]:
        return dict(self.runs)


def _ordered(runs: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(runs.items(), key=lambda mr: (mr[0] not in PAIR, PAIR.index(mr[0]) if mr[0] in PAIR else 0)))


@st.cache_data(max_entries=4096, show_spinner=False)
def _local_rows(run_id: str, stamp: tuple) -> dict[int, dict]:
    return {int(r["round"]): r for r in service.read_metrics(run_id) if r.get("local") and "round" in r}


def local_rows(run_id: str) -> dict[int, dict]:
    """The run's snapshot rows that hold local metrics (the per-client ``local`` list and the
    means), by round; read again when ``metrics.jsonl`` changes."""
    try:
        st_ = (service.run_path(run_id) / "metrics.jsonl").stat()
    except (OSError, service.RunNotFound, service.StoreError):
        return {}
    return _local_rows(run_id, (st_.st_mtime_ns, st_.st_size))


def _measured(run_id: str | None) -> bool:
    return bool(run_id) and bool(local_rows(run_id))


def comparisons() -> tuple[list[Comparison], str | None]:
    """Every comparison with local metrics: the studies' points (recorded first), then the user's
    launch groups; and the one-line note naming the store's damaged runs (skipped), or None.
    Looked up again after 10 s (a run of the user's may finish meanwhile)."""
    return _comparisons(str(service.runs_dir()), str(service.recorded_dir()))


@st.cache_data(ttl=10, max_entries=8, show_spinner=False)
def _comparisons(runs_root: str, recorded_root: str) -> tuple[list[Comparison], str | None]:
    out: list[Comparison] = []
    full = service.runs_table()
    table, skipped = service.without_damaged(full)
    damaged = set(full.loc[full["state"] == "damaged", "run_id"])
    for ref in catalog.study_refs():
        try:
            study = catalog.read_study(ref)
        except (OSError, ValueError, KeyError):
            continue
        groups: dict[tuple, dict[str, str]] = {}
        for p in study.get("points", []):
            coords = {k: v for k, v in p.get("coords", {}).items() if k != "method"}
            if p.get("run_id") not in damaged and _measured(p.get("run_id")):
                key = tuple(sorted(coords.items(), key=lambda kv: kv[0]))
                groups.setdefault(key, {})[str(p["coords"].get("method", "?"))] = p["run_id"]
        for key, runs in groups.items():
            where = ", ".join(f"{k} {value_label(k, v)}" for k, v in key if len(study["axes"].get(k, [])) > 1)
            out.append(Comparison(f"{ref.id}:{','.join(f'{k}={v}' for k, v in key)}",
                                  f"{ref.title}: {where or 'one point'} ({'recorded' if ref.source == 'recorded' else 'mine'})",
                                  _ordered(runs), ref.name, key))
    mine = table[(table["source"] == "mine") & (table["group"] != "")]
    for group, rows in mine.groupby("group", sort=False):
        runs = {str(r.method): r.run_id for r in rows.itertuples() if _measured(r.run_id)}
        if runs:
            out.append(Comparison(f"group:{group}", f"Launched {group}: {', '.join(map(service.method_label, runs))} (mine)",
                                  _ordered(runs)))
    return out, skipped


def default(comps: list[Comparison]) -> Comparison | None:
    """The first recorded pair of ``DEFAULTS`` present (an axis the study does not vary counts as
    matching): fmnist-skew at alpha 0.1, seed 0, else digits-local at 10 local epochs; else the
    first comparison."""
    for study, point in DEFAULTS:
        for c in comps:
            coords = dict(c.coords)
            if c.id.startswith("recorded:") and c.study == study and all(coords.get(k, v) == v for k, v in point.items()):
                return c
    return comps[0] if comps else None


def common_rounds(run_ids) -> list[int]:
    """The rounds at which every one of the runs measured its clients."""
    sets = [set(local_rows(r)) for r in run_ids]
    return sorted(set.intersection(*sets)) if sets else []


def picture_rounds(run_id: str) -> list[int]:
    """The rounds whose clients' embeddings and update cosines are stored (recorded runs keep the
    final round's of a few runs only; the numbers are in metrics.jsonl for every snapshot)."""
    return service.local_snapshot_rounds(run_id)


def population(runs: dict[str, str], round_: int) -> pd.DataFrame:
    """One row per measured client and method at ``round_``: ``method``, ``client``, ``classes``
    (how many it holds), ``samples`` and the local metrics."""
    rows = []
    for method, run_id in runs.items():
        row = local_rows(run_id).get(round_)
        if row:
            for c in row["local"]:
                rows.append({"method": method, "client": c["client"], "classes": len(c.get("classes", [])),
                             "samples": c.get("samples"), **{k: c.get(k) for k in LOCAL_METRICS}})
    cols = ["method", "client", "classes", "samples", *LOCAL_METRICS]
    return pd.DataFrame(rows, columns=cols).astype({k: float for k in LOCAL_METRICS})


def history(runs: dict[str, str], client: int) -> pd.DataFrame:
    """The client's local metrics at every round it was measured, per method, with the round's
    mean over the measured clients (``mean_<metric>``)."""
    rows = []
    for method, run_id in runs.items():
        for row in local_rows(run_id).values():
            mine = next((c for c in row["local"] if c.get("client") == client), None)
            if mine:
                rows.append({"method": method, "round": row["round"], **{k: mine.get(k) for k in LOCAL_METRICS},
                             **{f"mean_{k}": row.get(k) for k in LOCAL_METRICS}})
    cols = ["method", "round", *LOCAL_METRICS, *(f"mean_{k}" for k in LOCAL_METRICS)]
    return pd.DataFrame(rows, columns=cols)


def aligned_pair(global_z, local_z) -> tuple[np.ndarray, np.ndarray]:
    """Both sets in one 2-D frame: the local embeddings Procrustes-aligned (rotation, reflection,
    uniform scale, shift) onto the global ones in the full embedding space, then both projected on
    the global embeddings' first two principal axes (signed like ``pca_2d``)."""
    g = np.asarray(global_z, dtype=np.float64).reshape(len(global_z), -1)
    loc = procrustes_align(np.asarray(local_z, dtype=np.float64).reshape(len(local_z), -1), g).astype(np.float64)
    mean = g.mean(axis=0)
    _, _, vt = np.linalg.svd(g - mean, full_matrices=False)
    axes = vt[:2]
    signs = np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])
    axes = axes * np.where(signs == 0, 1, signs)[:, None]
    out = [np.zeros((len(g), 2), dtype=np.float32) for _ in range(2)]
    for o, z in zip(out, (g, loc)):
        o[:, :len(axes)] = (z - mean) @ axes.T
    return out[0], out[1]


def pictures(runs: dict[str, str], round_: int) -> tuple[dict[str, str], str | None]:
    """The runs whose clients' embeddings and update cosines are stored for ``round_``, and one
    line for those whose are not (None when all are)."""
    pics = {m: r for m, r in runs.items() if round_ in picture_rounds(r)}
    lacking = [m for m in runs if m not in pics]
    if not lacking:
        return pics, None
    kept = sorted(set().union(*(picture_rounds(runs[m]) for m in lacking)))
    where = f"kept for round {', '.join(map(str, kept))} only" if kept else "not kept (recorded runs keep them for a few runs)"
    names = " and ".join(map(service.method_label, lacking))
    return pics, (f"{names}: the clients' embeddings and update cosines are {where}; their numbers above are "
                  f"stored for every snapshot round.")


def mean_cosines(runs: dict[str, str], round_: int) -> str:
    """``Mean cosine over the measured pairs at round R: FedAvg 0.04, FedQuad 0.01. `` (from
    metrics.jsonl), or "" when the rows lack it."""
    vals = {m: local_rows(r).get(round_, {}).get("update_cosine") for m, r in runs.items()}
    vals = {m: v for m, v in vals.items() if isinstance(v, (int, float))}
    if not vals:
        return ""
    return (f"Mean cosine over the measured pairs at round {round_}: "
            + ", ".join(f"{service.method_label(m)} {v:.2f}" for m, v in vals.items()) + ". ")


def _local(run_id: str, round_: int) -> dict | str:
    """The round's local arrays, or one line naming the damaged file (skipped, not raised)."""
    try:
        return service.read_local_snapshot(run_id, round_)
    except (service.StoreError, service.RunNotFound, OSError, ValueError) as e:
        return f"run {run_id}: {getattr(e, 'reason', None) or e} (skipped)"


def client_frames(run_id: str, round_: int, client: int) -> dict | str:
    """``global_xy``, ``local_xy`` (one frame, ``aligned_pair``) and ``labels`` of the test points,
    or one line saying why not (client not measured then, a damaged or mismatched file)."""
    local = _local(run_id, round_)
    if isinstance(local, str):
        return local
    where = np.flatnonzero(local["clients"] == client)
    if not where.size:
        return f"run {run_id}: client {client} was not measured at round {round_}"
    try:
        labels = service.read_snapshot(run_id, round_).get("labels")
    except (service.StoreError, service.RunNotFound, OSError, ValueError):
        labels = None
    if labels is None or len(labels) != local["start_embeddings"].shape[0]:
        return f"run {run_id}: round_{round_:04d}.npz has no labels for the local embeddings' points (skipped)"
    g, loc = aligned_pair(local["start_embeddings"], local["embeddings"][where[0]])
    return {"global_xy": g, "local_xy": loc, "labels": np.asarray(labels)}


def cosine_matrix(run_id: str, round_: int) -> tuple[np.ndarray, list[int]] | str:
    local = _local(run_id, round_)
    if isinstance(local, str):
        return local
    return np.asarray(local["update_cosine"], dtype=float), [int(c) for c in local["clients"]]


def class_counts(run_id: str) -> tuple[np.ndarray | None, list[str]]:
    """The clients x classes table of the run's partition and the class names."""
    part = service.read_partition(run_id) or {}
    counts = np.asarray(part["counts"]) if part.get("counts") else None
    n = counts.shape[1] if counts is not None else 0
    names = [str(c) for c in (part.get("class_names") or [])]
    return counts, names if len(names) >= n else [str(i) for i in range(n)]
