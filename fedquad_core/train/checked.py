"""A run's preparation when the preflight has done the work: the process that trains (a launched
run's, or a study's pool worker) takes the partition the preflight drew and, when the digest of the
labels it was drawn on matches the labels loaded here, trains on it without checking the config or
drawing the partition again. A mismatch gives None, and the run prepares itself as a ``fedquad
run`` does (``runner.prepare``: the preflight, then the draw). This module is not part of the
engine fingerprint: ``runner.Prepared`` is built here from the same parts ``runner.prepare``
builds it from."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..config import RunConfig
from ..data import data_source, load_dataset
from ..errors import RUN_INPUT_ERRORS
from ..numerics.partition import class_counts
from ..runs import preflight_file
from ..version import engine_fingerprint
from .runner import Prepared


def prepare_from(cfg: RunConfig, parts: list[np.ndarray], labels_digest: str) -> Prepared | None:
    """``Prepared`` for a config the preflight passed with ``parts``, drawn on labels of digest
    ``labels_digest``; None when the labels loaded here are others, or ``parts`` does not deal
    every sample to exactly one of the config's clients."""
    cfg = cfg.resolved()
    ds = load_dataset(cfg.dataset, data_dir=cfg.data_dir, download=cfg.download, train_subset=cfg.train_subset,
                      seed=cfg.seed)
    labels = ds.y_train.numpy()
    if (len(parts) != cfg.num_clients or preflight_file.labels_digest(labels) != labels_digest
            or not _covers(parts, len(labels))):
        return None
    source = data_source(cfg.dataset, data_dir=cfg.data_dir)
    print(f"fedquad: {cfg.dataset} read from {source} (partition from the preflight)", file=sys.stderr)
    return Prepared(cfg, ds, parts, class_counts(parts, labels, ds.num_classes), source)


def prepare_checked(cfg: RunConfig, folder: Path, stored: dict[str, Any]) -> Prepared | None:
    """``Prepared`` from the preflight's file in the run ``folder`` for ``cfg`` (read from
    ``stored``, its config.json), or None when there is no file or a digest does not match."""
    found = preflight_file.read_run(folder, stored, engine_fingerprint())
    return prepare_from(cfg, *found) if found else None


def checked_prep(cfg: RunConfig, *, folder: Path | None = None, stored: dict[str, Any] | None = None,
                 parts: list[np.ndarray] | None = None, labels_digest: str | None = None) -> Prepared | None:
    """The run's data and partition from the preflight, or None. Either a launched run's: the
    preflight's file in its ``folder`` (``stored``: its config.json; ``prepare_checked``), or a study
    point's: the driver's ``parts`` drawn on labels of digest ``labels_digest`` (``prepare_from``).
    None when there is no preflight, a digest does not match, or the data fails to load
    (``RUN_INPUT_ERRORS``): ``execute`` then prepares the run itself (the preflight, then the
    draw) and records any failure. The one place both the CLI's ``run`` and a study's points take
    the preflight's work."""
    try:
        if folder is not None:
            return prepare_checked(cfg, folder, stored or {})
        if parts is None or not labels_digest:
            return None
        return prepare_from(cfg, parts, labels_digest)
    except RUN_INPUT_ERRORS:
        return None


def _covers(parts: list[np.ndarray], n: int) -> bool:
    """Every sample index in [0, n) held by exactly one client."""
    flat = np.concatenate(parts) if len(parts) else np.zeros(0, np.int64)
    if len(flat) != n or (n and (flat.min() < 0 or flat.max() >= n)):
        return False
    return bool((np.bincount(flat, minlength=n) == 1).all())
