"""Run a dashboard preset exactly as the Launch page does (background processes through the
launcher, same partition and seed for every method) and print the result table and wall time.

    .venv/bin/python -m benchmarks.preset_demo ["Collapse in one minute"] [--runs-dir DIR]
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path


from app.presets import PRESETS
from fedquad_core.config import RunConfig
from fedquad_core.runs.launcher import launch
from fedquad_core.runs.store import ACTIVE, RunStore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="Collapse in one minute", choices=list(PRESETS))
    ap.add_argument("--runs-dir", default=None)
    args = ap.parse_args()
    preset = PRESETS[args.preset]
    root = args.runs_dir or tempfile.mkdtemp(prefix="fedquad-preset-")
    store = RunStore(root)
    base = RunConfig(**preset["config"])
    t0 = time.perf_counter()
    ids = [launch(dataclasses.replace(base, method=m, name=m), root, extra={"group": "preset"})
           for m in preset["methods"]]
    while any(store.read_status(r)["state"] in ACTIVE for r in ids):
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    print(f"{args.preset}: {len(ids)} runs in {wall:.0f} s wall ({root})")
    print("| method | state | test accuracy | intra/inter ratio | ratio (L2) | effective rank | samples processed |")
    print("|---|---|---|---|---|---|---|")
    for r in ids:
        last, cfg = store.read_metrics(r)[-1], store.read_config(r)
        print(f"| {cfg['method']} | {store.read_status(r)['state']} | {100 * last['test_accuracy']:.1f} % | "
              f"{last['ratio']:.3f} | {last['ratio_l2']:.3f} | {last['effective_rank']:.1f} | {last['samples_total']:,} |")


if __name__ == "__main__":
    main()
