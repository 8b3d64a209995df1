"""Run a dashboard preset exactly as the Launch page does (background processes through the
launcher, same partition and seed for every method) and print the result table and wall time.

    .venv/bin/python -m benchmarks.preset_demo ["Collapse in one minute"] [--runs-dir DIR] [--write-docs]
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time

from app.presets import PRESETS
from benchmarks.harness import Table, add_docs_flag, finish
from fedquad_core.config import RunConfig
from fedquad_core.runs.launcher import launch
from fedquad_core.runs.store import ACTIVE, RunStore


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("preset", nargs="?", default="Collapse in one minute", choices=list(PRESETS))
    ap.add_argument("--runs-dir", default=None)
    add_docs_flag(ap)
    args = ap.parse_args(argv)
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
    table = Table("preset_demo", ["method", "state", "test accuracy", "intra/inter ratio", "ratio (L2)", "effective rank",
                                  "samples processed"], title=f"{args.preset}: {len(ids)} runs in {wall:.0f} s wall")
    for r in ids:
        last, cfg = store.read_metrics(r)[-1], store.read_config(r)
        table.row(cfg["method"], store.read_status(r)["state"], f"{100 * last['test_accuracy']:.1f} %", f"{last['ratio']:.3f}",
                  f"{last['ratio_l2']:.3f}", f"{last['effective_rank']:.1f}", f"{last['samples_total']:,}")
    print(f"runs in {root}")
    finish(table, args)


if __name__ == "__main__":
    main()
