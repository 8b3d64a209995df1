"""The measures, one row each: what every table, figure, claim, command and page calls a measure,
how its numbers are written and its smallest effect of interest δ. Adding a measure is one row in
``METRICS``; the readers derive their tables from it (``column_labels``, ``axis_titles``, ...).

A measure is named in four registers, each for one kind of place (``None``: the place does not
show the measure and prints its name as it is):

- ``label``: the long name, in the claims table ("global effective rank (entropy of σ²)");
- ``short``: a column head of ``fedquad study show`` ("eff. rank"; the command offers the
  measures of the study table, ``study.table.METRICS``);
- ``axis``: a figure's axis or colour-bar title ("eff. rank (σ²)"); ``chart`` where the live
  charts, whose titles already say which ratio, use a shorter one ("intra / inter"); ``title``
  in the Clients page's figures, where a measure's name is a trace's name and a title
  ("local accuracy, all classes");
- ``words``: a sentence of the Lesson ("global effective rank").

δ, the smallest effect of interest, is ``delta`` in the measure's unit (a fraction for
accuracies) or, for a measure without a natural unit (distances, ratios), ``relative``: a share of
the reference group's mean. Why each δ is what it is: ``fedquad_core/study/effects.py`` and
docs/verdicts.md. ``source``: where the number is computed. Torch-free, imports nothing of the
engine."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str
    label: str | None = None
    short: str | None = None
    axis: str | None = None
    words: str | None = None
    chart: str | None = None
    title: str | None = None
    unit: str = ""          # "%": a fraction written as a percentage (scale 100), δ in points
    spec: str = ".2f"       # the format of one value (after the unit's scale)
    delta: float | None = None
    relative: float | None = None
    source: str = ""

    @property
    def scale(self) -> float:
        return 100.0 if self.unit == "%" else 1.0

    @property
    def accuracy(self) -> bool:
        return self.unit == "%"

    def text(self, value: float) -> str:
        """One value in the measure's format (an accuracy as its percentage, without the sign)."""
        return format(value * self.scale, self.spec)


GEOMETRY = "numerics/geometry.py (the global model's embeddings of the test set)"
LOCAL = "train/local_metrics.py (each client's model after its local training)"
SUMMARY = "study/table.py (one run's summary of its metrics.jsonl)"
ROUNDS = "train/rounds.py (every round)"
_ACC = dict(unit="%", spec=".2f", delta=0.01)
_RATIO = dict(spec=".3f", relative=0.05)

METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("final_acc", "test accuracy", "final acc %", "final accuracy", "final test accuracy", source=SUMMARY, **_ACC),
    Metric("best_acc", None, "best acc %", "best accuracy", source=SUMMARY, **_ACC),
    Metric("test_accuracy", None, "acc %", "test accuracy", chart="test accuracy", source=ROUNDS, **_ACC),
    Metric("train_loss", chart="train loss", source=ROUNDS),
    Metric("final_ratio", None, "ratio", "final intra/inter", source=SUMMARY, **_RATIO),
    Metric("final_ratio_l2", None, "ratio (L2)", "final intra/inter (L2)", source=SUMMARY, **_RATIO),
    Metric("ratio", "intra / inter ratio", "ratio", "intra / inter ratio", "global intra / inter ratio",
           chart="intra / inter", source=GEOMETRY, **_RATIO),
    Metric("ratio_l2", chart="intra / inter (L2)", source=GEOMETRY, **_RATIO),
    Metric("intra", source=GEOMETRY, **_RATIO),
    Metric("inter", source=GEOMETRY, **_RATIO),
    Metric("intra_l2", "intra-class distance (L2-normalised)", source=GEOMETRY, **_RATIO),
    Metric("inter_l2", "inter-class distance (L2-normalised)", source=GEOMETRY, **_RATIO),
    Metric("effective_rank", "global effective rank (entropy of σ²)", "eff. rank", "eff. rank (σ²)",
           "global effective rank", chart="eff. rank (σ²)", delta=0.5, source=GEOMETRY),
    Metric("nc1", chart="NC1: within- / between-class spread", source=GEOMETRY),  # (1/C)·tr(Σ_W Σ_B⁺), Papyan et al. 2020
    Metric("local_acc_all", None, "local acc %", "local acc. (all classes)", "local accuracy on all classes",
           title="local accuracy, all classes", source=LOCAL, **_ACC),
    Metric("local_acc_own", None, "own acc %", "local acc. (own classes)", "local accuracy on own classes",
           title="local accuracy, own classes", source=LOCAL, **_ACC),
    Metric("local_acc_own_any", None, "own acc (any) %", "local acc. (any class it has)",
           title="local accuracy, every class it has a sample of", source=LOCAL, **_ACC),
    Metric("local_effective_rank", "local effective rank (entropy of σ²)", "local rank", "local eff. rank (σ²)",
           "local effective rank", title="local eff. rank (σ²)", delta=0.5, source=LOCAL),
    Metric("local_ratio", None, "local ratio", "local intra / inter", title="local intra / inter ratio", source=LOCAL, **_RATIO),
    Metric("local_cka", "local-vs-global CKA", "local CKA", "local CKA to global", "local CKA to the global model",
           title="CKA to the global model", delta=0.02, source=LOCAL),
    Metric("update_cosine", None, "upd. cos", "update cosine", delta=0.02, source=LOCAL),
    Metric("update_norm", None, "upd. norm", "update norm", title="update norm", source=LOCAL),
)}


def metric(name: str) -> Metric | None:
    return METRICS.get(name)


def _register(register: str) -> dict[str, str]:
    return {m.name: getattr(m, register) for m in METRICS.values() if getattr(m, register) is not None}


def labels() -> dict[str, str]:
    """The long names (the claims table)."""
    return _register("label")


def column_labels(names=None) -> dict[str, str]:
    """Column heads (``short``) of ``names`` (default: every measure that has one)."""
    return _register("short") if names is None else {n: name_in("short", n) for n in names}


def axis_titles() -> dict[str, str]:
    """The figures' axis titles."""
    return _register("axis")


def chart_titles() -> dict[str, str]:
    """The live charts' y-axis titles."""
    return _register("chart")


def titles() -> dict[str, str]:
    """The Clients page's names of the local measures (trace names and titles)."""
    return _register("title")


def words() -> dict[str, str]:
    """The names a sentence uses (the Lesson)."""
    return _register("words")


REGISTERS = ("label", "short", "axis", "chart", "title", "words")


def names(register: str) -> dict[str, str]:
    """Every measure's name in one register: ``label`` (the claims table), ``short`` (column
    heads), ``axis`` (the figures' axes), ``chart`` (the live charts), ``title`` (the Clients
    page), ``words`` (a sentence); ``ValueError`` for another register."""
    if register not in REGISTERS:
        raise ValueError(f"no register {register!r} of the measures' names: one of {', '.join(REGISTERS)}")
    return _register(register)


def name_in(register: str, name: str) -> str:
    """``name`` in one register (``label``, ``short``, ``axis``, ``chart``, ``words``); a measure
    the register does not name, as it is."""
    m = METRICS.get(name)
    return (getattr(m, register) if m is not None else None) or name


def is_accuracy(name: str) -> bool:
    """True when the measure ``name`` is an accuracy (a fraction shown in points, higher is better)."""
    m = METRICS.get(name)
    return m is not None and m.accuracy
