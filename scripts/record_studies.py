"""Regenerate the recorded studies shipped in ``assets/recorded/`` (a run-store root the app
opens read-only), with the exact settings below:

    .venv/bin/python scripts/record_studies.py                     # all three, into assets/recorded
    .venv/bin/python scripts/record_studies.py --only digits-alpha
    .venv/bin/python scripts/record_studies.py --quick --out /tmp/recorded   # tiny version (tests, dev)

Each study runs with ``run_study`` into a scratch run store (``--scratch``, kept: rerunning the
script resumes and reuses its finished runs), then its runs are copied into ``--out`` compacted:
no model.pt and no log.txt; embedding snapshots as float16 with at most ``--points`` test points
(a fixed class-stratified subset, the same in every round of a run); every snapshot round kept
for seed 0 of digits-alpha (so the app can animate the collapse), only the final snapshot for
the other runs; and the UMAP layout of every stored snapshot computed here, in this one process
(numba compiles once, or loads the app's numba cache), as ``embeddings/umap_round_NNNN.npy``
(app/projection/cache.py's cache file, computed by app/projection/umap_fit.py like the app's).
Everything in ``--out`` must weigh at most ``--budget-mb`` (60 MB): the script fails otherwise.

Settings: the digits studies use the dashboard preset "Collapse in one minute" (app/presets.py:
digits, MLP, 50 clients, min_size 5, 2 local epochs, 30 rounds, lr 0.1, a snapshot every 3
rounds). fmnist-methods uses fmnist-skew's setting (CNN, 10 clients of a 6,000-image subset, 5 local
epochs, lr 0.02, 80 rounds: FedAvg at alpha 0.1 has reached its plateau there) at alpha 0.1, the
strongest skew, so its FedAvg and FedQuad runs are fmnist-skew's (reused, not trained twice); its
rounds, training subset and seeds are options (defaults: 80 rounds, 6,000 images, seeds 0-2; the
15 runs of the five other methods take about 70 minutes on 2 cores). At 20 rounds of the
Fashion-MNIST preset's setting (50 clients of 120 images, 2 local epochs) FedAvg at alpha 0.1
still gained 15 points over its last 10 rounds; a plateau there, at four alphas, would take
hours more than these cores have.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from app.presets import PRESETS  # noqa: E402  (plain data, no streamlit)
from fedquad_core.config import RunConfig  # noqa: E402
from fedquad_core.runs.files import drop_client_lists  # noqa: E402
from fedquad_core.config.devices import usable_cores  # noqa: E402
from fedquad_core.user_errors import USER_ERRORS  # noqa: E402
from fedquad_core.numerics.geometry import stratified_subset  # noqa: E402
from fedquad_core.methods import METHODS  # noqa: E402
from fedquad_core.study import StudyPool, StudySpec, StudyStore, check_grid, run_study  # noqa: E402

NAMES = ("digits-alpha", "digits-margins", "fmnist-methods", "digits-local", "fmnist-skew", "fmnist-regime",
         "fmnist-paper", "fmnist-paper-2pct")
KEPT_FILES = ("config.json", "status.json", "metrics.jsonl", "partition.json")
MARGINS = [0.0, 0.25, 0.5, 1.0, 2.0]
# The studies about local models keep fewer test points per stored snapshot (their local snapshots
# hold one embedding per measured client and point): 300, within the 30 MB budget; the other
# studies keep only the means of the local metrics (no per-client rows).
SMALL, SMALL_POINTS = ("digits-local", "fmnist-skew", "fmnist-regime", "fmnist-paper", "fmnist-paper-2pct"), 300
SEEDS = 5  # every study that backs a row of the claims table (docs/claims.md)


def _preset(name: str, drop: tuple[str, ...]) -> dict:
    return {k: v for k, v in PRESETS[name]["config"].items() if k not in drop}


def _partitions(base: RunConfig, alpha: float, seeds: list[int]) -> bool:
    try:
        check_grid([dataclasses.replace(base, alpha=alpha, seed=s) for s in seeds])
        return True
    except USER_ERRORS:
        return False


def drawable_seeds(base: RunConfig, alpha: float, count: int) -> list[int]:
    """The first ``count`` seeds whose partition at ``alpha`` can be drawn (with the preset's 50
    clients and min_size 5, digits at alpha 0.1 cannot be split for seed 2: seeds 0, 1, 3)."""
    seeds = [s for s in range(50) if _partitions(base, alpha, [s])][:count]
    print(f"record_studies: seeds {seeds} (the first {count} that partition at alpha {alpha})", flush=True)
    return seeds


def smallest_alphas(base: RunConfig, candidates: list[float], seeds: list[int]) -> list[float]:
    """The smallest candidate alpha whose partitions can be drawn for every seed ([] if none)."""
    found = [a for a in candidates if _partitions(base, a, seeds)][:1]
    print(f"record_studies: smallest alpha below 0.1 that partitions for every seed: {found or 'none'}", flush=True)
    return found


def specs(args) -> list[StudySpec]:
    quick = args.quick
    digits = RunConfig(**{**_preset("Collapse in one minute", ("alpha", "seed")),
                          **({"rounds": 2, "snapshot_every": 1} if quick else {})})
    seeds = [0] if quick else drawable_seeds(digits, 0.1, 3)
    low = [] if quick else smallest_alphas(digits, [0.05, 0.06, 0.07, 0.08, 0.09], seeds)
    alphas = [0.1, None] if quick else [*low, 0.1, 0.2, 0.3, 0.5, 1.0, 10.0, None]
    # digits-local: 10 clients of about 140 images, batch 32, so a client takes 4-5 SGD steps an
    # epoch (the one-minute preset's 50 clients of 28 images take one): local computation is real.
    # 60 rounds: at 30, FedAvg at alpha 0.1 still gained 1.3 points over its last 10 (the bar is 1).
    local = RunConfig(dataset="digits", model="mlp", num_clients=10, min_size=20, batch_size=32,
                      rounds=2 if quick else 60, snapshot_every=1 if quick else 3, lr=0.05)
    local_seeds = [0] if quick else drawable_seeds(local, 0.1, SEEDS)
    # fmnist-skew: where FedAvg's global effective rank falls with skew (10 clients of 600 images,
    # 5 local epochs); a snapshot every 2 rounds so runs can be compared at matched accuracy;
    # 80 rounds (20 left FedAvg at alpha 0.1 climbing, 40 still gained 2.1 points over the last 10,
    # 60 gained 1.2; the plateau bar is under 1).
    skew = RunConfig(dataset="fashion-mnist", model="cnn", num_clients=10, train_subset=600 if quick else 6000,
                     local_epochs=1 if quick else 5, lr=0.02, rounds=2 if quick else 80,
                     snapshot_every=1 if quick else 2, eval_points=2000)
    # fmnist-methods: the seven methods in fmnist-skew's setting, trained as far (its rounds,
    # subset and seeds are options).
    fm = skew if quick else dataclasses.replace(skew, rounds=args.fmnist_rounds, train_subset=args.fmnist_subset)
    # fmnist-regime: the paper's regime (many clients, 10 % of them a round, alpha 0.3).
    regime = RunConfig(dataset="fashion-mnist", model="cnn", num_clients=20 if quick else 100, alpha=0.3,
                       participation=0.1 if not quick else 0.25, train_subset=1200 if quick else 12000,
                       min_size=10, local_epochs=1 if quick else 5, lr=0.02, rounds=2 if quick else 60,
                       snapshot_every=1 if quick else 5, eval_points=2000)
    regime_methods = ["fedavg", "fedquad"] if quick else ["fedavg", "moon", "fedquad"]
    # fmnist-paper: the paper's scale: the whole Fashion-MNIST training set over 200 clients, alpha
    # 0.3, 5 % of them a round (10 clients of about 300 images), 100 rounds; and 2 % (4 a round).
    paper = RunConfig(dataset="fashion-mnist", model="cnn", num_clients=20 if quick else 200, alpha=0.3,
                      participation=0.25 if quick else 0.05, train_subset=1200 if quick else None,
                      min_size=10, local_epochs=1 if quick else 5, lr=0.02, rounds=2 if quick else 100,
                      snapshot_every=1 if quick else 5, eval_points=2000)
    paper_low = dataclasses.replace(paper, participation=0.1 if quick else 0.02)
    return [
        StudySpec("digits-alpha", digits, {"alpha": alphas, "method": ["fedavg", "fedquad"], "seed": seeds},
                  title="Collapse across alpha (digits)",
                  description=f"FedAvg and FedQuad on digits, 50 clients, from strong label skew to IID, seeds {seeds}."),
        StudySpec("digits-margins", dataclasses.replace(digits, alpha=0.1),
                  {"method": ["fedavg", "fedquad"], "m1": [0.0, 1.0] if quick else MARGINS,
                   "m2": [0.5] if quick else MARGINS, "seed": seeds},
                  title="FedQuad's margins m1 x m2 (digits, alpha 0.1)",
                  description="FedQuad's two margins at strong skew (m1 = m2 = 0 is no quadruplet margin); "
                              "FedAvg is the reference."),
        StudySpec("fmnist-methods", fm,
                  {"alpha": [0.3, None] if quick else [0.1],
                   "method": ["fedavg", "fedquad"] if quick else list(METHODS),
                   "seed": [0] if quick else args.fmnist_seeds},
                  title="Seven methods under skew (Fashion-MNIST subset, alpha 0.1)",
                  description=f"The seven methods at alpha 0.1 on a {fm.train_subset}-image Fashion-MNIST subset, "
                              f"{fm.num_clients} clients, {fm.local_epochs} local epochs, lr {fm.lr}, "
                              f"{fm.rounds} rounds (fmnist-skew's setting)."),
        StudySpec("digits-local", local,
                  {"local_epochs": [1, 10] if quick else [1, 2, 5, 10], "alpha": [0.1, None] if quick else [0.1, 0.3, None],
                   "method": ["fedavg", "fedquad"], "seed": local_seeds},
                  title="Local computation and client drift (digits)",
                  description="FedAvg and FedQuad on digits, 10 clients of about 140 images (4-5 SGD steps an "
                              "epoch), 1 to 10 local epochs, from strong skew to IID; each client's local model "
                              "is measured at every snapshot."),
        StudySpec("fmnist-skew", skew,
                  {"alpha": [0.1, None], "method": ["fedavg", "fedquad"],
                   "seed": [0] if quick else list(range(SEEDS))},
                  title="Global collapse under skew (Fashion-MNIST subset)",
                  description=f"FedAvg and FedQuad, {skew.train_subset}-image Fashion-MNIST subset, 10 clients, "
                              f"{skew.local_epochs} local epochs, lr {skew.lr}, {skew.rounds} rounds; a snapshot every "
                              f"{skew.snapshot_every} rounds so runs can be compared at matched accuracy."),
        StudySpec("fmnist-regime", regime,
                  {"method": regime_methods, "seed": [0] if quick else [0, 1, 2]},
                  title="The paper's regime: many clients, low participation (Fashion-MNIST)",
                  description=f"{regime.num_clients} clients, {regime.participation:.0%} of them a round, alpha "
                              f"{regime.alpha}, {regime.train_subset}-image subset, {regime.local_epochs} local "
                              f"epochs, {regime.rounds} rounds."),
        StudySpec("fmnist-paper", paper,
                  {"method": regime_methods, "seed": [0] if quick else list(range(SEEDS))},
                  title="The paper's scale: 200 clients, 5 % a round (Fashion-MNIST)",
                  description=f"The whole Fashion-MNIST training set over {paper.num_clients} clients, alpha "
                              f"{paper.alpha}, {paper.participation:.0%} of them a round, {paper.local_epochs} "
                              f"local epochs, lr {paper.lr}, {paper.rounds} rounds (Göksu & Pugeault's setting "
                              "with Fashion-MNIST for CIFAR-10)."),
        StudySpec("fmnist-paper-2pct", paper_low,
                  {"method": ["fedavg", "fedquad"], "seed": [0] if quick else [0, 1, 2]},
                  title="The paper's scale at 2 % participation (Fashion-MNIST)",
                  description=f"As fmnist-paper, {paper_low.participation:.0%} of the {paper_low.num_clients} "
                              f"clients a round, {paper_low.rounds} rounds."),
    ]


# ---- compaction ---------------------------------------------------------------------------------
def compact_snapshot(src: Path, dst: Path, max_points: int) -> np.ndarray:
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    keep = stratified_subset(arrays["labels"], max_points, seed=0)
    for key in ("embeddings", "labels", "indices"):
        arrays[key] = arrays[key][keep]
    arrays["embeddings"] = arrays["embeddings"].astype(np.float16)
    _save_compact(dst, arrays)
    return arrays["embeddings"].astype(np.float32)


def _save_compact(dst: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write a compacted snapshot: float64 arrays as float32, zip-compressed."""
    for key, value in arrays.items():
        if value.dtype == np.float64:
            arrays[key] = value.astype(np.float32)
    with open(dst, "wb") as f:
        np.savez_compressed(f, **arrays)


