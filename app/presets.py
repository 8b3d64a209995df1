"""Launch presets, as data. Each preset is the methods to compare plus RunConfig fields shared
by all of them (every method gets the same partition and seed); fields left out take
RunConfig's defaults. The numbers were measured: see docs/demo.md."""
from __future__ import annotations

PRESETS: dict[str, dict] = {
    "Collapse in one minute": {
        "note": "FedAvg vs FedQuad on sklearn digits (bundled, no download), small MLP, strong label skew.",
        "methods": ["fedavg", "fedquad"],
        "config": {"dataset": "digits", "model": "mlp", "num_clients": 50, "alpha": 0.1, "min_size": 5,
                   "participation": 1.0, "local_epochs": 2, "rounds": 30, "lr": 0.1, "snapshot_every": 3, "seed": 0},
    },
    "Fashion-MNIST in a few minutes": {
        "note": "Simple CNN on a 12,000-image stratified subset of Fashion-MNIST "
                "(Debian package dataset-fashion-mnist).",
        "methods": ["fedavg", "fedquad"],
        "config": {"dataset": "fashion-mnist", "model": "cnn", "num_clients": 50, "alpha": 0.3, "participation": 1.0,
                   "local_epochs": 2, "rounds": 40, "lr": 0.05, "snapshot_every": 5,
                   "train_subset": 12000, "seed": 0},
    },
    "Paper: CIFAR-10, 200 clients, alpha 0.3": {
        "note": "The paper's main setting (FedQuad 80.13 %, FedAvg 74.05 %, MOON 49.69 %). Needs CIFAR-10 on disk "
                "and, realistically, a GPU.",
        "methods": ["fedavg", "moon", "fedquad"],
        "config": {"dataset": "cifar10", "model": "cnn", "num_clients": 200, "alpha": 0.3, "participation": 0.1,
                   "local_epochs": 10, "rounds": 100, "lr": 0.01, "batch_size": 64, "snapshot_every": 10, "seed": 0},
    },
}

CUSTOM = "Custom"
