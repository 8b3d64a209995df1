"""Engine overhead: the same FedAvg rounds through the engine's sequential path and through a
plain PyTorch loop, in one process (the engine should lose under 10 %); then every method's
round time relative to FedAvg on the same partition.

    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.engine_overhead [--dataset digits] [--write-docs]
"""
from __future__ import annotations

import argparse
import dataclasses
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from benchmarks.harness import Table, add_docs_flag, median, ratio, write_docs
from benchmarks.round_speed import BATCH, LR, MOMENTUM, engine, plain_loop
from fedquad_core.config import RunConfig
from fedquad_core.methods import METHODS
from fedquad_core.train.runner import prepare


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="fashion-mnist")
    ap.add_argument("--train-subset", type=int, default=6000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    add_docs_flag(ap)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    cfg = RunConfig(dataset=args.dataset, method="fedavg", model="cnn" if args.dataset != "digits" else "mlp",
                    num_clients=args.clients, alpha=0.5, local_epochs=1, batch_size=BATCH, lr=LR, momentum=MOMENTUM,
                    weight_decay=0.0, train_subset=args.train_subset, min_size=10)
    prep = prepare(cfg)
    plain, eng = [], []
    for _ in range(2):  # interleaved, so a noisy neighbour hurts both alike
        plain += plain_loop(cfg, prep, args.rounds)
        eng += engine(cfg, prep, args.rounds, "sequential")
    p, e = median(plain), median(eng)
    print(f"{args.dataset}, {args.clients} clients, {len(prep.dataset.y_train)} samples: plain loop {p:.3f} s/round, "
          f"engine {e:.3f} s/round, engine/plain = {e / p:.3f} ({(e / p - 1) * 100:+.1f} %)")
    table = Table("engine_overhead", ["path or method", "s/round (median)", "ratio"],
                  title=f"{args.dataset}, {args.clients} clients, {len(prep.dataset.y_train)} samples, one process")
    table.row("plain PyTorch loop", f"{p:.3f}", "1.00x (baseline)")
    table.row("engine, FedAvg", f"{e:.3f}", ratio(eng, plain) + " of the plain loop")
    base = None
    for name in METHODS:
        mcfg = dataclasses.replace(cfg, method=name)
        times = engine(mcfg, dataclasses.replace(prep, cfg=mcfg), args.rounds, "sequential")
        base = base or times
        print(f"  {name:<11} {median(times):.3f} s/round  x{median(times) / median(base):.2f} of fedavg")
        table.row(f"engine, {name}", f"{median(times):.3f}", ratio(times, base) + " of fedavg")
    if args.write_docs:
        write_docs(table, command="OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.engine_overhead "
                                  f"--dataset {args.dataset} --clients {args.clients} --rounds {args.rounds} --write-docs")


if __name__ == "__main__":
    main()
