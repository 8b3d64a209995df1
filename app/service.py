"""What the pages ask of the engine, through its door ``app.engine``: the run store on disk,
launching runs (a preset, a group) and the projection worker, the config and method registry,
partitions and dataset labels. Pages import this module, never a trainer or a model."""
from __future__ import annotations

import dataclasses
import math
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from app import presets
from app.roots import REPO_ROOT, recorded_dir, runs_dir  # noqa: F401  (re-exported: pages call service.*)
from app import engine  # its torch names (the method registry, the data loaders, the grid check) on first use
from app.engine import (ACTIVE, DATASET_NAMES, DEVICES, ConfigError, DamagedRun, PartitionError, RunConfig, RunNotFound,
                        RunStore, StoreError, class_counts, launcher, partition)
from app.export import files as export
from app.projection import worker as projection_worker

__all__ = ["ConfigError", "DataError", "PartitionError", "StoreError", "RunNotFound", "ACTIVE",
           "DATASET_NAMES", "DEVICES", "RunConfig"]


def __getattr__(name: str):
    """``service.DataError`` for the pages, imported (with torch) only when a page asks for it."""
    if name == "DataError":
        return engine.DataError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- the store ---------------------------------------------------------------------------
def store() -> RunStore:
    """The user's run store (where the dashboard launches runs)."""
    return RunStore(runs_dir())


SOURCES = ("mine", "recorded")


def source_root(source: str) -> Path:
    """The root of a source: "mine" (the user's store) or "recorded"."""
    if source not in SOURCES:
        raise ValueError(f"unknown run source {source!r}: use one of {SOURCES}")
    return runs_dir() if source == "mine" else recorded_dir()


def _same_root() -> bool:
    try:
        return runs_dir().resolve() == recorded_dir().resolve()
    except OSError:
        return False


def source_of(run_id: str) -> str:
    """"mine" when the run is in the user's store (looked up first), else "recorded" when it is in
    the recorded store; a run in neither counts as "mine" (reads then raise RunNotFound)."""
    try:
        if store().exists(run_id) or _same_root() or not RunStore(recorded_dir()).exists(run_id):
            return "mine"
    except StoreError:
        return "mine"
    return "recorded"


def is_recorded(run_id: str) -> bool:
    return source_of(run_id) == "recorded"


def store_for(run_id: str) -> RunStore:
    """The store holding this run: the user's first, then the recorded one."""
    return RunStore(source_root(source_of(run_id)))


def _check_writable(run_id: str, what: str) -> None:
    if is_recorded(run_id):
        raise StoreError(f"run {run_id} is a recorded run (in {recorded_dir()}), shipped read-only: "
                         f"it cannot be {what}")


def method_label(name: str) -> str:
    return engine.method_label(name)  # torch-free: the sidebar names methods on every page


def run_label(info) -> str:
    """Short human label of a run: its name, or method + alpha + the id's random tail."""
    cfg = info.config
    if cfg.get("name"):
        return str(cfg["name"])
    alpha = "IID" if cfg.get("alpha") is None else f"α={cfg.get('alpha'):g}"
    return f"{method_label(cfg.get('method', '?'))} {alpha} ·{info.run_id[-6:]}"


def runs_table() -> pd.DataFrame:
    """One row per run in both stores (``source`` "mine" or "recorded"), newest first; a recorded
    run whose id is also in the user's store is listed once, as the user's."""
    rows, seen = [], set()
    for source in SOURCES if not _same_root() else SOURCES[:1]:
        for info in RunStore(source_root(source)).list_runs():
            if info.run_id not in seen:
                seen.add(info.run_id)
                rows.append(_table_row(info, source))
    cols = ["run_id", "label", "method", "state", "round", "total_rounds", "dataset", "alpha", "clients",
            "group", "created", "error", "source"]
    df = pd.DataFrame(rows, columns=cols)
    return df.sort_values("created", ascending=False, kind="stable").reset_index(drop=True)