def compact_local(src: Path, dst: Path, keep: np.ndarray) -> None:
    """The measured clients' local embeddings of one snapshot, on the same kept points as the
    compacted global snapshot, as float16."""
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["embeddings"] = arrays["embeddings"][:, keep].astype(np.float16)
    arrays["start_embeddings"] = arrays["start_embeddings"][keep].astype(np.float16)
    _save_compact(dst, arrays)


def compact_run(src: Path, dst: Path, *, all_rounds: bool, max_points: int,
                local: bool = False, client_rows: bool = True) -> dict[int, np.ndarray]:
    """Copy one run folder compacted; return the stored embeddings per kept round. Rounds an
    earlier copy of the same run kept (another study animates it) are kept too. With ``local``,
    the final round's local snapshot (each measured client's embeddings) is kept too; the local
    metrics themselves are in metrics.jsonl for every run."""
    rounds = sorted(int(p.stem.split("_")[1]) for p in (src / "embeddings").glob("round_*.npz"))
    kept = set(rounds if all_rounds else rounds[-1:])
    if _same_run(src, dst):  # a run two studies share is stored for both: what either keeps
        kept |= {int(p.stem.split("_")[1]) for p in (dst / "embeddings").glob("round_*.npz")} & set(rounds)
        client_rows, local, max_points = _union_with_earlier(dst, client_rows, local, max_points)
    shutil.rmtree(dst, ignore_errors=True)
    (dst / "embeddings").mkdir(parents=True)
    for name in KEPT_FILES:
        if (src / name).exists():
            shutil.copy2(src / name, dst / name)
    out = {r: compact_snapshot(src / "embeddings" / f"round_{r:04d}.npz", dst / "embeddings" / f"round_{r:04d}.npz",
                               max_points) for r in sorted(kept)}
    if not client_rows:
        drop_client_lists(dst / "metrics.jsonl")
    local_src = src / "embeddings" / f"local_round_{rounds[-1]:04d}.npz" if rounds else None
    if local and local_src is not None and local_src.exists():
        with np.load(src / "embeddings" / f"round_{rounds[-1]:04d}.npz", allow_pickle=False) as data:
            keep = stratified_subset(data["labels"], max_points, seed=0)
        compact_local(local_src, dst / "embeddings" / local_src.name, keep)
    status = json.loads((dst / "status.json").read_text())
    status["recorded"] = {"snapshot_rounds": "all" if kept == set(rounds) else "final", "max_points": max_points,
                          "embeddings": "float16", "weights": "not kept",
                          "local_embeddings": "final round" if (dst / "embeddings" / f"local_round_{rounds[-1]:04d}.npz").exists()
                          else "not kept"}
    (dst / "status.json").write_text(json.dumps(status, indent=2, sort_keys=True))
    return out


