"""Methods and data as the forms see them: the methods (``methods()``: names, labels, citations)
and their slider metadata from the registry, the α steps and the widgets' ranges every page shares
(from the engine's limits), the data sets' labels, and the partitions (drawn once per settings)
with their clients x classes counts."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st

from fedquad_core import api
from fedquad_core.api import ALPHA_STEPS, HARD_LIMITS, methods, stats, words  # noqa: F401 (service's)

alpha_text = words.alpha_text  # α in its three styles (``service.alpha_text``: the pages' tables and titles)
DATASET_NAMES = tuple(api.datasets())  # the data sets every form offers, in the engine's order
ALPHAS = list(ALPHA_STEPS)  # the α every page's slider offers (the engine's config.alpha.ALPHA_STEPS)
SKEW_ALPHA = 0.3  # where an α slider rests for a value that is not a step (IID has its own checkbox)
# The form widgets' ranges, on every page: the engine's hard limits (config.limits) where it has one;
# the rest are the forms' own, inside what the preflight accepts (a seed up to 2**63 - 1 is not a
# number a browser widget holds exactly: 1,000,000 here).
BOUNDS = {"num_clients": (1, HARD_LIMITS["num_clients"]), "rounds": (1, HARD_LIMITS["rounds"]),
          "snapshot_every": (1, HARD_LIMITS["snapshot_every"]), "local_epochs": (1, HARD_LIMITS["local_epochs"]),
          "seed": (0, 1_000_000), "min_size": (0, 10_000), "train_subset": (0, 1_000_000),
          "participation": (0.01, 1.0), "lr": (0.0001, 1.0), "batch_size": (1, 4096)}


def slider_alpha(alpha) -> float:
    """Where an α slider shows ``alpha``: on its step, else at ``SKEW_ALPHA`` (IID included)."""
    return alpha if alpha in ALPHAS else SKEW_ALPHA


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: float
    help: str
    min: float | None
    max: float | None
    step: float | None
    log: bool
    integer: bool


def param_specs(method: str) -> list[ParamSpec]:
    """The method's hyperparameters with their slider metadata, straight from the registry."""
    return [ParamSpec(name, default, m.get("help", ""), m.get("min"), m.get("max"), m.get("step"),
                      bool(m.get("log")), bool(m.get("integer"))) for name, default, m in methods()[method].params()]


def log_options(low: float | None, high: float | None) -> list[float]:
    """1-2-5 steps between low and high (0 kept as the first option when low is 0)."""
    lo = 1e-4 if not low else low
    hi = high or lo * 1e4
    opts = [0.0] if low == 0 else []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = float(f"{m * 10.0 ** e:.6g}")
            if lo <= v <= hi:
                opts.append(v)
    return opts


def data_problem(dataset: str) -> str | None:
    """None when the data set can be loaded, else DataError's one-line remedy."""
    return api.datasets()[dataset].problem()


@st.cache_resource(show_spinner="Loading labels…")
def dataset_labels(dataset: str, train_subset: int | None = None, seed: int = 0):
    """(training labels as int64 numpy, class names) of the data set as a run would see it."""
    return api.datasets()[dataset].labels(train_subset, seed)


@st.cache_resource(max_entries=64, show_spinner=False)
def dataset_partition(dataset: str, num_clients: int, alpha: float | None, seed: int, min_size: int,
                      train_subset: int | None = None) -> list[np.ndarray]:
    """The split a run with these settings gets, drawn once per settings (the Partitions page's
    figures and the Launch page's preflight share it); treat it as read-only."""
    labels, _ = dataset_labels(dataset, train_subset, seed)
    return api.draw_partition(labels, num_clients, alpha, seed=seed, min_size=min_size)


@st.cache_data(max_entries=256, show_spinner=False)
def partition_counts(dataset: str, num_clients: int, alpha: float | None, seed: int, min_size: int,
                     train_subset: int | None = None) -> np.ndarray:
    """Clients x classes counts of the split a run with these settings gets (cached)."""
    labels, names = dataset_labels(dataset, train_subset, seed)
    parts = dataset_partition(dataset, num_clients, alpha, seed, min_size, train_subset)
    return stats.class_counts(parts, labels, len(names))


def lt3_mask(counts: np.ndarray) -> np.ndarray:
    """Clients holding fewer than 3 classes (FedQuad cannot form quadruplets there)."""
    return (np.asarray(counts) > 0).sum(axis=1) < 3
