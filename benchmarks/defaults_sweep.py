"""The small measured sweep behind FedQuad's default hyperparameters and the demo presets.

Digits (MLP), 50 clients, Dirichlet alpha 0.3, 2 local epochs, 30 rounds, every client every
round; two seeds per setting; two runs at a time (one per core, one thread each). Prints a
Markdown table of final test accuracy, intra/inter ratio and effective rank (mean over seeds).

    .venv/bin/python -m benchmarks.defaults_sweep [--rounds 30] [--seeds 0,1] [--out FILE] [--write-docs]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from benchmarks.harness import Table, add_docs_flag, finish
from fedquad_core.config import RunConfig

# (label, method, lr, method_params, normalize_embeddings); rows without "tuples N" in the label
# ran with 16 tuples per batch, the default at the time
GRID = [
    ("FedAvg lr 0.05", "fedavg", 0.05, {}, True),
    ("FedAvg lr 0.1", "fedavg", 0.1, {}, True),
    ("FedQuad lr 0.05 b1 m1 1.0 m2 0.5", "fedquad", 0.05, {"beta": 1.0, "m1": 1.0, "m2": 0.5}, True),
    ("FedQuad lr 0.1 b1 m1 1.0 m2 0.5", "fedquad", 0.1, {"beta": 1.0, "m1": 1.0, "m2": 0.5}, True),
    ("FedQuad lr 0.1 b0.5 m1 1.0 m2 0.5", "fedquad", 0.1, {"beta": 0.5, "m1": 1.0, "m2": 0.5}, True),
    ("FedQuad lr 0.1 b2 m1 1.0 m2 0.5", "fedquad", 0.1, {"beta": 2.0, "m1": 1.0, "m2": 0.5}, True),
    ("FedQuad lr 0.1 b1 m1 0.5 m2 0.25", "fedquad", 0.1, {"beta": 1.0, "m1": 0.5, "m2": 0.25}, True),
    ("FedQuad lr 0.1 b1 m1 1.0 m2 1.0", "fedquad", 0.1, {"beta": 1.0, "m1": 1.0, "m2": 1.0}, True),
    ("FedQuad lr 0.1 b1 tuples 8", "fedquad", 0.1, {"beta": 1.0, "tuples_per_batch": 8}, True),
    ("FedQuad lr 0.1 b1 raw embeddings", "fedquad", 0.1, {"beta": 1.0}, False),
    ("FedQuad lr 0.1 b2 m1 1.0 m2 0.5 tuples 8", "fedquad", 0.1, {"beta": 2.0, "m1": 1.0, "m2": 0.5, "tuples_per_batch": 8}, True),
    ("FedQuad lr 0.1 b2 m1 1.0 m2 1.0 tuples 8", "fedquad", 0.1, {"beta": 2.0, "m1": 1.0, "m2": 1.0, "tuples_per_batch": 8}, True),
    ("FedQuad lr 0.1 b2 m1 1.0 m2 0.5 tuples 4", "fedquad", 0.1, {"beta": 2.0, "m1": 1.0, "m2": 0.5, "tuples_per_batch": 4}, True),
]


def one(job):
    label, method, lr, params, norm, seed, rounds, root = job
    from fedquad_core.train.runner import execute
    from fedquad_core.runs.store import RunStore

    cfg = RunConfig(dataset="digits", num_clients=50, alpha=0.3, rounds=rounds, local_epochs=2, lr=lr, method=method,
                    method_params=params, normalize_embeddings=norm, seed=seed, snapshot_every=rounds)
    store = RunStore(root)
    rows = store.read_metrics(execute(cfg, store, progress=False))
    return label, seed, rows[-1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--out", help="also write the table (title and rows) to this file")
    ap.add_argument("--match", default="", help="run only the settings whose label contains this text")
    add_docs_flag(ap)
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    root = tempfile.mkdtemp(prefix="fedquad-sweep-")
    grid = [g for g in GRID if args.match in g[0]]
    grid = [(label, m, lr, {"tuples_per_batch": 16, **params} if m == "fedquad" else params, norm)
            for label, m, lr, params, norm in grid]
    jobs = [(*g, s, args.rounds, root) for g in grid for s in seeds]
    results: dict[str, list[dict]] = {}
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for label, seed, last in pool.map(one, jobs):
            results.setdefault(label, []).append(last)
            print(f"{label} seed {seed}: acc {last['test_accuracy']:.3f} ratio {last['ratio']:.3f}", file=sys.stderr)
    table = Table("defaults_sweep", ["setting", "test accuracy", "intra/inter ratio", "ratio (L2)", "effective rank"],
                  title=f"Digits, MLP, 50 clients, alpha 0.3, 2 local epochs, {args.rounds} rounds, seeds {args.seeds} (mean)")
    for label, _, *_ in grid:
        rs = results[label]
        mean = lambda k: sum(r[k] for r in rs) / len(rs)  # noqa: E731
        table.row(label, f"{100 * mean('test_accuracy'):.1f} %", f"{mean('ratio'):.3f}", f"{mean('ratio_l2'):.3f}",
                  f"{mean('effective_rank'):.1f}")
    finish(table, args)
    if args.out:
        Path(args.out).write_text(f"{table.title}\n\n{table.markdown()}\n")


if __name__ == "__main__":
    main()