def _union_with_earlier(dst: Path, client_rows: bool, local: bool, max_points: int) -> tuple[bool, bool, int]:
    """(client_rows, local, max_points) covering an earlier copy of the same run: its per-client
    rows, its local snapshot and its smaller point count are kept (fmnist-methods reuses
    fmnist-skew's runs, whose Clients-page rows and pictures must survive its recording)."""
    try:
        rows = [json.loads(line) for line in (dst / "metrics.jsonl").read_text().splitlines() if line.strip()]
        client_rows = client_rows or any("local" in row for row in rows)
        earlier = json.loads((dst / "status.json").read_text()).get("recorded") or {}
    except (OSError, ValueError):
        return client_rows, local, max_points
    local = local or earlier.get("local_embeddings") == "final round"
    if isinstance(earlier.get("max_points"), int):
        max_points = min(max_points, earlier["max_points"])
    return client_rows, local, max_points


def _same_run(src: Path, dst: Path) -> bool:
    try:
        return json.loads((dst / "status.json").read_text()).get("key") == json.loads(
            (src / "status.json").read_text()).get("key")
    except (OSError, ValueError):
        return False


def keeps_local(study: str, coords: dict) -> bool:
    """Which recorded runs keep their measured clients' embeddings (the Clients page's pictures),
    within the size budget: seed 0 of digits-local at 10 local epochs, of fmnist-skew at the
    strongest skew, and of fmnist-regime's FedAvg and FedQuad."""
    if coords.get("seed", 0) != 0:
        return False
    if study == "digits-local":
        return coords.get("local_epochs") == 10
    if study == "fmnist-skew":
        return coords.get("alpha") == 0.1
    return study in ("fmnist-regime", "fmnist-paper") and coords.get("method") in ("fedavg", "fedquad")


