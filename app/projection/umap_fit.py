"""One UMAP fit with the project's fixed parameters, and numba's on-disk cache for it.

umap-learn and pynndescent decorate most of their numba functions without ``cache=True``, so
every new process compiles them again (15-50 s on 2 cores, measured in
``benchmarks/umap_ready.py``). ``enable_numba_cache`` makes ``cache=True`` the default of
``numba.njit`` / ``numba.jit`` before umap is imported, so a process finds the machine code
that an earlier one left in ``NUMBA_CACHE`` (keyed by source file and its timestamp, so an
upgrade of umap recompiles). Call it before the first ``import umap`` of the process; once
umap is imported it changes nothing. Only the app's projection processes call it: the
Streamlit process never imports umap.
"""
from __future__ import annotations

import functools
import os
import time
import warnings
from pathlib import Path

import numpy as np

from app.projection.maths import pca_2d
from fedquad_core.api import unsafe_folder

NUMBA_CACHE = Path.home() / ".cache" / "fedquad-numba"
UMAP_PARAMS = dict(n_neighbors=15, min_dist=0.1, random_state=0, n_jobs=1)
# Below this many points umap-learn finds exact neighbours from the full distance matrix, which
# it fills through sklearn with its numba metric as a Python callable: one call per pair
# (about 1 s of a 2 s fit of 400 points, most of a 7 s fit of 2,000). We hand it the same
# Euclidean matrix computed by numpy (metric="precomputed"): same neighbours, 2-3x faster fit.
EXACT_BELOW = 4096


def _cached_by_default(decorator):
    @functools.wraps(decorator)
    def wrapped(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:  # bare @njit
            return decorator(cache=True)(args[0])
        kwargs.setdefault("cache", True)
        return decorator(*args, **kwargs)
    wrapped.fedquad_cached = True
    return wrapped


def private_dir(path: str | os.PathLike) -> Path | None:
    """``path`` as a folder only this user can change (created with mode 0700), or None when it is
    a symbolic link, not a folder, owned by someone else, or writable by the group or others, or a
    folder above it is (``unsafe_folder``, the one rule, also for the export browser): numba
    unpickles its cache index files, so a cache others can write could run their code."""
    return None if unsafe_folder(path, create=True) else Path(path)


def enable_numba_cache(cache_dir: str | os.PathLike | None = None) -> bool:
    """Point numba at an on-disk cache in a private folder and make ``cache=True`` its default
    (idempotent). Returns False, and leaves caching off, when the folder is not private."""
    folder = private_dir(cache_dir or os.environ.get("NUMBA_CACHE_DIR") or NUMBA_CACHE)
    if folder is None:
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    # after NUMBA_CACHE_DIR is set: numba reads it once, at import
    import numba
    from numba.core.errors import NumbaWarning

    # a function numba cannot cache (dynamic globals) still works: it just compiles each time
    warnings.filterwarnings("ignore", message=".*[Cc]annot cache.*", category=NumbaWarning)
    for name in ("njit", "jit"):
        if not getattr(getattr(numba, name), "fedquad_cached", False):
            setattr(numba, name, _cached_by_default(getattr(numba, name)))
    return True


def compute_umap(z) -> np.ndarray:
    """UMAP of ``z`` to 2-D with the fixed parameters (PCA below 4 points, where UMAP cannot work)."""
    if len(z) < 4:
        return pca_2d(z)
    z = np.asarray(z, dtype=np.float32).reshape(len(z), -1)
    params = {**UMAP_PARAMS, "n_neighbors": min(UMAP_PARAMS["n_neighbors"], len(z) - 1)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportWarning)  # "Tensorflow not installed"
        warnings.filterwarnings("ignore", message="using precomputed metric")  # no inverse_transform: fine
        import umap  # 16 s to import (measured): only in the process that fits a layout

        if len(z) < EXACT_BELOW:  # umap's own exact path, minus its Python loop over the pairs
            from sklearn.metrics import pairwise_distances  # 1.0 s to import (measured): only for a small fit

            dist = pairwise_distances(z.astype(np.float64), metric="euclidean")
            return umap.UMAP(**params, metric="precomputed").fit_transform(dist).astype(np.float32)
        return umap.UMAP(**params).fit_transform(z).astype(np.float32)


def warm() -> float:
    """Compile (or load from the cache) UMAP's numba code on tiny data; the seconds it took."""
    t0 = time.perf_counter()
    compute_umap(np.random.default_rng(0).normal(size=(64, 8)).astype(np.float32))
    return time.perf_counter() - t0
