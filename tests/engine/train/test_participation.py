"""Clients per round: FedAvg's rule m = max(floor(C*K), 1) (McMahan et al. 2017, Algorithm 1)."""
import math

import numpy as np
import pytest

from fedquad_core.train.rounds import clients_per_round, sample_clients


@pytest.mark.parametrize("k,p,m", [
    (10, 0.25, 2),   # 2.5 -> 2 (round() also gives 2, half to even)
    (10, 0.35, 3),   # 3.5 -> 3 (round() gives 4)
    (10, 0.29, 2),   # 2.9 -> 2 (round() gives 3)
    (10, 0.3, 3), (100, 0.29, 29), (100, 0.07, 7),  # float products just below an integer count in full
    (10, 0.01, 1), (3, 0.1, 1),  # never fewer than one client
    (10, 1.0, 10), (200, 0.05, 10), (7, 0.5, 3),
])
def test_published_rule(k, p, m):
    assert clients_per_round(k, p) == m


def test_rule_over_a_grid_against_exact_fractions():
    from fractions import Fraction

    for k in range(1, 61):
        for pct in range(1, 101):
            exact = max(1, math.floor(Fraction(pct, 100) * k))
            assert clients_per_round(k, pct / 100) == exact, (k, pct)


def test_sampled_clients_are_distinct_and_as_many_as_the_rule_says():
    rng = np.random.default_rng(0)
    chosen = sample_clients(10, 0.35, rng)
    assert len(chosen) == 3 == len(set(chosen.tolist()))
