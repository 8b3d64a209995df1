"""What measuring the local models costs: the one-minute preset's setting ("Collapse in one minute":
digits, 50 clients, alpha 0.1, 2 local epochs, snapshot every 3 rounds) run with
``local_clients=10`` (A) and ``local_clients=0`` (B), interleaved A B A B in one process after one
untimed warm-up run, each run in a fresh temporary run store. Prints, per method, the median time of a snapshot round (the rounds
that measure) with A and with B and their ratio, and the ratio of the whole runs' times.

    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.local_metrics_cost             # 3 repeats
    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.local_metrics_cost --repeats 2 --rounds 12
    ... --write-docs                                 # and write the table into docs/performance.md
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]

from app.presets import PRESETS
from benchmarks.harness import Table, add_docs_flag, finish, median, positive_int, ratio
from fedquad_core.config import RunConfig
from fedquad_core.train.runner import execute
from fedquad_core.runs.store import RunStore

PRESET = "Collapse in one minute"


def one_run(cfg: RunConfig) -> tuple[list[float], float]:
    """(round times of the snapshot rounds, whole-run seconds) of one fresh run of ``cfg``."""
    with tempfile.TemporaryDirectory() as root:
        store = RunStore(root)
        run_id = execute(cfg, store, progress=False, threads=1)
        rows = store.read_metrics(run_id)
    assert len(rows) == cfg.rounds, f"run ended after {len(rows)} rounds"
    return [r["round_time"] for r in rows if "ratio" in r], rows[-1]["elapsed"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=positive_int, default=3, help="A B pairs per method (default 3)")
    p.add_argument("--rounds", type=int, help="rounds a run (default: the preset's)")
    p.add_argument("--methods", default=",".join(PRESETS[PRESET]["methods"]), help="comma-separated (default: the preset's)")
    add_docs_flag(p)
    args = p.parse_args(argv)
    base = dict(PRESETS[PRESET]["config"])
    if args.rounds:
        base["rounds"] = args.rounds
    table = Table("local_metrics_cost", ["method", "snapshot round, K = 10", "snapshot round, K = 0", "ratio",
                                         "whole run, K = 10", "whole run, K = 0", "ratio (whole run)"], title=f"{PRESET}'s setting, {base['rounds']} rounds, "
                  f"local_clients K = 10 against 0 interleaved, {args.repeats} pairs (medians)")
    one_run(RunConfig(**{**base, "rounds": 2}, method="fedavg", device="cpu"))  # warm-up: imports, first allocations
    for method in args.methods.split(","):
        times: dict[int, list[float]] = {10: [], 0: []}
        totals: dict[int, list[float]] = {10: [], 0: []}
        for _ in range(args.repeats):
            for k in (10, 0):  # A B, A B, ...
                snaps, total = one_run(RunConfig(**base, method=method, local_clients=k, device="cpu"))
                times[k] += snaps
                totals[k].append(total)
        table.row(method, f"{median(times[10]):.3f} s", f"{median(times[0]):.3f} s", ratio(times[10], times[0]),
                  f"{median(totals[10]):.2f} s", f"{median(totals[0]):.2f} s", ratio(totals[10], totals[0]))
    finish(table, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
