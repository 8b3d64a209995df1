"""The smallest effect of interest δ of each measure: a difference smaller than δ is *negligible*
whether or not it is beyond seed noise, and "no difference" is said only when an equivalence test
(``stats.tost``) puts the difference inside ±δ. Chosen once per measure, each with its reason
(docs/verdicts.md), for every study alike; ``smallest_effect`` is the one place that reads them.

- **Accuracy** (test accuracy, a local model's accuracy): **1 point**. Gains under 1 point are
  not reported as improvements in this field (the paper's own gaps are 6 points and more), and 1
  point is the plateau rule's unit (``plateau``).
- **Linear CKA** (local vs global): **0.02**, 2 % of its 0-1 scale; the drift the paper calls
  "inconsistent representations" is a drop an order of magnitude larger.
- **Effective rank** (global or local, entropy of σ²): **0.5**, half of one of the directions the
  rank counts: less is not a direction gained or lost.
- **Distances and ratios** (intra-class, inter-class, their ratio; L2-normalised or not):
  **5 % of the reference group's mean**: they have no natural unit (a rescaled embedding rescales
  them), so the margin is a share, and 5 % is the usual margin for a relative measure.
- **Cosine between clients' updates**: **0.02**, as CKA (a similarity on a bounded scale).

The numbers live in the one table of measures (``fedquad_core.vocab.metrics``: ``delta``,
``relative``); the tables below are read from it, and δ is written by ``vocab.words.delta_words``.
"""
from __future__ import annotations

from ..vocab.metrics import METRICS
from ..vocab.words import delta_words

ABSOLUTE = {m.name: m.delta for m in METRICS.values() if m.delta is not None}
RELATIVE = {m.name: m.relative for m in METRICS.values() if m.relative is not None}
ACCURACY = {m.name for m in METRICS.values() if m.accuracy}


def smallest_effect(metric: str, reference_mean: float | None = None) -> float | None:
    """δ for ``metric`` (a fraction for accuracies, the measure's own unit otherwise); for a
    distance or ratio, its share of ``reference_mean`` (the group compared against). None for a
    measure without one (no equivalence verdict is given)."""
    if metric in ABSOLUTE:
        return ABSOLUTE[metric]
    if metric in RELATIVE and reference_mean is not None:
        return RELATIVE[metric] * abs(float(reference_mean))
    return None


effect_text = delta_words  # the name earlier code used: ``1 point``, ``0.5``, ``0.014 (5 % of the reference)``
