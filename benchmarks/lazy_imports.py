"""What the engine's remaining function-level imports save: the import time of each module imported
lazily, each in a fresh Python process (median of ``--repeat`` runs). Their comments cite these
numbers ("lazy: 1.3-1.6 s"); rerun this after a dependency upgrade.

    python -m benchmarks.lazy_imports [--repeat 3] [--write-docs]
"""
from __future__ import annotations

import argparse
import subprocess
import sys

from benchmarks.harness import Table, add_docs_flag, median, positive_int, write_docs

# the lazily imported module, and where the engine imports it inside a function
LAZY = {
    "torch": "config/devices.py resolve_device, runs/store.py save_weights",
    "fedquad_core.data": "config/limits.py _sizes, version.py key_settings",
    "fedquad_core.cli.main": "prefork/server.py preload and _child",
    "scipy.stats": "study/stats.py welch",
}
CODE = "import time; t = time.perf_counter(); import {name}; print(time.perf_counter() - t)"


def seconds(name: str) -> float:
    out = subprocess.run([sys.executable, "-c", CODE.format(name=name)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=positive_int, default=3)
    add_docs_flag(p)
    args = p.parse_args(argv)
    table = Table("lazy_imports", ["module", "import time", "median", "imported lazily in"],
                  title=f"Import time in a fresh process, {args.repeat} runs each")
    for name, where in LAZY.items():
        runs = [seconds(name) for _ in range(args.repeat)]
        print(f"{name:24s} {min(runs):.2f}-{max(runs):.2f} s (median {median(runs):.2f})  {where}")
        table.row(name, f"{min(runs):.2f}-{max(runs):.2f} s", f"{median(runs):.2f} s", where)
    if args.write_docs:
        write_docs(table, command=f"python -m benchmarks.lazy_imports --repeat {args.repeat} --write-docs")


if __name__ == "__main__":
    main()
