"""Geometry of an embedding space: how tight and how separated the classes are, and how many
directions the embeddings use. Computed in the original feature space (never on a 2-D UMAP view).

* intra / inter-class distances and their ratio (lower = tighter, better separated classes);
* CDNV, class-distance normalised variance (Galanti, Gyorgy, Hutter, ICLR 2022);
* NC1 = (1/C) tr(Sigma_W Sigma_B^+), neural collapse (Papyan, Han, Donoho, PNAS 2020), with the
  global mean taken as the mean of the class means (Papyan's balanced definition);
* singular values of the embedding covariance and their effective rank (Roy & Vetterli 2007), the
  dimensional-collapse view of FedDecorr (Shi et al., ICLR 2023);
* linear CKA between two embeddings of the same points (Kornblith et al., ICML 2019): 1 for
  the same representation up to rotation and isotropic scaling, near 0 for unrelated ones.

Only the classes present in ``y`` count; per-class arrays follow ``np.unique(y)``. Degenerate inputs
never raise or warn: a quantity that needs two distinct class means (inter, ratio, NC1, off-diagonal
CDNV of coinciding means) is ``nan`` when it is undefined; the CDNV diagonal is ``nan``; the
effective rank of an all-zero spectrum is ``0.0``. Covariances divide by the number of samples.
``geometry_summary`` of embeddings that are not all finite (a diverged model) returns ``nan``
everywhere instead of raising, and never warns on overflow.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "class_means", "intra_class_distance", "inter_class_distance", "per_class_intra", "cdnv_matrix",
    "nc1", "singular_values", "effective_rank", "linear_cka", "geometry_summary", "stratified_subset",
]


def _as_numpy(x) -> np.ndarray:
    if hasattr(x, "detach"):  # torch tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _prepare(z, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Embeddings as float64 (N, d); classes present, each sample's class position, class sizes."""
    z, y = _as_numpy(z).astype(np.float64), _as_numpy(y).ravel()
    if z.ndim == 0 or len(z) == 0 or len(z) != y.size:
        raise ValueError(f"need as many labels as (>= 1) embeddings, got {z.shape} and {y.size}")
    z = z.reshape(len(z), -1)
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    return z, classes, inverse, counts


def _means(z, inverse, counts) -> np.ndarray:
    sums = np.zeros((counts.size, z.shape[1]))
    np.add.at(sums, inverse, z)
    return sums / counts[:, None]


def class_means(z, y) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, means)``: the classes present in ``y`` and their mean embeddings ``(C, d)``."""
    z, classes, inverse, counts = _prepare(z, y)
    return classes, _means(z, inverse, counts)


def _distances_to_mean(z, inverse, counts) -> np.ndarray:
    return np.linalg.norm(z - _means(z, inverse, counts)[inverse], axis=1)


def intra_class_distance(z, y) -> float:
    """Mean over samples of ``||z_i - mu_{y_i}||``."""
    z, _, inverse, counts = _prepare(z, y)
    return float(_distances_to_mean(z, inverse, counts).mean())


def per_class_intra(z, y) -> np.ndarray:
    """Mean ``||z_i - mu_c||`` for each class present, in ``np.unique(y)`` order."""
    z, _, inverse, counts = _prepare(z, y)
    return np.bincount(inverse, weights=_distances_to_mean(z, inverse, counts)) / counts


def _pairwise_mean_distances(means: np.ndarray) -> np.ndarray:
    return np.linalg.norm(means[:, None, :] - means[None, :, :], axis=2)


def inter_class_distance(z, y) -> float:
    """Mean over class pairs of ``||mu_c - mu_c'||``; ``nan`` with fewer than two classes."""
    z, _, inverse, counts = _prepare(z, y)
    if counts.size < 2:
        return float("nan")
    dist = _pairwise_mean_distances(_means(z, inverse, counts))
    return float(dist[np.triu_indices(counts.size, k=1)].mean())


def cdnv_matrix(z, y) -> np.ndarray:
    """``(Var_c + Var_c') / (2 ||mu_c - mu_c'||^2)``; ``Var_c`` = mean squared distance to ``mu_c``.

    The diagonal is ``nan``; coinciding means give ``inf`` (or ``nan`` if both variances are 0).
    """
    z, _, inverse, counts = _prepare(z, y)
    means = _means(z, inverse, counts)
    var = np.bincount(inverse, weights=((z - means[inverse]) ** 2).sum(axis=1)) / counts
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (var[:, None] + var[None, :]) / (2 * _pairwise_mean_distances(means) ** 2)
    np.fill_diagonal(out, np.nan)
    return out


def nc1(z, y) -> float:
    """``(1/C) tr(Sigma_W Sigma_B^+)``; ``nan`` with fewer than two classes or coinciding means."""
    z, _, inverse, counts = _prepare(z, y)
    means = _means(z, inverse, counts)
    between = means - means.mean(axis=0)
    sigma_b = between.T @ between / counts.size
    if counts.size < 2 or not np.trace(sigma_b) > 0:
        return float("nan")
    within = z - means[inverse]
    sigma_w = within.T @ within / z.shape[0]
    return float(np.trace(sigma_w @ np.linalg.pinv(sigma_b, hermitian=True)) / counts.size)


