"""Embedding-geometry metrics against hand-computed values and degenerate inputs."""
import math
import warnings

import numpy as np
import pytest
import torch

from fedquad_core.numerics.geometry import (
    cdnv_matrix,
    class_means,
    effective_rank,
    geometry_summary,
    inter_class_distance,
    intra_class_distance,
    nc1,
    per_class_intra,
    singular_values,
    stratified_subset,
)

# class 0: (0,0) (2,0) -> mu0 = (1,0), deviations (-1,0) (1,0)
# class 1: (1,3) (1,5) -> mu1 = (1,4), deviations (0,-1) (0,1)
Z = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 3.0], [1.0, 5.0]])
Y = np.array([0, 0, 1, 1])


def test_two_classes_by_hand():
    classes, means = class_means(Z, Y)
    np.testing.assert_array_equal(classes, [0, 1])
    np.testing.assert_array_equal(means, [[1, 0], [1, 4]])
    assert intra_class_distance(Z, Y) == 1.0  # every point is 1 from its mean
    np.testing.assert_array_equal(per_class_intra(Z, Y), [1.0, 1.0])
    assert inter_class_distance(Z, Y) == 4.0  # ||(1,0) - (1,4)||
    # Var_0 = Var_1 = (1 + 1) / 2 = 1 ; CDNV = (1 + 1) / (2 * 4^2) = 1/16, diagonal nan
    cdnv = cdnv_matrix(Z, Y)
    assert cdnv[0, 1] == cdnv[1, 0] == 1 / 16
    assert np.isnan(np.diag(cdnv)).all()
    # Sigma_W = (1/4)(diag(1,0)+diag(1,0)+diag(0,1)+diag(0,1)) = diag(.5,.5)
    # mu_G = (1,2); Sigma_B = (1/2)((0,-2)(0,-2)^T + (0,2)(0,2)^T) = diag(0,4); pinv = diag(0,1/4)
    # NC1 = (1/2) tr(diag(0, .125)) = 0.0625
    assert nc1(Z, Y) == pytest.approx(0.0625, abs=1e-12)


def test_singular_values_and_effective_rank_by_hand():
    # global mean (1,2); centred (-1,-2) (1,-2) (0,1) (0,3); cov = (1/4)[[2,0],[0,18]] = diag(.5, 4.5)
    s = singular_values(Z)
    np.testing.assert_allclose(s, [4.5, 0.5], atol=1e-12)
    # p = (.9, .1): exp(-(.9 ln .9 + .1 ln .1))
    expected = math.exp(-(0.9 * math.log(0.9) + 0.1 * math.log(0.1)))
    assert effective_rank(s) == pytest.approx(expected, abs=1e-12)


def test_effective_rank_of_equal_values_is_their_count():
    assert effective_rank([2.0, 2.0, 2.0, 0.0]) == pytest.approx(3.0, abs=1e-12)
    assert effective_rank(np.ones(7)) == pytest.approx(7.0, abs=1e-12)
    assert effective_rank([0.0, 0.0]) == 0.0


def test_summary_keys_types_and_l2_invariance():
    summary = geometry_summary(Z, Y)
    for key in ("intra", "inter", "ratio", "intra_l2", "inter_l2", "ratio_l2", "nc1", "effective_rank"):
        assert type(summary[key]) is float, key
    for key in ("per_class_intra", "cdnv", "singular_values"):
        assert isinstance(summary[key], np.ndarray), key
    assert summary["ratio"] == 0.25
    scaled = geometry_summary(5 * Z, Y)  # scaling changes distances, not the ratios
    assert scaled["intra"] == pytest.approx(5.0) and scaled["ratio"] == pytest.approx(0.25)
    assert scaled["ratio_l2"] == pytest.approx(summary["ratio_l2"])
    assert scaled["nc1"] == pytest.approx(summary["nc1"])


def test_l2_values_by_hand():
    # unit vectors: class 0 (1,0) (0,1) -> mu0 = (.5,.5); class 1 (-1,0) (0,-1) -> mu1 = (-.5,-.5)
    # intra = ||(.5,-.5)|| = sqrt(.5); inter = ||(1,1)|| = sqrt 2; ratio = 1/2; scaling rows leaves _l2 alike
    z = np.array([[3.0, 0.0], [0.0, 0.5], [-2.0, 0.0], [0.0, -7.0]])
    s = geometry_summary(z, Y)
    assert s["intra_l2"] == pytest.approx(math.sqrt(0.5)) and s["inter_l2"] == pytest.approx(math.sqrt(2))
    assert s["ratio_l2"] == pytest.approx(0.5)


