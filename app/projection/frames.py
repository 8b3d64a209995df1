"""A run's snapshots as 2-D pictures for the pages: frames per round (PCA at once, UMAP from the
cache), each Procrustes-aligned to the previous one, and where a snapshot's UMAP stands."""
from __future__ import annotations

import numpy as np
import streamlit as st

from app import service
from app.projection import cache as projection
from app.projection import maths


def frames(run_id: str, snap_rounds: tuple[int, ...], umap: bool) -> dict[int, np.ndarray]:
    """2-D positions per round, each Procrustes-aligned to the previous frame so points do not jump."""
    path, out, prev, prev_idx = service.run_path(run_id), {}, None, None
    for r in snap_rounds:
        snap = service.read_snapshot(run_id, r)
        xy = projection.umap_cached(path, r, len(snap["labels"])) if umap else maths.pca_2d(snap["embeddings"])
        if xy is None:
            continue
        if prev is not None and np.array_equal(prev_idx, snap["indices"]):
            xy = maths.procrustes_align(xy, prev)
        out[r], prev, prev_idx = xy, xy, snap["indices"]
    return out


pca_frames = st.cache_data(max_entries=64, show_spinner=False)(frames)


def class_names(run_id: str, n: int) -> list[str]:
    part = service.read_partition(run_id) or {}
    names = part.get("class_names") or []
    return list(names) if len(names) >= n else [str(i) for i in range(n)]


def shown_round(run_id: str, chosen: int) -> int:
    own = service.snapshot_rounds(run_id)
    return ([r for r in own if r <= chosen] or own)[-1]


def umap_state(run_id: str, r: int) -> str:
    """The snapshot's UMAP: ready, pending (being projected in the background; asked for here if
    never asked) or failed."""
    path = service.run_path(run_id)
    if projection.umap_ready(path, r):
        return "ready"
    if projection.umap_pending(path, r):
        return "pending"
    if service.is_recorded(run_id):
        return "unavailable"  # a recorded run is read-only: no UMAP job writes into it
    tried = st.session_state.setdefault("_umap_tried", set())
    if (run_id, r) not in tried:
        tried.add((run_id, r))
        projection.request_umap(path, r)
        return "pending"
    return "failed"


def projected_before(run_id: str, r: int) -> int | None:
    """The latest round up to ``r`` whose UMAP is ready (else the earliest ready one), or None."""
    path = service.run_path(run_id)
    ready = [q for q in service.snapshot_rounds(run_id) if projection.umap_ready(path, q)]
    before = [q for q in ready if q <= r]
    return before[-1] if before else (ready[0] if ready else None)