def _table_row(info, source: str) -> dict:
    s, c = info.status, info.config
    return {
        "run_id": info.run_id, "label": run_label(info), "method": c.get("method"),
        "state": info.state, "round": s.get("round", 0), "total_rounds": s.get("total_rounds") or c.get("rounds"),
        "dataset": c.get("dataset"), "alpha": c.get("alpha"), "clients": c.get("num_clients"),
        "group": s.get("group", ""), "created": s.get("created", 0.0), "error": s.get("error") or "",
        "source": source,
    }


def without_damaged(table: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The table less its damaged runs, and a one-line note naming them (None when there are none)."""
    bad = table["state"] == "damaged"
    if not bad.any():
        return table, None
    names = ", ".join(table.loc[bad, "run_id"])
    return table[~bad].reset_index(drop=True), f"Skipped {int(bad.sum())} damaged run(s) (see the Runs page): {names}"


# The recorded studies whose FedAvg-vs-FedQuad pair the run pages open on, first found first: the
# Lesson's study of the global model (``app.lesson.data.ROLES["global"]``, tested to agree), then
# the older digits study.
PAIR_STUDIES = ("fmnist-skew", "digits-alpha")
PAIR_METHODS = ("fedavg", "fedquad")


def recorded_pair() -> list[str]:
    """The recorded FedAvg-vs-FedQuad pair the Lesson shows: the first of ``PAIR_STUDIES`` shipped
    and readable, at its strongest skew (smallest α), lowest seed, same partition; [] when none is."""
    for name in PAIR_STUDIES:
        pair = _pair_of(name)
        if pair:
            return pair
    return []


def _pair_of(name: str) -> list[str]:
    import json

    path = recorded_dir() / "studies" / f"{name}.json"
    try:
        points = json.loads(path.read_text()).get("points") or []
        rows = [(p["coords"], p["run_id"]) for p in points if p.get("run_id")]
        alphas = [c.get("alpha") for c, _ in rows if isinstance(c.get("alpha"), (int, float))]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    if not alphas:
        return []
    at = [(c.get("seed", 0), c.get("method"), r) for c, r in rows if c.get("alpha") == min(alphas)]
    recorded = RunStore(recorded_dir())
    out = []
    for method in PAIR_METHODS:
        runs = sorted((seed, r) for seed, m, r in at if m == method and recorded.exists(r))
        if runs and _safe_status(recorded, runs[0][1]).get("state") == "finished":
            out.append(runs[0][1])
    return out if len(out) == len(PAIR_METHODS) else []


DATASET_LABELS = {"digits": "digits", "fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10", "cifar100": "CIFAR-100",
                  "tiny-imagenet": "Tiny-ImageNet"}
PAIR_NOTE = ("Showing the recorded pair the Lesson uses: FedAvg and FedQuad on {dataset}, α = {alpha} "
             "(strong label skew), same partition and seed{local}. Your own runs replace it once you start some.")


def pair_note() -> str:
    configs = [read_config(r) for r in recorded_pair()]
    alphas = [c.get("alpha") for c in configs if isinstance(c.get("alpha"), (int, float))]
    names = {DATASET_LABELS.get(c.get("dataset"), c.get("dataset")) for c in configs if c.get("dataset")}
    epochs = {c.get("local_epochs") for c in configs}
    local = f", {epochs.pop()} local epochs a round" if len(epochs) == 1 and None not in epochs else ""
    return PAIR_NOTE.format(dataset=" / ".join(sorted(map(str, names))) or "?",
                            alpha=f"{min(alphas):g}" if alphas else "?", local=local)


def showing_pair(selected) -> bool:
    """Whether a page shows exactly the recorded pair (then it says so, with ``pair_note``)."""
    pair = recorded_pair()
    return bool(pair) and sorted(selected) == sorted(pair)


def latest_group(table: pd.DataFrame | None = None) -> list[str]:
    """Run ids of the most recently launched group (or the newest run if it has no group); the
    user's own runs come before recorded ones. With none of the user's own, the recorded pair
    the Lesson uses (FedAvg then FedQuad), else the newest recorded group."""
    table = runs_table() if table is None else table
    if "source" in table and (table["source"] == "mine").any():
        table = table[table["source"] == "mine"]
    elif (pair := [r for r in recorded_pair() if r in set(table["run_id"])]) and len(pair) == len(PAIR_METHODS):
        return pair
    if table.empty:
        return []
    newest = table.iloc[0]
    if newest["group"]:
        return table[table["group"] == newest["group"]]["run_id"].tolist()[::-1]
    return [newest["run_id"]]


def any_active(run_ids) -> bool:
    return any(_safe_status(store_for(r), r).get("state") in ACTIVE for r in run_ids)


def _safe_status(s: RunStore, run_id: str) -> dict:
    try:
        return s.read_status(run_id)
    except DamagedRun as e:
        return {"state": "damaged", "error": e.reason}
    except (RunNotFound, StoreError):
        return {}


def metrics_frame(run_ids, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Long table of every metrics row of the runs, with run, label and method columns."""
    frames = []
    for run_id in run_ids:
        s = store_for(run_id)
        try:
            rows = s.read_metrics(run_id)
            method = s.read_config(run_id).get("method", "?")
        except (RunNotFound, StoreError):
            continue
        if not rows:
            continue
        df = pd.DataFrame([{k: v for k, v in row.items() if k != "local"} for row in rows])  # per-client list: not a column
        df.insert(0, "method", method)
        df.insert(0, "label", (labels or {}).get(run_id, run_id))
        df.insert(0, "run", run_id)
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["run", "label", "method", "round", "samples_total", "elapsed"])
    return pd.concat(frames, ignore_index=True)