def store_umaps(layouts: list[tuple[Path, int, np.ndarray]]) -> float:
    """UMAP of every stored snapshot, in this process (numba compiles once)."""
    from app.projection.umap_fit import compute_umap, enable_numba_cache

    enable_numba_cache()  # before umap is imported: reuse the app's compiled numba code
    t0 = time.perf_counter()
    for run_dir, r, z in layouts:
        np.save(run_dir / "embeddings" / f"umap_round_{r:04d}.npy", compute_umap(z).astype(np.float32))
    return time.perf_counter() - t0


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def record(spec: StudySpec, args, out: StudyStore, pool: StudyPool | None = None) -> tuple[int, list[str]]:
    t0 = time.perf_counter()
    scratch = StudyStore(args.scratch)
    study = run_study(spec, scratch, jobs=args.jobs, pool=pool)
    t_train = time.perf_counter() - t0
    problems, layouts = [], []
    run_ids = list(dict.fromkeys(p["run_id"] for p in study["points"] if p["run_id"]))
    for p in study["points"]:
        state = scratch.runs.read_status(p["run_id"])["state"] if p["run_id"] and scratch.runs.exists(p["run_id"]) else "missing"
        if state not in ("finished", "diverged"):
            problems.append(f"{spec.name} {p['coords']}: {state}")
    animated = {p["run_id"] for p in study["points"] if spec.name == "digits-alpha" and p["coords"].get("seed") == 0}
    local = {p["run_id"] for p in study["points"] if keeps_local(spec.name, p["coords"])}
    for run_id in run_ids:
        if not scratch.runs.exists(run_id):
            continue
        stored = compact_run(scratch.runs.path(run_id), out.root / run_id, all_rounds=run_id in animated,
                             max_points=min(args.points, SMALL_POINTS) if spec.name in SMALL else args.points,
                             local=run_id in local, client_rows=spec.name in SMALL)
        layouts += [(out.root / run_id, r, z) for r, z in stored.items()]
    t_umap = store_umaps(layouts)
    out.write(study)
    size = sum(folder_bytes(out.root / r) for r in run_ids if (out.root / r).exists())
    print(f"{spec.name}: {len(study['points'])} points, {len(run_ids)} runs; training {t_train:.0f} s, "
          f"UMAP of {len(layouts)} snapshots {t_umap:.0f} s; {size / 1e6:.2f} MB", flush=True)
    return size, problems


