"""The holding rule's share, importable without torch (``train/local_metrics.py``, which applies the
rule, pulls torch in), so the dashboard can print "each ≥ 2 % of its data" before any torch import.
``tests/engine/train/test_local_metrics.py`` checks it against the rule the runs apply."""
from __future__ import annotations

HOLD_OF_EVEN = 5  # a class is a client's own from 1/5 of an even share of its samples


def hold_share(n_classes: int) -> float:
    """The share of a client's samples from which a class is its own: 0.02 with 10 classes."""
    return 1.0 / (HOLD_OF_EVEN * n_classes)