def summary_table(run_ids, labels: dict[str, str]) -> pd.DataFrame:
    rows = []
    for run_id in run_ids:
        s = store_for(run_id)
        try:
            status, cfg, metrics = s.read_status(run_id), s.read_config(run_id), s.read_metrics(run_id)
        except (RunNotFound, StoreError):
            continue
        acc = [m["test_accuracy"] for m in metrics if m.get("test_accuracy") is not None]
        ratios = [m["ratio"] for m in metrics if m.get("ratio") is not None]
        rows.append({"run": labels.get(run_id, run_id), "method": method_label(cfg.get("method", "?")),
                     "state": status.get("state"), "round": f"{status.get('round', 0)}/{status.get('total_rounds') or cfg.get('rounds')}",
                     "final acc": acc[-1] if acc else None, "best acc": max(acc) if acc else None,
                     "final intra/inter": ratios[-1] if ratios else None, "error": status.get("error") or ""})
    return pd.DataFrame(rows)


def read_status(run_id: str) -> dict:
    return _safe_status(store_for(run_id), run_id)


def read_config(run_id: str) -> dict:
    """The run's config; {} for a damaged or vanished run (its status says why)."""
    try:
        return store_for(run_id).read_config(run_id)
    except (RunNotFound, StoreError):
        return {}


def run_path(run_id: str) -> Path:
    return store_for(run_id).path(run_id)


def snapshot_rounds(run_id: str) -> list[int]:
    """The rounds whose snapshot file reads (a damaged one is left out: ``snapshot_notices``)."""
    try:
        return store_for(run_id).snapshot_rounds(run_id, readable=True)
    except (RunNotFound, StoreError):
        return []


def snapshot_notice(run_ids, most: int = 2) -> str | None:
    """The damaged snapshot and layout files of the runs in one line (None when there are none)."""
    lines = snapshot_notices(run_ids)
    if not lines:
        return None
    more = f"; and {len(lines) - most} more" if len(lines) > most else ""
    return "Damaged, left out: " + "; ".join(lines[:most]) + more