def singular_values(z) -> np.ndarray:
    """Singular values of the covariance of the centred embeddings, in descending order."""
    z = _as_numpy(z).astype(np.float64)
    z = z.reshape(z.shape[0], -1)
    centred = z - z.mean(axis=0)
    cov = centred.T @ centred / z.shape[0]
    return np.linalg.svd(cov, compute_uv=False, hermitian=True)


def effective_rank(s) -> float:
    """``exp(-sum p_k log p_k)`` with ``p = s / sum s``, zeros ignored; ``0.0`` if all are zero."""
    s = np.abs(_as_numpy(s).astype(np.float64).ravel())
    s = s[s > 0]
    if s.size == 0:
        return 0.0
    p = s / s.sum()
    return float(np.exp(-(p * np.log(p)).sum()))


def linear_cka(a, b) -> float:
    """Linear CKA ``||A^T B||_F^2 / (||A^T A||_F ||B^T B||_F)`` of the column-centred ``(n, d1)``
    and ``(n, d2)`` embeddings of the same ``n`` points; ``nan`` when either is constant (or not
    finite)."""
    a = _as_numpy(a).astype(np.float64)
    b = _as_numpy(b).astype(np.float64)
    a, b = a.reshape(len(a), -1), b.reshape(len(b), -1)
    if len(a) != len(b) or len(a) == 0:
        raise ValueError(f"need embeddings of the same (>= 1) points, got {a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("nan")
    a, b = a - a.mean(axis=0), b - b.mean(axis=0)
    with np.errstate(all="ignore"):
        cross = np.linalg.norm(a.T @ b) ** 2
        norm = np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b)
        return float(cross / norm) if norm > 0 and np.isfinite(norm) else float("nan")


def _l2_normalise(z: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return np.divide(z, norms, out=np.zeros_like(z), where=norms > 0)


def _ratio(intra: float, inter: float) -> float:
    return intra / inter if inter > 0 else float("nan")  # nan > 0 is False, too


_SCALARS = ("intra", "inter", "ratio", "intra_l2", "inter_l2", "ratio_l2", "nc1", "effective_rank")


def _undefined(classes: np.ndarray, dim: int) -> dict:
    c = classes.size
    return {"classes": classes, **{k: float("nan") for k in _SCALARS}, "per_class_intra": np.full(c, np.nan),
            "cdnv": np.full((c, c), np.nan), "singular_values": np.full(dim, np.nan)}


def geometry_summary(z, y) -> dict:
    """All metrics at once: floats for the scalars, arrays for the per-class / spectrum views.
    Never raises on degenerate embeddings (NaN/inf, all equal, one class, one sample)."""
    z, classes, _, _ = _prepare(z, y)
    if not np.isfinite(z).all():
        return _undefined(classes, z.shape[1])
    y = _as_numpy(y).ravel()
    with np.errstate(all="ignore"):  # huge finite values may overflow to inf: the result says nan
        try:
            z_l2 = _l2_normalise(z)
            out = {"classes": classes}
            for suffix, emb in (("", z), ("_l2", z_l2)):
                intra, inter = intra_class_distance(emb, y), inter_class_distance(emb, y)
                out.update({f"intra{suffix}": intra, f"inter{suffix}": inter, f"ratio{suffix}": _ratio(intra, inter)})
            s = singular_values(z)
            out.update(nc1=nc1(z, y), effective_rank=effective_rank(s), per_class_intra=per_class_intra(z, y),
                       cdnv=cdnv_matrix(z, y), singular_values=s)
        except np.linalg.LinAlgError:  # e.g. an overflowed covariance
            return _undefined(classes, z.shape[1])
    return out


def stratified_subset(labels, max_points: int, *, seed: int) -> np.ndarray:
    """Sorted indices of a fixed class-stratified subset of at most ``max_points`` samples.

    Each class gets ``max_points * n_c / N`` samples, rounded by largest remainder (ties to the
    first class); all indices when ``max_points >= N``.
    """
    labels = _as_numpy(labels).ravel()
    if max_points < 0:
        raise ValueError(f"max_points must be >= 0, got {max_points}")
    if max_points >= labels.size:
        return np.arange(labels.size, dtype=np.int64)
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    exact = counts * max_points / labels.size
    quota = np.floor(exact).astype(np.int64)
    extra = np.argsort(-(exact - quota), kind="stable")[: max_points - quota.sum()]
    quota[extra] += 1
    rng = np.random.default_rng(seed)
    chosen = [rng.choice(np.flatnonzero(inverse == c), size=q, replace=False) for c, q in enumerate(quota)]
    return np.sort(np.concatenate(chosen)).astype(np.int64)
