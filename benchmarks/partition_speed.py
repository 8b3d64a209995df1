"""Time the Dirichlet partition at the paper's largest setting: 200 clients over CIFAR-100 labels.

Run: OMP_NUM_THREADS=1 python -m benchmarks.partition_speed [--repeat 5] [--write-docs]
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks.harness import Table, add_docs_flag, fmt, positive_int, timed, write_docs
from fedquad_core.numerics.partition import dirichlet_partition


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive_int, default=5, help="partitions per alpha (seeds 0..repeat-1), default 5")
    add_docs_flag(parser)
    args = parser.parse_args(argv)
    labels = np.repeat(np.arange(100), 500)  # CIFAR-100 train: 50,000 labels, 100 classes
    table = Table("partition_speed", ["alpha", "time", "smallest client", "largest client"],
                  title="200 clients x 50,000 labels x 100 classes")
    for alpha in (0.3, 0.5):
        seeds = iter(range(args.repeat))
        parts: list = []
        times = timed(lambda: parts.__setitem__(slice(None), dirichlet_partition(labels, 200, alpha, seed=next(seeds),
                                                                                  min_size=10)), repeat=args.repeat)
        sizes = np.array([len(p) for p in parts])
        table.row(alpha, fmt(times, unit="ms"), f"{sizes.min()} samples", f"{sizes.max()} samples")
    table.print()
    if args.write_docs:
        write_docs(table, command=f"OMP_NUM_THREADS=1 python -m benchmarks.partition_speed --repeat {args.repeat} --write-docs",
                   note="Client sizes: the last seed's split.")


if __name__ == "__main__":
    main()
