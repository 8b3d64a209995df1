"""geometry_summary keeps its promise on degenerate embeddings: it returns (nan where a measure is
undefined) and never raises or warns — a diverged model's snapshot must not crash the run."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from fedquad_core.numerics.geometry import geometry_summary

Y6 = np.array([0, 0, 1, 1, 2, 2])
SCALARS = ("intra", "inter", "ratio", "intra_l2", "inter_l2", "ratio_l2", "nc1", "effective_rank")
CASES = {
    "all-nan": (np.full((6, 4), np.nan), Y6),
    "all-inf": (np.full((6, 4), np.inf), Y6),
    "one-inf": (np.r_[np.full((1, 4), -np.inf), np.ones((5, 4))], Y6),
    "one-nan": (np.r_[np.full((1, 4), np.nan), np.random.default_rng(0).normal(size=(5, 4))], Y6),
    "overflowing": (np.full((6, 4), 1.7e308) * np.array([1, -1, 1, -1, 1, -1])[:, None], Y6),
    "all-equal": (np.ones((6, 4)), Y6),
    "all-zero": (np.zeros((6, 4)), Y6),
    "one-class": (np.random.default_rng(1).normal(size=(6, 4)), np.zeros(6, int)),
    "one-sample": (np.random.default_rng(2).normal(size=(1, 4)), np.zeros(1, int)),
    "float32-nan": (np.full((6, 3), np.nan, np.float32), Y6),
}


@pytest.mark.parametrize("name", list(CASES))
def test_degenerate_embeddings_never_raise_or_warn(name):
    z, y = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = geometry_summary(z, y)
    for key in SCALARS:
        assert isinstance(out[key], float), (key, out[key])
    c = len(np.unique(y))
    assert out["per_class_intra"].shape == (c,) and out["cdnv"].shape == (c, c)
    if not np.isfinite(z).all():
        assert all(math.isnan(out[k]) for k in SCALARS)
    if c < 2:
        assert math.isnan(out["ratio"]) and math.isnan(out["nc1"])


def test_healthy_embeddings_still_get_finite_numbers():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(30, 5)) + np.repeat(np.eye(5)[:3] * 4, 10, axis=0)
    out = geometry_summary(z, np.repeat([0, 1, 2], 10))
    assert all(math.isfinite(out[k]) for k in SCALARS)
    assert 0 < out["ratio"] < 1