def snapshot_notices(run_ids) -> list[str]:
    """One line per damaged snapshot or UMAP layout file of the runs, for the page's notice."""
    out = []
    for run_id in dict.fromkeys(run_ids):
        try:
            out += store_for(run_id).snapshot_damage(run_id)
        except (RunNotFound, StoreError):
            continue
    return out


def read_snapshot(run_id: str, round_: int) -> dict[str, np.ndarray]:
    return store_for(run_id).read_snapshot(run_id, round_)


def local_snapshot_rounds(run_id: str) -> list[int]:
    """Snapshot rounds at which the run measured its clients' local models (none for runs made
    before the engine measured them, or with ``--local-clients 0``)."""
    try:
        return store_for(run_id).local_snapshot_rounds(run_id)
    except (RunNotFound, StoreError, ValueError):  # ValueError: a stray local_round_* name
        return []


def read_local_snapshot(run_id: str, round_: int) -> dict[str, np.ndarray]:
    """The measured clients' arrays of one round (``local_round_NNNN.npz``): ``clients``,
    ``samples``, ``holds``, ``embeddings`` [K, n, d], ``start_embeddings`` [n, d], ``update_cosine``."""
    return store_for(run_id).read_local_snapshot(run_id, round_)


def read_metrics(run_id: str) -> list[dict]:
    """The run's metrics rows (with the per-client ``local`` lists); [] when unreadable."""
    try:
        return store_for(run_id).read_metrics(run_id)
    except (RunNotFound, StoreError):
        return []


def read_partition(run_id: str) -> dict | None:
    try:
        return store_for(run_id).read_partition(run_id)
    except (RunNotFound, StoreError):
        return None


def cancel(run_id: str) -> None:
    _check_writable(run_id, "cancelled")
    store().request_cancel(run_id)


def delete(run_id: str) -> None:
    _check_writable(run_id, "deleted")
    store().delete(run_id)


# ---- methods -------------------------------------------------------------------------------
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


def method_names() -> list[str]:
    return list(engine.METHOD_LABELS)  # the registry's names, torch-free (tested to agree)


def method_citation(name: str) -> str:
    return engine.METHOD_CITATIONS[name]


def param_specs(method: str) -> list[ParamSpec]:
    """The method's hyperparameters with their slider metadata, straight from the registry."""
    specs = []
    for f in dataclasses.fields(engine.METHODS[method].Params):
        m = f.metadata
        specs.append(ParamSpec(f.name, f.default, m.get("help", ""), m.get("min"), m.get("max"), m.get("step"),
                               bool(m.get("log")), bool(m.get("integer"))))
    return specs


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


# ---- data and partitions ---------------------------------------------------------------
def data_problem(dataset: str) -> str | None:
    """None when the data set can be loaded, else DataError's one-line remedy."""
    try:
        engine.check_data(dataset)
        return None
    except engine.DataError as e:
        return str(e)


def dataset_info(dataset: str) -> dict:
    return engine.data_summary(dataset)


@st.cache_resource(show_spinner="Loading labels…")
def dataset_labels(dataset: str, train_subset: int | None = None, seed: int = 0):
    """(training labels as int64 numpy, class names) of the data set as a run would see it."""
    ds = engine.load_dataset(dataset, train_subset=train_subset, seed=seed)
    return ds.y_train.numpy().astype(np.int64), tuple(ds.class_names)


@st.cache_data(max_entries=256, show_spinner=False)
def partition_counts(dataset: str, num_clients: int, alpha: float | None, seed: int, min_size: int,
                     train_subset: int | None = None) -> np.ndarray:
    """Clients x classes counts of the split a run with these settings gets (cached)."""
    labels, names = dataset_labels(dataset, train_subset, seed)
    parts = partition(labels, num_clients, alpha, seed=seed, min_size=min_size)
    return class_counts(parts, labels, len(names))


