"""A small synthetic run-store root in the studies contract's shape (docs/studies.md): finished runs
with config, status, metrics, partition and embedding snapshots (plus a stored UMAP), and
``studies/<name>.json`` over alpha x method x seed. Fake numbers, well-formed files; the lesson
tests read it as the recorded root or as the user's runs."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ALPHAS = (0.1, 1.0, None)
METHODS = ("fedavg", "fedquad")
SEEDS = (0, 1)
ROUNDS = 4
SNAPSHOTS = (1, 2, 4)
CLIENTS, CLASSES, POINTS, DIM = 10, 10, 60, 8


def _quality(alpha, method) -> float:
    """0 (collapsed) .. 1 (healthy): skew hurts, FedQuad hurts less."""
    base = 1.0 if alpha is None else min(1.0, 0.35 + 0.5 * alpha)
    return min(1.0, base + (0.25 if method == "fedquad" and alpha is not None else 0.0))


def write_run(root: Path, run_id: str, alpha, method: str, seed: int, *, acc_scale: float = 1.0,
              local_epochs: int | None = None) -> None:
    """One finished run; with ``local_epochs``, its snapshot rows carry the local-model metrics too
    (more local epochs under skew: local models drift further)."""
    rng = np.random.default_rng([seed, 0 if alpha is None else int(alpha * 100), len(method), local_epochs or 0])
    acc_noise = np.random.default_rng([seed, 0 if alpha is None else int(alpha * 100)])  # same for both methods
    q = _quality(alpha, method)
    folder = root / run_id
    (folder / "embeddings").mkdir(parents=True)
    cfg = {"dataset": "digits", "num_clients": CLIENTS, "alpha": alpha, "method": method, "seed": seed,
           "rounds": ROUNDS, "method_params": {}, **({"local_epochs": local_epochs} if local_epochs else {})}
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / "status.json").write_text(json.dumps({"state": "finished", "round": ROUNDS, "total_rounds": ROUNDS,
                                                    "created": 1764555000.0, "key": f"k-{run_id}", "engine": "test"}))
    labels = np.repeat(np.arange(CLASSES), POINTS // CLASSES)
    centres = rng.normal(size=(CLASSES, DIM)) * 4
    rows = []
    for r in range(1, ROUNDS + 1):
        row = {"round": r, "test_accuracy": acc_scale * (0.3 + 0.6 * q * r / ROUNDS) + 0.01 * acc_noise.random(),
               "train_loss": 1.0 / r, "samples": 1000 * (1.5 if method == "fedquad" else 1.0),
               "samples_total": 1000 * r * (1.5 if method == "fedquad" else 1.0),
               "elapsed": r * (2.0 if method == "fedquad" else 1.0)}
        if r in SNAPSHOTS:
            spread = 1.0 + 3.0 * (1 - q) * r / ROUNDS
            z = centres[labels] * (q + 0.2) + rng.normal(size=(POINTS, DIM)) * spread
            s = np.sort(rng.random(DIM) * (1 + 3 * q))[::-1]
            row.update(ratio=spread / (4 * (q + 0.2)) + 0.01 * rng.random(), ratio_l2=0.5,
                       effective_rank=2 + 5 * q + 0.1 * rng.random(), nc1=1 - q)
            if local_epochs:
                drift = (1 - q) * local_epochs / 5
                row.update(local_acc_all=max(0.05, 0.3 + 0.6 * q - 0.2 * drift) + 0.01 * rng.random(),
                           local_acc_own=0.9 + 0.01 * rng.random(), local_effective_rank=2 + 4 * q + 0.1 * rng.random(),
                           local_ratio=0.5 + drift, local_cka=1 - 0.3 * drift + 0.01 * rng.random(),
                           update_cosine=0.3 * q + 0.01 * rng.random(), update_norm=1 + drift)
            np.savez_compressed(folder / "embeddings" / f"round_{r:04d}.npz", embeddings=z.astype(np.float32),
                                labels=labels, indices=np.arange(POINTS), singular_values=s,
                                per_class_intra=np.ones(CLASSES), cdnv=np.ones((CLASSES, CLASSES)))
            if r == ROUNDS:
                np.save(folder / "embeddings" / f"umap_round_{r:04d}.npy", z[:, :2].astype(np.float32))
        rows.append(row)
    (folder / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (folder / "partition.json").write_text(json.dumps({"counts": _counts(alpha, seed).tolist(),
                                                       "class_names": [str(c) for c in range(CLASSES)]}))


def _counts(alpha, seed) -> np.ndarray:
    rng = np.random.default_rng([seed, 7])
    if alpha is None:
        return np.full((CLIENTS, CLASSES), 10)
    p = rng.dirichlet([alpha] * CLASSES, size=CLIENTS)
    return np.floor(p * 100).astype(int)


def write_root(root: Path, name: str = "digits-alpha", *, alphas=ALPHAS, acc_scale: float = 1.0,
               prefix: str = "rec") -> Path:
    """Write the runs and ``studies/<name>.json`` under ``root``; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    points = []
    for a in alphas:
        for m in METHODS:
            for s in SEEDS:
                run_id = f"{prefix}-{m}-{'iid' if a is None else a}-s{s}"
                write_run(root, run_id, a, m, s, acc_scale=acc_scale)
                points.append({"coords": {"alpha": a, "method": m, "seed": s}, "key": f"k-{run_id}", "run_id": run_id})
    study = {"name": name, "title": "test study", "created": 1764555000.0,
             "base": {"dataset": "digits", "num_clients": CLIENTS, "rounds": ROUNDS, "seed": 0},
             "axes": {"alpha": list(alphas), "method": list(METHODS), "seed": list(SEEDS)},
             "points": points, "engine": "test"}
    (root / "studies").mkdir(exist_ok=True)
    (root / "studies" / f"{name}.json").write_text(json.dumps(study))
    return root


EPOCHS = (1, 5)


def write_lesson_root(root: Path, *, acc_scale: float = 1.0) -> Path:
    """The recorded studies the lesson tells its story from: ``digits-local`` (local_epochs x alpha x
    method x seed, with local metrics) and ``fmnist-skew`` (alpha x method x seed)."""
    write_root(root, "fmnist-skew", acc_scale=acc_scale, prefix="skew")
    points = []
    for e in EPOCHS:
        for a in ALPHAS:
            for m in METHODS:
                for s in SEEDS:
                    run_id = f"loc-{m}-{'iid' if a is None else a}-e{e}-s{s}"
                    write_run(root, run_id, a, m, s, acc_scale=acc_scale, local_epochs=e)
                    points.append({"coords": {"local_epochs": e, "alpha": a, "method": m, "seed": s},
                                   "key": f"k-{run_id}", "run_id": run_id})
    study = {"name": "digits-local", "title": "local computation", "created": 1764555000.0,
             "base": {"dataset": "digits", "num_clients": CLIENTS, "rounds": ROUNDS, "seed": 0},
             "axes": {"local_epochs": list(EPOCHS), "alpha": list(ALPHAS), "method": list(METHODS), "seed": list(SEEDS)},
             "points": points, "engine": "test"}
    (root / "studies" / "digits-local.json").write_text(json.dumps(study))
    return root
