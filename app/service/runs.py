"""The run stores as the pages see them: the user's store and the recorded one, which holds a
run, labels and tables of runs, the recorded pair the views open on, metrics, snapshots,
partitions, cancel, delete and a run's zip bundle."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from app.roots import recorded_dir, runs_dir
from fedquad_core import api
from fedquad_core.api import ACTIVE, RunStore, RunView, StoreError, words
from app.service.roles import require_presenter
from app.export import files as export


def store() -> RunStore:
    """The user's run store (where the dashboard launches runs)."""
    return api.run_view(runs_dir()).store


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
        if store().exists(run_id) or _same_root() or not api.run_view(recorded_dir()).store.exists(run_id):
            return "mine"
    except StoreError:
        return "mine"
    return "recorded"


def is_recorded(run_id: str) -> bool:
    return source_of(run_id) == "recorded"


def store_for(run_id: str) -> RunStore:
    """The store holding this run: the user's first, then the recorded one (reads that raise)."""
    return api.run_view(source_root(source_of(run_id))).store


def view_for(run_id: str) -> RunView:
    """The damage-tolerant view of the store holding this run (``fedquad_core.api.run_view``)."""
    return api.run_view(source_root(source_of(run_id)))


def _check_writable(run_id: str, what: str) -> None:
    if is_recorded(run_id):
        raise StoreError(f"run {run_id} is a recorded run (in {recorded_dir()}), shipped read-only: "
                         f"it cannot be {what}")


def method_label(name: str) -> str:
    return api.words.method_label(name)  # torch-free: the sidebar names methods on every page


def run_label(info) -> str:
    """Short human label of a run: its name, or method + alpha + the id's random tail."""
    cfg = info.config
    if cfg.get("name"):
        return str(cfg["name"])
    return f"{method_label(cfg.get('method', '?'))} {words.alpha_words(cfg.get('alpha'))} ·{info.run_id[-6:]}"


def runs_table() -> pd.DataFrame:
    """One row per run in both stores (``source`` "mine" or "recorded"), newest first; a recorded
    run whose id is also in the user's store is listed once, as the user's."""
    rows, seen = [], set()
    for source in SOURCES if not _same_root() else SOURCES[:1]:
        for info in api.run_view(source_root(source)).runs():
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
    try:  # the study store's reader (safe_io: a regular file, bounded, checked), as the Lesson reads it
        points = api.study_view(recorded_dir()).read(name).get("points") or []
        rows = [(p["coords"], p["run_id"]) for p in points if p.get("run_id")]
        alphas = [c.get("alpha") for c, _ in rows if isinstance(c.get("alpha"), (int, float))]
    except (StoreError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    if not alphas:
        return []
    at = [(c.get("seed", 0), c.get("method"), r) for c, r in rows if c.get("alpha") == min(alphas)]
    recorded = api.run_view(recorded_dir())
    out = []
    for method in PAIR_METHODS:
        runs = sorted((seed, r) for seed, m, r in at if m == method and recorded.exists(r))
        if runs and recorded.status(runs[0][1]).get("state") == "finished":
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
    return any(read_status(r).get("state") in ACTIVE for r in run_ids)


def metrics_frame(run_ids, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Long table of every metrics row of the runs, with run, label and method columns."""
    frames = []
    for run_id in run_ids:
        got = view_for(run_id).whole(run_id, status=False)
        if got is None:  # a damaged or vanished run: its status says why
            continue
        rows, method = got[2], got[1].get("method", "?")
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
        got = view_for(run_id).whole(run_id)
        if got is None:
            continue
        status, cfg, metrics = got
        acc = [m["test_accuracy"] for m in metrics if m.get("test_accuracy") is not None]
        ratios = [m["ratio"] for m in metrics if m.get("ratio") is not None]
        rows.append({"run": labels.get(run_id, run_id), "method": method_label(cfg.get("method", "?")),
                     "state": status.get("state"), "round": f"{status.get('round', 0)}/{status.get('total_rounds') or cfg.get('rounds')}",
                     "final acc": acc[-1] if acc else None, "best acc": max(acc) if acc else None,
                     "final intra/inter": ratios[-1] if ratios else None, "error": status.get("error") or ""})
    return pd.DataFrame(rows)


def read_status(run_id: str) -> dict:
    """The run's status; {} for a vanished run, state "damaged" with its reason for a damaged one."""
    return view_for(run_id).status(run_id)


def read_config(run_id: str) -> dict:
    """The run's config; {} for a damaged or vanished run (its status says why)."""
    return view_for(run_id).config(run_id)


def run_path(run_id: str) -> Path:
    return store_for(run_id).path(run_id)


def snapshot_rounds(run_id: str) -> list[int]:
    """The rounds whose snapshot file reads (a damaged one is left out: ``snapshot_notices``)."""
    return view_for(run_id).snapshot_rounds(run_id, readable=True)


def snapshot_notice(run_ids, most: int = 2) -> str | None:
    """The damaged snapshot and layout files of the runs in one line (None when there are none)."""
    lines = snapshot_notices(run_ids)
    if not lines:
        return None
    more = f"; and {len(lines) - most} more" if len(lines) > most else ""
    return "Damaged, left out: " + "; ".join(lines[:most]) + more


def snapshot_notices(run_ids) -> list[str]:
    """One line per damaged snapshot or UMAP layout file of the runs, for the page's notice."""
    return [line for run_id in dict.fromkeys(run_ids) for line in view_for(run_id).snapshot_damage(run_id)]


def read_snapshot(run_id: str, round_: int) -> dict[str, np.ndarray]:
    return store_for(run_id).read_snapshot(run_id, round_)


def local_snapshot_rounds(run_id: str) -> list[int]:
    """Snapshot rounds at which the run measured its clients' local models (none for runs made
    before the engine measured them, or with ``--local-clients 0``)."""
    return view_for(run_id).local_snapshot_rounds(run_id)  # a stray local_round_* name: []


def read_local_snapshot(run_id: str, round_: int) -> dict[str, np.ndarray]:
    """The measured clients' arrays of one round (``local_round_NNNN.npz``): ``clients``,
    ``samples``, ``holds``, ``embeddings`` [K, n, d], ``start_embeddings`` [n, d], ``update_cosine``."""
    return store_for(run_id).read_local_snapshot(run_id, round_)


def read_metrics(run_id: str) -> list[dict]:
    """The run's metrics rows (with the per-client ``local`` lists); [] when unreadable."""
    return view_for(run_id).metrics(run_id)


def read_partition(run_id: str) -> dict | None:
    return view_for(run_id).partition(run_id)


def cancel(run_id: str) -> None:
    require_presenter("cancel runs")
    _check_writable(run_id, "cancelled")
    api.cancel_run(runs_dir(), run_id)


def delete(run_id: str) -> None:
    require_presenter("delete runs")
    _check_writable(run_id, "deleted")
    api.delete_run(runs_dir(), run_id)


def bundle(run_id: str) -> bytes:
    return export.run_bundle(store_for(run_id), run_id)