def lt3_mask(counts: np.ndarray) -> np.ndarray:
    """Clients holding fewer than 3 classes (FedQuad cannot form quadruplets there)."""
    return (np.asarray(counts) > 0).sum(axis=1) < 3


# ---- launching ------------------------------------------------------------------------------
def config_defaults() -> dict[str, Any]:
    """RunConfig's field defaults, with the default data set's training values filled in (the
    engine owns them; the Launch form starts from these)."""
    return RunConfig().with_dataset_defaults().to_dict()


def dataset_defaults(name: str) -> dict[str, Any]:
    """The training settings a run on ``name`` gets unless set (lr, momentum, batch size, ...)."""
    return RunConfig(dataset=name).with_dataset_defaults().to_dict()


def make_configs(methods: list[str], common: dict[str, Any], params: dict[str, dict]) -> list[RunConfig]:
    """One config per method; everything but the method (and its params) identical."""
    return [RunConfig(**common, method=m, method_params=dict(params.get(m, {}))) for m in methods]


def check_configs(cfgs: list[RunConfig]) -> str | None:
    """The first problem that would stop these runs, as a one-line message, or None (the
    engine's one up-front check of a grid, with this app's cached labels)."""
    if not cfgs:
        return "pick at least one method"

    def labels(c: RunConfig):  # data in a custom folder or to download: checked when the run starts
        return None if c.data_dir or c.download else dataset_labels(c.dataset, c.train_subset, c.seed)[0]

    try:
        engine.check_grid(cfgs, labels=labels)
    except (*engine.USER_ERRORS, ValueError) as e:
        return str(e)
    return None


def warm_launch() -> None:
    """What a first launch in this process would compute: the hash of the engine's code that each
    run's key carries (about 1 s once)."""
    engine.engine_fingerprint()


def launch_group(cfgs: list[RunConfig]) -> tuple[str, list[str]]:
    """Start every config as a background run sharing one comparison group id."""
    group = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    root = runs_dir()
    ids = [launcher.launch(cfg, root, extra={"group": group}) for cfg in cfgs]
    return group, ids


def launch_preset(name: str) -> str | None:
    """Start every method of a Launch preset (same partition and seed) as one comparison group;
    the first problem that would stop them as a one-line message (nothing started), or None."""
    preset = presets.PRESETS[name]
    cfgs = make_configs(preset["methods"], preset["config"], {})
    problem = check_configs(cfgs)
    if problem is None:
        launch_group(cfgs)
    return problem


@st.cache_resource(show_spinner=False)
def _worker_start_lock() -> threading.Lock:
    return threading.Lock()  # one per server process: its sessions' threads start one worker


def keep_projection_worker() -> None:
    """Make sure the user store's UMAP projection worker runs (a flock check; it starts the
    detached worker only when none is alive, e.g. at the first page load or after an idle exit).
    The worker exits with this server process. FEDQUAD_PROJECTION_WORKER=0 turns it off."""
    if os.environ.get("FEDQUAD_PROJECTION_WORKER", "1") == "0":
        return
    with _worker_start_lock():
        projection_worker.ensure_worker(runs_dir(), parent=os.getpid())


def keep_warm_server() -> None:
    """Make sure the user store has its warm server (``fedquad_core.prefork``): launched runs are
    forked from a process that has imported the engine, so they start training seconds sooner.
    Called after a page ran (never while the first page is drawn). It exits with this server
    process. FEDQUAD_WARM_SERVER=0 turns it off (runs are then started as fresh processes)."""
    if os.environ.get("FEDQUAD_WARM_SERVER", "1") == "0":
        return
    with _worker_start_lock():
        launcher.ensure_warm_server(runs_dir(), parent=os.getpid())


def bundle(run_id: str) -> bytes:
    return export.run_bundle(store_for(run_id), run_id)
