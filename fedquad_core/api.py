"""The engine's public surface: everything the dashboard (``app/``) asks of the engine, and the only
module of ``fedquad_core`` an app module imports (``tests/app/test_one_door.py`` fails otherwise).
Importing it is light: no torch, no pandas (the projection worker starts on it); the verbs that need
torch (the method registry, the data loaders, the study grid) import it when called.

What is here, by concept (docs/architecture.md, "The engine's public surface"):

- **Configs and their one up-front check**: ``RunConfig``, ``check_runs`` (every user error of a
  group before anything starts, as one line; ``USER_ERRORS``, the types of such an error, for a
  page that calls a verb raising one), ``methods()`` (one record per method: name, label,
  citation, and ``params()``, its sliders' metadata), ``datasets()`` (one record per data set:
  ``problem()``, its one-line remedy or None, and ``labels()``), ``draw_partition`` (the split a
  run gets), the forms' choices and bounds (``DEVICES``, ``HARD_LIMITS``, ``ALPHA_STEPS``),
  ``parse_float`` / ``parse_int`` (the one rule of a number typed in a URL or the environment),
  ``engine_fingerprint``.
- **Runs**: ``launch_run``, ``cancel_run``, ``delete_run``, ``keep_warm_server`` and the one
  reader ``run_view(root)``: a missing run or a damaged file reads as a default and is named
  once; ``runs()`` lists them; its ``store`` (a ``RunStore``) is for the reads that must raise
  (``RunNotFound``, ``StoreError``).
- **Studies**: ``study_view(root)``, the one reader and driver of the studies beside
  ``run_view``: ``studies()`` (every study, and one line per damaged one: the one place a
  damaged study file is named and skipped), ``read(name)`` (one study's read that must raise),
  ``frame(study)`` (a study's table), ``check(name, base, axes)`` (the one up-front check of a
  new study, its name included), ``start``, ``running``, ``log`` (its driver process);
  ``parse_grid`` (a sweep form's axes); the claims (``claims(root)``: the table's rows and one
  verdict per paper claim) and the registered confirmation (``confirmation`` ->
  ``ConfirmedRow``s).
- **The study's arithmetic and its words**: ``Verdict`` (what a comparison decides; its states
  ``Verdict.NOISE``, ``Verdict.ONE_SEED``, ...) and two namespaces with their own documented
  ``__all__``: ``stats`` (``study/arithmetic.py``: pure functions of a study's numbers the Lesson
  and the figures show, ``stats.compare`` -> a ``Verdict``, ``stats.holm``,
  ``stats.matched_accuracy``, ...: the app computes no statistic of its own) and ``words``
  (``vocab/wording.py``: p values, δ, α (``words.alpha_text`` in its three styles), the
  methods' and measures' names and the verdicts in words, each written one way).
- **The store's shared files and the app's helper processes**, as what the app wants of them:
  ``SharedFolder(root)`` (the classroom's follow and poll files: read, write, a locked
  ``update``), ``Helper(root, name)`` (a long-lived helper, one per store: the UMAP projection
  worker; ``start``, ``alive``, ``stop``, and ``serve`` for the helper itself), ``Job(marker, log,
  request)`` (a one-shot background job computing one file), ``read_small_text``, and the trust
  rules for a folder or program the app executes from (``unsafe_folder``, ``unsafe_program``);
  ``DamagedFile`` names a damaged or planted file. Locks, pid files, atomic writers and process
  starting (``safe_io``, ``runs.locks``, ``runs.launcher``) stay inside the engine.

A newcomer adding a page reads this module's ``__all__`` and the two namespaces': each function is
typed and documented at its definition (the re-exported ones at theirs; ``test_one_door`` checks
it). A name the app stops using leaves its ``__all__`` (``test_one_door`` fails on an unused one)."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np

from .config import DATASET_NAMES, DEVICES, RunConfig
from .config import limits as _limits
from .config.alpha import ALPHA_STEPS
from .config.numbers import parse_float, parse_int
from .errors import DataError
from .numerics.partition import partition as _partition
from .runs import launcher as _launcher
from .runs.helpers import Helper, Job
from .runs.shared import SharedFolder
from .runs.store import ACTIVE, RunNotFound, RunStore, StoreError
from .runs.view import RunView
from .safe_io import DamagedFile, unsafe_folder, unsafe_program
from .safe_io import read_text as _read_text
from .study.claims_table import ClaimsTable
from .study.paper_claims import check_claims
from .study import registration as _registration
from .study.confirm import NOT_RECORDED, RECORDING, check_confirmatory
from .study.confirm_text import row_numbers, row_sentence, row_tag, verdict_words
from .study.table import Verdict
from .study.view import Draw, Labels, StudyView
from .study import arithmetic as stats  # the study's arithmetic, one namespace (its own __all__)
from .vocab import wording as words  # the numbers and verdicts in words, one namespace (its own __all__)
from .user_errors import USER_ERRORS
from .version import engine_fingerprint
from .vocab.methods import method_words as _method_words

# The forms' hard limits (config.limits): a widget never offers more than a run accepts.
HARD_LIMITS: dict[str, int] = {"num_clients": _limits.CLIENTS_MAX, "rounds": _limits.ROUNDS_MAX,
                               "snapshot_every": _limits.SNAPSHOT_EVERY_MAX,
                               "local_epochs": _limits.LOCAL_EPOCHS_MAX}


# ---- configs and their one up-front check ----
def check_runs(configs: list[RunConfig], *, labels: Labels | None = None,
               draw: Draw | None = None) -> tuple[list | None, str | None]:
    """(one checked config per config, None), or (None, the first user error as one line): the
    engine's one up-front check of a group (``config.preflight.check_runs``: settings, devices,
    data, each distinct partition drawn once). ``labels``/``draw`` may supply cached labels and
    partitions. Nothing is started."""
    from .config.preflight import check_runs as _check_runs  # torch
    try:
        return _check_runs(configs, labels=labels, draw=draw), None
    except (*USER_ERRORS, ValueError) as e:
        return None, str(e)


@dataclasses.dataclass(frozen=True)
class Method:
    """One method of the registry as the forms and the sidebar show it: ``name`` (what a config
    holds), ``label`` and ``citation`` (read torch-free from the method's own file); ``params()``
    its hyperparameters with their slider metadata (imports the registry: torch)."""
    name: str
    label: str
    citation: str

    def params(self) -> list[tuple[str, Any, dict]]:
        """(name, default, slider metadata) of each hyperparameter, from the registry."""
        from .methods import METHODS  # torch
        return [(f.name, f.default, dict(f.metadata)) for f in dataclasses.fields(METHODS[self.name].Params)]


def methods() -> dict[str, Method]:
    """Every method of the registry by name, in the registry's order, torch-free
    (``vocab.methods``, tested to agree with the registry): ``list(methods())`` the names,
    ``methods()[name].citation``, ``methods()[name].params()``."""
    return {name: Method(name, w.label, w.citation) for name, w in _method_words().items()}


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One data set as the forms show it: ``name`` (what a config holds); ``problem()`` and
    ``labels()`` read its files (import torch)."""
    name: str

    def problem(self) -> str | None:
        """None when the data set can be loaded, else its one-line remedy (``DataError``)."""
        from .data import check_data  # torch
        try:
            check_data(self.name)
            return None
        except DataError as e:
            return str(e)

    def labels(self, train_subset: int | None = None, seed: int = 0) -> tuple[np.ndarray, tuple[str, ...]]:
        """(training labels as int64 numpy, class names) of the data set as a run would see it."""
        from .data import load_dataset  # torch
        ds = load_dataset(self.name, train_subset=train_subset, seed=seed)
        return ds.y_train.numpy().astype(np.int64), tuple(ds.class_names)


def datasets() -> dict[str, Dataset]:
    """Every data set a run accepts by name, in the forms' order (``config.DATASET_NAMES``),
    torch-free: ``list(datasets())`` the names, ``datasets()[name].problem()``,
    ``datasets()[name].labels(train_subset, seed)``."""
    return {name: Dataset(name) for name in DATASET_NAMES}


def draw_partition(labels: np.ndarray, num_clients: int, alpha: float | None, *, seed: int,
                   min_size: int) -> list[np.ndarray]:
    """The split of ``labels`` a run with these settings gets (``numerics.partition``)."""
    return _partition(labels, num_clients, alpha, seed=seed, min_size=min_size)


# ---- runs ----
def run_view(root: str | os.PathLike, *, cache_metrics: bool = False) -> RunView:
    """The runs under ``root``, the app's one reader of them (``runs.view``): each read returns a
    default for a missing run or a damaged file and names the damage once (``damaged``);
    ``runs()`` lists every run (a damaged one with state "damaged" and its reason). Its ``store``
    (a ``RunStore``) is for the reads that must fail loudly (one snapshot a figure draws, a run's
    bundle): ``RunNotFound`` for a run that is not there, ``StoreError`` (``DamagedRun``) naming
    a damaged file."""
    return RunView(root, cache_metrics=cache_metrics)


def launch_run(config: RunConfig | Any, root: str | os.PathLike, *, extra: dict | None = None) -> str:
    """Start one run (a ``RunConfig`` or a config ``check_runs`` returned) as a background
    process in the store at ``root``; its id at once."""
    return _launcher.launch(config, root, extra=extra)


def cancel_run(root: str | os.PathLike, run_id: str) -> None:
    """Ask a queued or running run to stop (it ends with state "cancelled")."""
    RunStore(Path(root)).request_cancel(run_id)


def delete_run(root: str | os.PathLike, run_id: str) -> None:
    """Remove a run that is not active (``StoreError`` for a queued or running one)."""
    RunStore(Path(root)).delete(run_id)


def keep_warm_server(root: str | os.PathLike, parent: int | None = None) -> bool:
    """Start the store's warm server (runs are forked from it) unless one is alive; True if now."""
    return _launcher.ensure_warm_server(root, parent=parent)


# ---- studies ----
def study_view(root: str | os.PathLike) -> StudyView:
    """The studies under ``root``, the app's one reader and driver of them (``study.view``):
    ``studies()`` every readable study and one line per damaged one (the one place a damaged
    study file is named and skipped); ``read(name)`` one study, raising (``StudyNotFound``,
    ``DamagedStudy``: both ``StoreError``s); ``frame(study)`` its table; ``check(name, base,
    axes)`` the one up-front check of a new study, its name included; ``start``, ``running``
    and ``log`` its driver process."""
    return StudyView(root)


def parse_grid(items: list[str]) -> dict[str, list]:
    """``["alpha=0.1,1", ...]`` as axes (``study.grid``); ``UserError`` names a bad item."""
    from .study.grid import parse_grid as _parse_grid  # torch
    return _parse_grid(items)


def claims(root: str | os.PathLike) -> ClaimsTable:
    """The paper's claims checked against the studies under ``root`` (``fedquad study claims``):
    the table's rows in order, and ``verdicts()``, one per paper claim. Reads every claim's runs:
    seconds, so callers keep the answer while the studies are unchanged."""
    return ClaimsTable(tuple(check_claims(root)))


@dataclasses.dataclass(frozen=True)
class ConfirmedRow:
    """One registered confirmatory row as the Lesson, Explore and the deck show it: its verdict by
    the rules fixed before its runs (``study.confirm``), its takeaway (``sentence``, at most 25
    words) and its primary comparison's numbers in one line (``numbers``, "" without a test)."""
    id: str
    claim: str
    study: str
    dataset: str
    verdict: str
    sentence: str
    numbers: str

    @property
    def words(self) -> str:
        """The verdict in plain words ("no difference that matters", "recording: 3 of 10 seeds in; ...")."""
        return verdict_words(self.verdict)

    @property
    def short(self) -> str:
        """``C1 (10 local epochs): no difference that matters``: the row and its verdict, for a
        projector's one line (the numbers: ``numbers``)."""
        return f"{self.id} ({row_tag(self.claim)}): {self.words}"


def confirmation(root: str | os.PathLike) -> list[ConfirmedRow]:
    """The registration's confirmatory rows judged on the confirmation studies under ``root``
    (``fedquad study confirm``): every row, also those still recording or not recorded (their
    verdict says so, with no number); an empty list when ``root`` holds no confirmation study.
    Reads every row's runs: seconds, so callers keep the answer while the studies are unchanged."""
    rows = check_confirmatory(root)
    if all(x.status == NOT_RECORDED for x in rows):
        return []
    studies = _registration.load().studies
    return [ConfirmedRow(x.row["id"], x.row["claim"], x.row["study"],
                         str(studies.get(x.row["study"], {}).get("base", {}).get("dataset", "")), x.verdict,
                         row_sentence(x) if x.status not in (NOT_RECORDED, RECORDING) else x.verdict,
                         row_numbers(x)) for x in rows]


# ---- the store's shared files and the app's helper processes ----
def read_small_text(path: str | os.PathLike, limit: int) -> str | None:
    """The text of a regular file of at most ``limit`` bytes, or None: missing, unreadable, too
    large, or not a regular file (a pipe there never hangs the caller, a link is not followed)."""
    try:
        return _read_text(path, limit)
    except (OSError, DamagedFile):
        return None


__all__ = [
    # configs and their check
    "RunConfig", "USER_ERRORS", "DEVICES", "HARD_LIMITS", "ALPHA_STEPS",
    "parse_float", "parse_int", "check_runs", "methods", "datasets", "draw_partition", "engine_fingerprint",
    # runs
    "RunStore", "RunView", "RunNotFound", "StoreError", "ACTIVE", "run_view", "launch_run",
    "cancel_run", "delete_run", "keep_warm_server",
    # studies and claims
    "study_view", "parse_grid", "claims", "ConfirmedRow", "confirmation",
    # the study's arithmetic (a Verdict's states, compare, Holm, ...) and its words: two namespaces
    "Verdict", "stats", "words",
    # the store's shared files, the app's helper processes and its trust rules
    "SharedFolder", "Helper", "Job", "DamagedFile", "read_small_text", "unsafe_folder", "unsafe_program",
]
