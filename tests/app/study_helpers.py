"""A synthetic study written straight into a run-store root (no training): fake but well-formed
runs (config.json, status.json finished, metrics.jsonl, partition.json, a final snapshot .npz,
optionally a stored UMAP .npy) plus ``studies/<name>.json`` in the contract's format.

The numbers are a simple function of the grid point (``fake_metrics``), so a test can compute
what a figure must show. Used by the Explore tests, the screenshots and
``benchmarks/slider_speed.py`` (which builds a 100-run store with realistic sizes)."""
from __future__ import annotations

import itertools
import json
import time
import zlib
from pathlib import Path

import numpy as np

ENGINE = "synthetic0000"
BASE = {"dataset": "digits", "num_clients": 50, "alpha": 0.3, "rounds": 30, "local_epochs": 1,
        "participation": 1.0, "seed": 0, "method": "fedavg", "method_params": {}, "snapshot_every": 30,
        "snapshot_points": 400, "model": "mlp", "lr": 0.05, "batch_size": 32}


def fake_metrics(coords: dict, rounds: int) -> list[dict]:
    """Per-round rows of a fake run: accuracy rises towards a level set by alpha / method / seed."""
    alpha = coords.get("alpha", 0.3)
    skew = 0.0 if alpha is None else 1.0 / (1.0 + 3.0 * float(alpha))
    quad = coords.get("method") == "fedquad"
    m1, m2 = (float(coords.get(k, 0.0) or 0.0) if quad else 0.0 for k in ("m1", "m2"))  # FedAvg has no margins
    seed = int(coords.get("seed", 0))
    level = 0.95 - 0.35 * skew + (0.05 * skew if quad else 0.0) + 0.01 * m1 - 0.004 * m2 + 0.004 * (seed - 1)
    ratio_end = 0.25 + 0.6 * skew - (0.15 * skew if quad else 0.0) - 0.02 * m1 + 0.005 * seed
    rows = []
    for r in range(1, rounds + 1):
        f = 1.0 - np.exp(-r / 6.0)
        row = {"round": r, "test_accuracy": round(float(0.1 + (level - 0.1) * f), 6),
               "ratio": round(float(1.2 - (1.2 - ratio_end) * f), 6), "ratio_l2": round(float(1.1 - (1.1 - ratio_end) * f), 6),
               "train_loss": round(float(2.3 * (1 - f) + 0.1), 6), "samples_total": 1500 * r, "elapsed": 0.4 * r}
        if r == rounds:
            row["effective_rank"] = round(float(20.0 - 12.0 * skew + (4.0 * skew if quad else 0.0) + 0.2 * seed), 6)
        rows.append(row)
    return rows


def write_run(root: Path, run_id: str, config: dict, coords: dict, *, points: int = 400, dim: int = 64,
              umap: bool = True, state: str = "finished") -> None:
    """One fake run folder with a final snapshot of ``points`` x ``dim`` float16 embeddings."""
    path = Path(root) / run_id
    (path / "embeddings").mkdir(parents=True, exist_ok=True)
    rounds = int(config["rounds"])
    metrics = fake_metrics(coords, rounds)
    (path / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True))
    (path / "status.json").write_text(json.dumps({"state": state, "round": rounds, "total_rounds": rounds,
                                                  "created": time.time(), "key": run_id, "engine": ENGINE}))
    (path / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    (path / "partition.json").write_text(json.dumps({"counts": [[5] * 10] * 4, "class_names": [str(i) for i in range(10)]}))
    rng = np.random.default_rng(zlib.crc32(run_id.encode()))
    labels = np.repeat(np.arange(10), points // 10)[:points]
    spread = 0.3 + metrics[-1]["ratio"]
    z = rng.normal(size=(10, dim))[labels] + spread * rng.normal(size=(len(labels), dim))
    z[:, dim // 2:] *= 0.05 + 0.5 * (metrics[-1]["effective_rank"] / 24.0)  # a spectrum that falls off
    s = np.linalg.svd(np.cov(z.T), compute_uv=False, hermitian=True)
    np.savez_compressed(path / "embeddings" / f"round_{rounds:04d}.npz", embeddings=z.astype(np.float16),
                        labels=labels.astype(np.int64), indices=np.arange(len(labels)), classes=np.arange(10),
                        singular_values=s, per_class_intra=np.ones(10), cdnv=np.ones((10, 10)))
    if umap:
        np.save(path / "embeddings" / f"umap_round_{rounds:04d}.npy", z[:, :2].astype(np.float32))


def write_study(root, name: str, axes: dict, *, base: dict | None = None, missing=(), points: int = 400,
                dim: int = 64, rounds: int = 30, umap: bool = True, title: str | None = None) -> dict:
    """Write every grid point's run (except those whose coords match an entry of ``missing``, a
    list of partial coords dicts: those get ``run_id`` None) and the study JSON; return it."""
    root = Path(root)
    base = {**BASE, **(base or {}), "rounds": rounds, "snapshot_points": points}
    names = list(axes)
    entries = []
    for combo in itertools.product(*(axes[a] for a in names)):
        coords = dict(zip(names, combo))
        cfg = {**base, "method_params": dict(base.get("method_params") or {})}
        for k, v in coords.items():
            if k in ("m1", "m2", "beta", "mu"):
                cfg["method_params"][k] = v
            else:
                cfg[k] = v
        tag = "-".join(f"{k}{'iid' if v is None else v}" for k, v in coords.items())
        run_id = f"{name}-{tag}".replace(" ", "")
        if any(all(coords.get(k) == v for k, v in m.items()) for m in missing):
            entries.append({"coords": coords, "key": run_id, "run_id": None})
            continue
        write_run(root, run_id, cfg, coords, points=points, dim=dim, umap=umap)
        entries.append({"coords": coords, "key": run_id, "run_id": run_id})
    study = {"name": name, "title": title or f"Synthetic {name}", "description": "Fake runs for tests.",
             "created": time.time(), "base": base, "axes": axes, "points": entries, "engine": ENGINE}
    (root / "studies").mkdir(parents=True, exist_ok=True)
    (root / "studies" / f"{name}.json").write_text(json.dumps(study, indent=2))
    return study
