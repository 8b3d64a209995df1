"""The study's arithmetic the dashboard shows: the namespace ``fedquad_core.api.stats`` of the
engine's public surface. Pure functions of a study's numbers (torch-free): the Lesson, the figures
and the Explore page call these and compute no statistic of their own. Each name is typed and
documented at its definition; what each is for:

- **A comparison** (``study/table.py``): ``compare`` (two groups' per-seed values -> a ``Verdict``:
  paired on shared seeds, Welch otherwise, with the equivalence test at ``delta``; its states are
  ``Verdict.SEPARATED``, ``NEGLIGIBLE``, ``NOISE``, ``ONE_SEED``, ``NO_DATA``) and
  ``compare_summary`` (the same from means, stds and counts). ``smallest_effect`` is each
  measure's δ (``study/effects.py``).
- **A run's value and the pairing of runs**: ``run_value`` (one run's measure: its last value or
  the mean of its last rounds), ``seed_of`` (what pairs two runs), ``at_reference_samples`` (one
  run read at another's samples processed: the equal-samples rule for one pair),
  ``equal_samples_values`` (that rule for every seed of two groups of a study).
- **Matched accuracy** (``study/matched.py``): ``matched_accuracy``, ``matched_comparison``,
  ``accuracy_profile`` (a measure against test accuracy, so "less trained" and "collapsed" can be
  told apart).
- **A family of tests and the claims' rules**: ``paired`` (the paired t-test), ``holm`` (Holm's
  correction of a family's p values), ``judge`` (a claim's verdict from a ``Verdict``),
  ``pairable`` and ``row_key`` (which claims-table rows can be paired, and how one is keyed).
- **Geometry and partitions**: ``effective_rank``, ``singular_values`` (``numerics/geometry.py``,
  the figures' spectra), ``class_counts`` (a split's clients x classes sample counts,
  ``numerics/partition.py``) and ``hold_share`` (the share of its samples from which a client
  "holds" a class).

A name the app stops using leaves ``__all__`` (``tests/app/test_one_door.py`` checks the namespace
as it checks the API)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..config.holding import hold_share
from ..numerics import geometry as _geometry
from ..numerics import partition as _partition
from . import confirm as _confirm
from .claim_runs import run_value
from .confirm import equal_samples_values
from .effects import smallest_effect
from .matched import accuracy_profile, matched_accuracy, matched_comparison, seed_of
from .paper_claims import pairable, row_key
from .stats import holm, paired
from .table import compare, compare_summary
from .verdicts import judge


def effective_rank(s: np.ndarray | Sequence[float]) -> float:
    """The effective rank of a spectrum ``s`` (singular values): ``exp`` of the entropy of
    ``s / sum s`` (``numerics.geometry.effective_rank``, the measure every figure uses)."""
    return _geometry.effective_rank(s)


def singular_values(z: np.ndarray) -> np.ndarray:
    """The singular values of the covariance of the centred embeddings ``z`` (points x
    dimensions), in descending order (``numerics.geometry.singular_values``)."""
    return _geometry.singular_values(z)


def at_reference_samples(rows: list[dict], reference: list[dict], metric: str) -> float | None:
    """``metric`` of the run whose metrics rows are ``rows``, read where it had processed the
    samples the ``reference`` run had processed over its last rounds (interpolated in
    ``samples_total``, never extrapolated; None when it never got that far): the claims table's
    equal-samples rule for one pair of runs (``equal_samples_values`` for a study's seeds)."""
    return _confirm.at_samples(rows, metric, _confirm.reference_totals(reference, metric))


def class_counts(parts: Sequence[np.ndarray], labels: np.ndarray, num_classes: int) -> np.ndarray:
    """The (clients x classes) int64 sample counts of a split (``numerics.partition.class_counts``);
    ``ValueError`` when a label is outside ``[0, num_classes)``."""
    return _partition.class_counts(list(parts), labels, num_classes)


__all__ = [
    "compare", "compare_summary", "smallest_effect",
    "run_value", "seed_of", "at_reference_samples", "equal_samples_values",
    "matched_accuracy", "matched_comparison", "accuracy_profile",
    "paired", "holm", "judge", "pairable", "row_key",
    "effective_rank", "singular_values", "class_counts", "hold_share",
]