def test_collapse_each_class_a_single_point():
    z = np.array([[1.0, 2.0]] * 3 + [[-1.0, 0.0]] * 2 + [[4.0, 4.0]] * 4)
    y = np.array([0] * 3 + [1] * 2 + [2] * 4)
    s = geometry_summary(z, y)
    assert s["intra"] == 0.0 and s["ratio"] == 0.0 and s["nc1"] == 0.0
    np.testing.assert_array_equal(s["per_class_intra"], [0, 0, 0])
    off_diagonal = s["cdnv"][~np.eye(3, dtype=bool)]
    np.testing.assert_array_equal(off_diagonal, 0.0)


def test_absent_classes_are_ignored_and_torch_accepted():
    y = np.array([0, 0, 7, 7])
    assert cdnv_matrix(Z, y).shape == (2, 2)
    np.testing.assert_array_equal(geometry_summary(Z, y)["classes"], [0, 7])
    from_torch = geometry_summary(torch.tensor(Z, dtype=torch.float32), torch.tensor(y))
    assert from_torch["ratio"] == pytest.approx(0.25)


@pytest.mark.parametrize(
    "z, y",
    [(Z, np.zeros(4, dtype=int)), (np.zeros((4, 3)), Y), (np.zeros((1, 3)), np.array([2]))],
    ids=["one-class", "all-zero", "one-sample"],
)
def test_degenerate_inputs_give_nan_not_errors(z, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from 0/0 either
        s = geometry_summary(z, y)
    assert math.isnan(s["inter"]) or s["inter"] == 0.0
    assert math.isnan(s["ratio"]) and math.isnan(s["ratio_l2"]) and math.isnan(s["nc1"])
    assert np.isfinite(s["intra"]) and np.isfinite(s["effective_rank"])


def test_bad_shapes_raise():
    with pytest.raises(ValueError):
        geometry_summary(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError):
        intra_class_distance(np.zeros((0, 2)), np.zeros(0))


def test_stratified_subset_proportions():
    labels = np.random.default_rng(0).permutation(np.repeat([0, 1, 2], [5000, 3000, 2000]))
    idx = stratified_subset(labels, 1000, seed=0)
    assert idx.size == 1000 and np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(np.bincount(labels[idx]), [500, 300, 200])
    np.testing.assert_array_equal(idx, stratified_subset(labels, 1000, seed=0))  # fixed
    assert not np.array_equal(idx, stratified_subset(labels, 1000, seed=1))
    # 7/7/7 into 10: exact shares 3.33 each, the remainder goes to the first class -> 4, 3, 3
    equal = np.repeat([0, 1, 2], 7)
    np.testing.assert_array_equal(np.bincount(equal[stratified_subset(equal, 10, seed=0)]), [4, 3, 3])
    np.testing.assert_array_equal(stratified_subset(equal, 50, seed=0), np.arange(21))


# ---- linear CKA ---------------------------------------------------------------------------------
from fedquad_core.numerics.geometry import linear_cka  # noqa: E402


def test_linear_cka_of_identical_embeddings_is_one():
    z = np.random.default_rng(0).normal(size=(50, 8))
    assert linear_cka(z, z) == pytest.approx(1.0)


def test_linear_cka_is_invariant_to_rotation_isotropic_scaling_and_shift():
    rng = np.random.default_rng(1)
    a, other = rng.normal(size=(40, 6)), rng.normal(size=(40, 6))
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))  # an orthogonal matrix
    assert linear_cka(a, 3.5 * a @ q + 7.0) == pytest.approx(1.0)
    assert linear_cka(a, other) == pytest.approx(linear_cka(a @ q, 0.2 * other @ q.T))
    assert linear_cka(a, other) < 0.5  # unrelated embeddings are far from 1


def test_linear_cka_by_hand():
    # a = [-1, 0, 1] (already centred), b = [[-1, 0], [0, 0], [1, 1]] centred: [[-1, -1/3], [0, -1/3], [1, 2/3]]
    # a^T b = [2, 1]: ||.||^2 = 5; a^T a = 2: ||.|| = 2; b^T b = [[2, 1], [1, 2/3]]: ||.|| = sqrt(4 + 2 + 4/9)
    a = np.array([[-1.0], [0.0], [1.0]])
    b = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    assert linear_cka(a, b) == pytest.approx(5 / (2 * math.sqrt(4 + 2 + 4 / 9)))


def test_linear_cka_of_constant_or_non_finite_embeddings_is_nan_and_bad_shapes_raise():
    z = np.random.default_rng(2).normal(size=(10, 3))
    assert math.isnan(linear_cka(np.ones((10, 3)), z))
    assert math.isnan(linear_cka(np.full((10, 3), np.nan), z))
    with pytest.raises(ValueError):
        linear_cka(z, z[:5])
