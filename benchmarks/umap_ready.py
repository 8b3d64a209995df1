"""How soon a UMAP picture is on disk.

(a) A fresh process's time to its first UMAP of a digits-sized snapshot (397 x 64), from
    process start (``app.projection.umap_fit.compute_umap``): with umap's own numba decorators (compiles every time), with numba's on-disk
    cache (``app.projection.umap_fit.enable_numba_cache``; the first process fills it), and with the
    projection worker already warm (snapshot written -> layout on disk).
(b) The "Collapse in one minute" preset (FedAvg + FedQuad on digits, 50 clients, 30 rounds, a
    snapshot every 3 rounds), launched as the Launch page does, with the worker serving the
    store: for each run, the time from its end to its final round's picture and to its last
    picture on disk (goal: at most 5 s).

    .venv/bin/python -m benchmarks.umap_ready [--skip-cold] [--keep DIR] [--write-docs]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import numpy as np  # noqa: E402

from app.projection import cache as projection
from app.projection import worker as projection_worker
from app.presets import PRESETS
from benchmarks.harness import Table, add_docs_flag, finish
from fedquad_core.config import RunConfig
from fedquad_core.runs.launcher import launch  # spawn_detached reaps each child on a thread of its own
from fedquad_core.runs.store import ACTIVE, RunStore

CHILD = """
import sys, numpy as np
from app.projection import umap_fit
if sys.argv[2] == "cache":
    umap_fit.enable_numba_cache()
with np.load(sys.argv[1], allow_pickle=False) as d:
    umap_fit.compute_umap(d["embeddings"])
"""
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def fake_snapshot(path: Path, n: int = 397, d: int = 64) -> Path:
    rng = np.random.default_rng(0)
    y = np.arange(n) % 10
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, embeddings=(rng.normal(size=(n, d)) + 3.0 * y[:, None]).astype(np.float32), labels=y,
             indices=np.arange(n))  # which test points: a snapshot the store reads has them
    return path


def fresh_process(npz: Path, mode: str, cache_dir: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", CHILD, str(npz), mode], cwd=ROOT, check=True,
                   env={**ENV, "NUMBA_CACHE_DIR": str(cache_dir)})
    return time.perf_counter() - t0


def cold_starts(tmp: Path, table: Table) -> None:
    """(a): a fresh process's first UMAP of 397 x 64 points, seconds from process start."""
    npz = fake_snapshot(tmp / "snap" / "embeddings" / "round_0001.npz")
    for mode, label in (("plain", "umap's own decorators (compiles each time)"), ("cache", "numba on-disk cache")):
        cache = tmp / f"numba-{mode}"
        first, second = fresh_process(npz, mode, cache), fresh_process(npz, mode, cache)
        table.row(f"(a) fresh process -> first UMAP, {label}", f"first process {first:.1f} s, next process {second:.1f} s")


def probe_run(root: Path) -> Path:
    """The latency probe's run folder under ``root``: a run as the store reads one (a status), as
    the projection worker skips any other folder."""
    run = root / "latency-probe"
    run.mkdir(parents=True, exist_ok=True)
    (run / "status.json").write_text('{"state": "finished"}')
    return run


def worker_latency(root: Path, table: Table, wait_s: float = 120.0) -> None:
    run = probe_run(root)
    times = []
    for r in range(1, 4):
        t0 = time.perf_counter()
        fake_snapshot(run / "embeddings" / f"round_{r:04d}.npz")
        while not projection.umap_ready(run, r):
            if time.perf_counter() - t0 > wait_s:
                raise SystemExit(f"umap_ready: the projection worker drew no layout of {run.name} round {r} in "
                                 f"{wait_s:.0f} s: see {projection.snapshot_files(run, r)[3]} and "
                                 f"{root / projection_worker.LOG_NAME}")
            time.sleep(0.01)
        times.append(time.perf_counter() - t0)
    table.row("warm projection worker: snapshot written -> layout on disk", ", ".join(f"{t:.2f} s" for t in times))
    shutil.rmtree(run)


def preset_run(root: Path, table: Table) -> None:
    preset = PRESETS["Collapse in one minute"]
    base, store = RunConfig(**preset["config"]), RunStore(root)
    t0 = time.time()
    ids = [launch(dataclasses.replace(base, method=m, name=m), root, extra={"group": "preset"})
           for m in preset["methods"]]
    while any(store.read_status(r)["state"] in ACTIVE for r in ids):
        time.sleep(0.2)
    deadline = time.time() + 300
    while time.time() < deadline and not all(projection.umap_ready(store.path(r), q)
                                              for r in ids for q in store.snapshot_rounds(r)):
        time.sleep(0.1)
    for r in ids:
        status, path, rounds = store.read_status(r), store.path(r), store.snapshot_rounds(r)
        ended = status["ended"]
        done = {q: projection.snapshot_files(path, q)[1].stat().st_mtime for q in rounds
                if projection.umap_ready(path, q)}
        final = done.get(rounds[-1])
        final_s = "missing" if final is None else f"{final - ended:+.1f}"
        last_s = "missing" if len(done) < len(rounds) else f"{max(done.values()) - ended:+.1f}"
        table.row(f"(b) preset run {store.read_config(r)['method']}: run time; pictures before its end / of all; "
                  "final round's picture and last picture, s after its end",
                  f"{ended - status['started']:.1f} s; {sum(t <= ended for t in done.values())} / {len(rounds)}; "
                  f"final {final_s}, last {last_s}")
    table.row("(b) launch -> last picture (wall)", f"{time.time() - t0:.1f} s, load {os.getloadavg()[0]:.1f} at the end")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-cold", action="store_true", help="skip (a)'s fresh-process timings")
    ap.add_argument("--keep", help="use this folder (kept) instead of a temporary one")
    add_docs_flag(ap)
    args = ap.parse_args(argv)
    table = Table("umap_ready", ["measured", "seconds"], title="How soon UMAP pictures are on disk (digits-sized "
                  "snapshot 397 x 64; the one-minute preset with the projection worker serving the store)")
    tmp = Path(args.keep or tempfile.mkdtemp(prefix="fedquad-umap-ready-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    if not args.skip_cold:
        cold_starts(tmp, table)
    root = tmp / "runs"
    t0 = time.perf_counter()
    projection_worker.ensure_worker(root, parent=os.getpid(), idle_s=600)
    while "warm-up" not in (root / projection_worker.LOG_NAME).read_text():
        time.sleep(0.05)
    table.row("projection worker start (its cache as found) -> ready", f"{time.perf_counter() - t0:.1f} s")
    try:
        worker_latency(root, table)
        preset_run(root, table)
    finally:
        projection_worker.stop_worker(root)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    finish(table, args)


if __name__ == "__main__":
    main()
