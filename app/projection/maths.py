"""The pure maths of a 2-D picture of a snapshot: PCA (instant) and Procrustes alignment, so
consecutive rounds do not spin or mirror. No files, no processes (``app.projection.cache``)."""
from __future__ import annotations

import numpy as np


def pca_2d(z) -> np.ndarray:
    """(n, 2) float32 PCA projection; each axis signed so its largest loading is positive."""
    # only when an embedding is drawn: sklearn.decomposition is 1.1 s to import (measured), off the first page
    from sklearn.decomposition import PCA

    z = np.asarray(z, dtype=np.float64).reshape(len(z), -1)
    out = np.zeros((len(z), 2), dtype=np.float32)
    k = min(2, z.shape[1], max(len(z) - 1, 0))
    if k == 0:
        return out
    pca = PCA(n_components=k, svd_solver="full").fit(z)
    signs = np.sign(pca.components_[np.arange(k), np.abs(pca.components_).argmax(axis=1)])
    out[:, :k] = pca.transform(z) * np.where(signs == 0, 1, signs)
    return out


def procrustes_align(xy, ref) -> np.ndarray:
    """``xy`` rotated / reflected / uniformly scaled and shifted onto ``ref`` (rows correspond).

    Orthogonal Procrustes: R = U V^T from the SVD of X^T Y of the centred sets, scale
    trace(S) / ||X||^2. ``ref`` None returns ``xy`` unchanged.
    """
    xy = np.asarray(xy, dtype=np.float64)
    if ref is None:
        return xy.astype(np.float32)
    ref = np.asarray(ref, dtype=np.float64)
    if xy.shape != ref.shape:
        raise ValueError(f"procrustes_align needs corresponding points: {xy.shape} vs {ref.shape}")
    mx, mr = xy.mean(axis=0), ref.mean(axis=0)
    x, r = xy - mx, ref - mr
    norm = float((x ** 2).sum())
    if norm == 0.0:
        return np.broadcast_to(mr, xy.shape).astype(np.float32)
    u, s, vt = np.linalg.svd(x.T @ r)
    return ((s.sum() / norm) * x @ (u @ vt) + mr).astype(np.float32)
