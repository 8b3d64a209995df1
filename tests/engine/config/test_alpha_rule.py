"""The one α rule (``config.alpha``'s docstring), shared by the check and the partition: over one
table of inputs, ``alpha_kind`` says what the partition does (IID split, Dirichlet draw, refusal),
and the configuration check accepts exactly the IID spelled None and the Dirichlet α float32 holds."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fedquad_core.config.alpha import ALPHA_STEPS, DIRICHLET, IID, alpha_kind, alpha_problem, parse_alpha
from fedquad_core.numerics.partition import PartitionError, dirichlet_partition, iid_partition, partition

LABELS = np.arange(300) % 3
# (α, what it means, whether a configuration may hold it)
TABLE = [(None, IID, True), (math.inf, IID, False), (0.5, DIRICHLET, True), (0.01, DIRICHLET, True),
         (100.0, DIRICHLET, True), (3, DIRICHLET, True), (1e-30, DIRICHLET, True), (0.0, None, False),
         (-1.0, None, False), (-math.inf, None, False), (math.nan, None, False), ("0.5", None, False)]


def _same(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("alpha, kind, allowed", TABLE)
def test_check_and_partition_follow_one_rule(alpha, kind, allowed):
    assert alpha_kind(alpha) == kind
    assert (alpha_problem(alpha) is None) == allowed
    if kind == IID:
        assert _same(partition(LABELS, 4, alpha, seed=1, min_size=5), iid_partition(LABELS, 4, seed=1, min_size=5))
    elif kind == DIRICHLET and alpha >= 0.01:  # a draw the 300 points can satisfy
        assert _same(partition(LABELS, 4, alpha, seed=1, min_size=5),
                     dirichlet_partition(LABELS, 4, alpha, seed=1, min_size=5))
    elif kind is None:
        with pytest.raises((PartitionError, TypeError)):
            partition(LABELS, 4, alpha, seed=1, min_size=5)


def test_every_offered_step_is_an_allowed_draw_and_inf_points_to_iid():
    assert all(alpha_kind(a) == DIRICHLET and alpha_problem(a) is None for a in ALPHA_STEPS)
    assert "--iid" in alpha_problem(math.inf)  # +∞ means IID: a configuration says so with None
    assert parse_alpha("inf") is None and alpha_kind(parse_alpha("inf")) == IID


def test_the_partitions_one_leniency_is_named():
    """A bool is no α (the check refuses it); the partition, part of the fingerprint, reads Python's
    True as the int 1, so it would draw with α = 1: stated in config.alpha, pinned here."""
    assert alpha_kind(True) is None and "number or IID" in alpha_problem(True)
    assert _same(partition(LABELS, 4, True, seed=1, min_size=5), dirichlet_partition(LABELS, 4, 1.0, seed=1, min_size=5))
