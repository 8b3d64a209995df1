"""Engine overhead: the same FedAvg rounds through the engine's sequential path and through a
plain PyTorch loop, in one process (the engine should lose under 10 %); then every method's
round time relative to FedAvg on the same partition.

    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.engine_overhead [--dataset digits]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from benchmarks.round_speed import BATCH, LR, MOMENTUM, engine, plain_loop
from fedquad_core.config import RunConfig
from fedquad_core.methods import METHODS
from fedquad_core.train.runner import prepare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="fashion-mnist")
    ap.add_argument("--train-subset", type=int, default=6000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    cfg = RunConfig(dataset=args.dataset, method="fedavg", model="cnn" if args.dataset != "digits" else "mlp",
                    num_clients=args.clients, alpha=0.5, local_epochs=1, batch_size=BATCH, lr=LR, momentum=MOMENTUM,
                    weight_decay=0.0, train_subset=args.train_subset, min_size=10)
    prep = prepare(cfg)
    plain, eng = [], []
    for _ in range(2):  # interleaved, so a noisy neighbour hurts both alike
        plain += plain_loop(cfg, prep, args.rounds)
        eng += engine(cfg, prep, args.rounds, "sequential")
    p, e = statistics.median(plain), statistics.median(eng)
    print(f"{args.dataset}, {args.clients} clients, {len(prep.dataset.y_train)} samples: plain loop {p:.3f} s/round, "
          f"engine {e:.3f} s/round, engine/plain = {e / p:.3f} ({(e / p - 1) * 100:+.1f} %)")
    base = None
    for name in METHODS:
        mcfg = dataclasses.replace(cfg, method=name)
        t = statistics.median(engine(mcfg, dataclasses.replace(prep, cfg=mcfg), args.rounds, "sequential"))
        base = base or t
        print(f"  {name:<11} {t:.3f} s/round  x{t / base:.2f} of fedavg")


if __name__ == "__main__":
    main()
