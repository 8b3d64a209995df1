"""Torch threads on a small machine: 1 vs 2 threads, with and without OMP_WAIT_POLICY=PASSIVE,
on the simple CNN's training step (batch 64, 28x28). Each setting runs in a fresh process,
because OpenMP reads its environment once. ``runner.configure_threads`` cites this.

    python -m benchmarks.threads [--repeat 3] [--write-docs]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from benchmarks.harness import Table, add_docs_flag, finish, median, positive_int

WORK = """
import time, torch
torch.manual_seed(0)
from torch import nn
m = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                  nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
def step():
    opt.zero_grad(); nn.functional.cross_entropy(m(x), y).backward(); opt.step()
for _ in range(10): step()
t = time.perf_counter()
for _ in range(200): step()
print((time.perf_counter() - t) / 200 * 1e3)
"""


def _env(threads: int, passive: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS")}
    env["OMP_NUM_THREADS"] = str(threads)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def one(threads: int, passive: bool) -> float:
    out = subprocess.run([sys.executable, "-c", WORK], env=_env(threads, passive), capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip())


def side_by_side(processes: int, threads: int, passive: bool) -> float:
    """Mean ms/step when ``processes`` copies run at once: how well the cores scale together
    (the ceiling for parallel client workers and concurrent runs)."""
    procs = [subprocess.Popen([sys.executable, "-c", WORK], env=_env(threads, passive), stdout=subprocess.PIPE,
                              text=True) for _ in range(processes)]
    return statistics.mean(float(p.communicate()[0].strip()) for p in procs)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=positive_int, default=3, help="processes per setting (the median is kept), default 3")
    add_docs_flag(p)
    args = p.parse_args(argv)
    table = Table("threads", ["setting", "ms per step (median)"],
                  title=f"Simple CNN training step, batch 64, median of {args.repeat} processes, {os.cpu_count()} cores")
    for threads in (1, 2):
        for passive in (False, True):
            ms = median([one(threads, passive) for _ in range(args.repeat)])
            table.row(f"1 process, {threads} thread{'s' * (threads > 1)}, {'PASSIVE' if passive else 'default wait policy'}",
                      f"{ms:.2f}")
    for threads, passive in ((1, True), (2, False), (2, True)):
        ms = median([side_by_side(2, threads, passive) for _ in range(args.repeat)])
        table.row(f"2 processes at once, {threads} thread{'s' * (threads > 1)} each, "
                  f"{'PASSIVE' if passive else 'default wait policy'}", f"{ms:.2f} per process")
    finish(table, args)


if __name__ == "__main__":
    main()
