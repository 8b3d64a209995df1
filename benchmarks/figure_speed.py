"""How long the dashboard's figures take to build, and (with --export) to export via kaleido.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.figure_speed [--export] [--repeat 20]

Build times are the best of ``--repeat`` runs (the machine may be shared); the target is a
200-client x 100-class partition heatmap under 50 ms. Export times are the best of three after
the first call, which also starts the kept-open browser (reported separately).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from app.figures import charts as figures
from benchmarks.harness import Table, add_docs_flag, best, positive_int, timed, write_docs


def best_ms(fn, repeat: int) -> float:
    return 1000 * best(timed(fn, repeat=repeat))


def cases() -> dict:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 60, size=(200, 100))
    counts[counts < 45] = 0
    rows = {f"r{i}": [{"round": r, "test_accuracy": r / 200, "samples_total": 1000 * r, "elapsed": 2.0 * r,
                       "ratio": 1.0 / r if r % 5 == 0 else None} for r in range(1, 201)] for i in range(4)}
    meta = {f"r{i}": {"label": f"run {i}", "method": ("fedavg", "fedquad")[i % 2]} for i in range(4)}
    df = figures.metrics_frame(rows, meta)
    xy, labels = rng.normal(size=(2000, 2)), np.arange(2000) % 10
    cdnv = np.abs(rng.normal(size=(100, 100)))
    spectra = {"fedavg": np.logspace(0, -6, 128), "fedquad": np.logspace(0, -3, 128)}
    return {
        "partition_heatmap 200x100": lambda: figures.partition_heatmap(counts),
        "partition_heatmap 200x100 talk": lambda: figures.partition_heatmap(counts, talk=True),
        "client_sizes_figure 200": lambda: figures.client_sizes_figure(counts),
        "curves_figure 4 runs x 200 rounds": lambda: figures.curves_figure(df, "test_accuracy"),
        "embedding_scatter 2000 pts": lambda: figures.embedding_scatter(xy, labels),
        "cdnv_heatmap 100x100": lambda: figures.cdnv_heatmap(cdnv),
        "spectrum_figure 2x128": lambda: figures.spectrum_figure(spectra),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive_int, default=20)
    parser.add_argument("--export", action="store_true", help="also time PNG/SVG/PDF export with kaleido")
    add_docs_flag(parser)
    args = parser.parse_args(argv)
    built = {}
    table = Table("figure_speed", ["figure", "build (best)"], title=f"Figure builds, best of {args.repeat}")
    for name, fn in cases().items():
        built[name] = fn()
        ms = best_ms(fn, args.repeat)
        print(f"build  {name:36s} {ms:7.1f} ms")
        table.row(name, f"{ms:.1f} ms")
    if args.write_docs:
        write_docs(table, command=f"OMP_NUM_THREADS=1 python -m benchmarks.figure_speed --repeat {args.repeat} --write-docs")
    if not args.export:
        return
    from app.export import files as export

    ok, why = export.export_available()
    if not ok:
        print(f"export unavailable: {why}")
        return
    t0 = time.perf_counter()
    export.figure_bytes(built["spectrum_figure 2x128"], "svg")
    print(f"export first call (starts {why}) {time.perf_counter() - t0:.2f} s")
    for name, fig in built.items():
        times = " ".join(f"{fmt} {best_ms(lambda: export.figure_bytes(fig, fmt), 3) / 1000:.2f}s"
                         for fmt in ("png", "svg", "pdf", "html"))
        print(f"export {name:36s} {times}")


if __name__ == "__main__":
    main()
