"""Time the Dirichlet partition at the paper's largest setting: 200 clients over CIFAR-100 labels.

Run: OMP_NUM_THREADS=1 python benchmarks/partition_speed.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing
from fedquad_core.numerics.partition import dirichlet_partition


def main(repeats: int = 5) -> None:
    labels = np.repeat(np.arange(100), 500)  # CIFAR-100 train: 50,000 labels, 100 classes
    for alpha in (0.3, 0.5):
        times = []
        for seed in range(repeats):
            start = time.perf_counter()
            parts = dirichlet_partition(labels, 200, alpha, seed=seed, min_size=10)
            times.append(time.perf_counter() - start)
        sizes = np.array([len(p) for p in parts])
        print(
            f"200 clients x 50,000 labels x 100 classes, alpha={alpha}: "
            f"median {np.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms "
            f"(last split: min {sizes.min()}, max {sizes.max()} samples per client)"
        )


if __name__ == "__main__":
    main()
