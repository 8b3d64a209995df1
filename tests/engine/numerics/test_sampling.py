"""Invariants of FedQuad's class-aware quadruplet sampling over many seeds and imbalanced clients."""
import numpy as np
import pytest

from fedquad_core.numerics.sampling import QuadrupletBatch, client_quadruplet_mode, sample_quadruplets

SEEDS = range(30)


def _imbalanced_labels(seed):
    """Random client: 3-12 classes with power-law sizes, always one 1-sample and one 2-sample class."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 13))
    sizes = np.maximum(1, (rng.pareto(1.0, size=k) * 20).astype(int))
    sizes[0], sizes[1] = 1, 2
    labels = np.repeat(rng.permutation(50)[:k], sizes)
    return rng.permutation(labels)


@pytest.mark.parametrize("seed", SEEDS)
def test_quadruplet_invariants(seed):
    labels = _imbalanced_labels(seed)
    batch = sample_quadruplets(labels, 500, rng=np.random.default_rng(seed))
    assert batch.mode == "quadruplet" and len(batch) == 500
    for arr in (batch.a, batch.p, batch.n1, batch.n2):
        assert arr.shape == (500,) and arr.dtype == np.int64
        assert arr.min() >= 0 and arr.max() < labels.size
    ya, yp, y1, y2 = (labels[i] for i in (batch.a, batch.p, batch.n1, batch.n2))
    assert np.all(yp == ya)
    assert np.all(batch.a != batch.p)
    assert np.all((ya != y1) & (ya != y2) & (y1 != y2))  # three distinct classes
    values, counts = np.unique(labels, return_counts=True)
    assert not np.isin(ya, values[counts == 1]).any()  # a 1-sample class is never an anchor


def test_rare_classes_appear_at_the_uniform_class_rate():
    sizes = [600, 300, 50, 30, 18, 2]  # 1000 samples; class 5 has 2 samples
    labels = np.random.default_rng(0).permutation(np.repeat(np.arange(6), sizes))
    num = 6000
    rates = {"anchor": [], "n1": [], "n2": []}
    for seed in SEEDS:
        b = sample_quadruplets(labels, num, rng=np.random.default_rng(seed))
        rates["anchor"].append(np.mean(labels[b.a] == 5))
        rates["n1"].append(np.mean(labels[b.n1] == 5))
        rates["n2"].append(np.mean(labels[b.n2] == 5))
        # every class, rare or not, is an anchor about 1/6 of the time
        anchor_share = np.bincount(labels[b.a], minlength=6) / num
        np.testing.assert_allclose(anchor_share, 1 / 6, atol=0.025)
    # by symmetry each class is n1 (and n2) with probability (5/6) * (1/5) = 1/6
    for role, values in rates.items():
        assert abs(np.mean(values) - 1 / 6) < 0.01, role


def test_singleton_class_is_a_negative_but_never_an_anchor():
    labels = np.array([0] * 10 + [1] * 10 + [2])
    b = sample_quadruplets(labels, 3000, rng=np.random.default_rng(1))
    assert not np.any(labels[b.a] == 2)
    assert np.mean((labels[b.n1] == 2) | (labels[b.n2] == 2)) == 1.0  # 3 classes: it is always one of them
    only_one_eligible = np.array([0, 0, 1, 2])
    b = sample_quadruplets(only_one_eligible, 100, rng=np.random.default_rng(2))
    assert b.mode == "quadruplet"
    assert set(only_one_eligible[b.a].tolist()) == {0}
    assert set(zip(only_one_eligible[b.n1], only_one_eligible[b.n2])) == {(1, 2), (2, 1)}


def test_two_class_fallback_is_triplet():
    labels = np.array([3, 3, 3, 7, 3])
    b = sample_quadruplets(labels, 200, rng=np.random.default_rng(0))
    assert b.mode == "triplet" and b.n2 is None and len(b) == 200
    assert np.all(labels[b.a] == 3) and np.all(labels[b.p] == 3) and np.all(labels[b.n1] == 7)
    assert np.all(b.a != b.p)
    assert client_quadruplet_mode(labels) == "triplet"


@pytest.mark.parametrize("labels", [[4, 4, 4], [0, 1, 2], [5], []])
def test_no_quadruplet_possible_gives_ce_only(labels):
    b = sample_quadruplets(np.array(labels, dtype=int), 50, rng=np.random.default_rng(0))
    assert b.mode == "none" and len(b) == 0 and b.n2 is None
    assert b.a.size == b.p.size == b.n1.size == 0
    assert client_quadruplet_mode(labels) == "none"


def test_mode_helper_matches_sampler():
    assert client_quadruplet_mode([0, 0, 1, 2]) == "quadruplet"
    assert client_quadruplet_mode(np.array(["x", "x", "y"])) == "triplet"
    for seed in SEEDS:
        labels = _imbalanced_labels(seed)
        assert client_quadruplet_mode(labels) == sample_quadruplets(labels, 1, rng=np.random.default_rng(0)).mode


def test_deterministic_for_a_given_rng_state():
    labels = _imbalanced_labels(3)
    for seed in SEEDS:
        x = sample_quadruplets(labels, 100, rng=np.random.default_rng(seed))
        y = sample_quadruplets(labels, 100, rng=np.random.default_rng(seed))
        z = sample_quadruplets(labels, 100, rng=np.random.default_rng(seed + 100))
        for f in ("a", "p", "n1", "n2"):
            np.testing.assert_array_equal(getattr(x, f), getattr(y, f))
        assert not np.array_equal(x.a, z.a)


def test_zero_and_negative_num():
    b = sample_quadruplets(np.array([0, 0, 1, 2]), 0, rng=np.random.default_rng(0))
    assert isinstance(b, QuadrupletBatch) and b.mode == "quadruplet" and len(b) == 0 and b.n2.size == 0
    with pytest.raises(ValueError):
        sample_quadruplets(np.array([0, 0, 1, 2]), -1, rng=np.random.default_rng(0))


def test_two_classes_of_one_sample_each_count_as_ce_only_in_rounds_and_partition():
    """No anchor-positive pair: CE only, though two classes are present. The per-round counter
    and partition.json's field use the same definition."""
    from fedquad_core.methods import ClientContext
    from fedquad_core.methods.fedquad import FedQuad, FedQuadParams
    from fedquad_core.numerics.sampling import quadruplet_mode_from_counts

    cases = {(0, 1): "clients_ce_only", (0, 1, 2): "clients_ce_only", (3,): "clients_ce_only",
             (0, 0, 1): "clients_no_second_negative", (0, 0, 1, 2): None}
    for labels, counter in cases.items():
        ctx = ClientContext(client_id=0, round=1, labels=np.array(labels), num_classes=4,
                            rng=np.random.default_rng(0), global_model=None, state={}, num_steps=2)
        obj = FedQuad(FedQuadParams(), ctx)
        obj.setup()
        counts = obj.counters()
        assert {k for k, v in counts.items() if v} == ({counter} if counter else set()), labels
        row = np.bincount(labels, minlength=4)
        expect = {"clients_ce_only": "none", "clients_no_second_negative": "triplet", None: "quadruplet"}[counter]
        assert quadruplet_mode_from_counts(row) == expect
        assert (obj.extra_indices(0) is None) == (counter == "clients_ce_only")  # CE only: no tuple rows
