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
"""
from __future__ import annotations

ABSOLUTE = {"final_acc": 0.01, "best_acc": 0.01, "test_accuracy": 0.01, "local_acc_all": 0.01,
            "local_acc_own": 0.01, "local_acc_own_any": 0.01, "local_cka": 0.02, "update_cosine": 0.02,
            "effective_rank": 0.5, "local_effective_rank": 0.5}
RELATIVE = {"intra_l2": 0.05, "inter_l2": 0.05, "intra": 0.05, "inter": 0.05, "ratio": 0.05, "ratio_l2": 0.05,
            "final_ratio": 0.05, "final_ratio_l2": 0.05, "local_ratio": 0.05}
ACCURACY = {"final_acc", "best_acc", "test_accuracy", "local_acc_all", "local_acc_own", "local_acc_own_any"}


def smallest_effect(metric: str, reference_mean: float | None = None) -> float | None:
    """δ for ``metric`` (a fraction for accuracies, the measure's own unit otherwise); for a
    distance or ratio, its share of ``reference_mean`` (the group compared against). None for a
    measure without one (no equivalence verdict is given)."""
    if metric in ABSOLUTE:
        return ABSOLUTE[metric]
    if metric in RELATIVE and reference_mean is not None:
        return RELATIVE[metric] * abs(float(reference_mean))
    return None


def effect_text(metric: str, delta: float | None) -> str:
    """δ in words: ``1 point``, ``0.02``, ``0.5``, ``0.014 (5 % of the reference)``."""
    if delta is None:
        return "-"
    if metric in ACCURACY:
        return f"{delta * 100:g} point" + ("" if delta == 0.01 else "s")
    if metric in RELATIVE:
        return f"{delta:.3f} ({RELATIVE[metric] * 100:g} % of the reference)"
    return f"{delta:g}"