def drop_unreferenced(out: StudyStore) -> None:
    used = {p["run_id"] for name in out.names() for p in out.read(name)["points"] if p["run_id"]}
    for run_id in out.runs.run_ids():
        if run_id not in used:
            shutil.rmtree(out.runs.path(run_id))


def seed_list(text: str) -> list[int]:
    """``--fmnist-seeds``: a comma list of integers (``0,1,2``)."""
    try:
        return [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of integers (e.g. 0,1,2)") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", choices=NAMES, help="record only this study (repeatable)")
    p.add_argument("--quick", action="store_true", help="tiny version for tests and development (2 rounds, 1 seed)")
    p.add_argument("--out", default=str(REPO / "assets" / "recorded"), help="recorded root (default assets/recorded)")
    p.add_argument("--scratch", default="/tmp/fedquad-record", help="full run store the studies train into")
    p.add_argument("--jobs", type=int, help="runs at a time (default one per core)")
    p.add_argument("--points", type=int, default=500, help="test points kept per snapshot (default 500)")
    p.add_argument("--fmnist-rounds", type=int, default=80, help="rounds of fmnist-methods (default 80)")
    p.add_argument("--fmnist-subset", type=int, default=6000, help="training subset of fmnist-methods (default 6000)")
    p.add_argument("--fmnist-seeds", type=seed_list, default=[0, 1, 2],
                   help="seeds of fmnist-methods, comma list (default 0,1,2)")
    p.add_argument("--budget-mb", type=float, default=60.0, help="size limit of everything in --out (default 60)")
    args = p.parse_args(argv)
    out = StudyStore(args.out)
    out.root.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    problems: list[str] = []
    with StudyPool(args.jobs or usable_cores()) as pool:  # the training processes serve every study
        for spec in specs(args):
            if args.only and spec.name not in args.only:
                continue
            problems += record(spec, args, out, pool)[1]
    drop_unreferenced(out)
    total = folder_bytes(out.root)
    print(f"recorded root {out.root}: {total / 1e6:.2f} MB of {args.budget_mb:g} MB; "
          f"{(time.perf_counter() - t0) / 60:.1f} min in all", flush=True)
    if problems:
        print("record_studies: points not finished:\n  " + "\n  ".join(problems), file=sys.stderr)
    if total > args.budget_mb * 1e6:
        print(f"record_studies: OVER BUDGET: {total / 1e6:.2f} MB > {args.budget_mb:g} MB: lower --points, "
              "keep fewer snapshot rounds or fewer seeds", file=sys.stderr)
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
