"""Reproduce published federated numbers with this engine and record them beside the papers'.

Fashion-MNIST (default): NIID-Bench's setting (Li et al. 2021; Flower's reproduction: FedAvg
88.4 %, FedProx 88.6 %): 10 clients, Dirichlet 0.5, the simple CNN, 10 local epochs, 50 rounds,
SGD lr 0.01, batch 64, momentum 0.9, weight decay 1e-5, no augmentation, every client every round.
CIFAR-10/100 (``--dataset cifar10 --data-dir DIR``): FedQuad's setting, 200 clients, Dirichlet
0.3 (paper: CIFAR-10 FedQuad 80.13, FedAvg 74.05, MOON 49.69; CIFAR-100 FedQuad 26.90, MOON 13.06),
10 % of clients a round (an assumption: the summary gives no participation), 100 rounds.

Every run goes into the run store (``--runs-dir``); each invocation adds its rows to
``benchmarks/reproduction.json`` and rewrites ``benchmarks/REPRODUCTION.md`` from it. A run whose
rounds, local epochs or training set differ from the published setting is recorded as a smoke
test, never as a reproduction. ``--estimate`` times one local epoch of one client of the real
setting per method and extrapolates (labelled as an estimate).

    python -m benchmarks.reproduce                                  # the full setting (hours on a CPU)
    python -m benchmarks.reproduce --rounds 1 --local-epochs 1 --train-subset 2000   # smoke test
    python -m benchmarks.reproduce --estimate
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = Path(__file__).resolve().parent

from fedquad_core.config import RunConfig

SETTINGS = {
    "fashion-mnist": dict(num_clients=10, alpha=0.5, model="cnn", local_epochs=10, rounds=50, participation=1.0),
    "cifar10": dict(num_clients=200, alpha=0.3, model="cnn", local_epochs=10, rounds=100, participation=0.1),
    "cifar100": dict(num_clients=200, alpha=0.3, model="resnet18", local_epochs=10, rounds=100, participation=0.1),
}
SGD = dict(lr=0.01, batch_size=64, momentum=0.9, weight_decay=1e-5, augment=False)
PARAMS = {"fedprox": {"mu": 0.01}, "moon": {"mu": 1.0}, "fedquad": {}, "fedavg": {}}
MOON_MU = {"cifar10": 5.0, "cifar100": 1.0}  # MOON paper's per-data-set mu
PUBLISHED = {  # (data set, method) -> (accuracy %, source)
    ("fashion-mnist", "fedavg"): (88.4, "Flower's NIID-Bench reproduction"),
    ("fashion-mnist", "fedprox"): (88.6, "Flower's NIID-Bench reproduction"),
    ("fashion-mnist", "moon"): (None, "no published number for this setting"),
    ("fashion-mnist", "fedquad"): (None, "no published number for this setting"),
    ("cifar10", "fedquad"): (80.13, "FedQuad paper"), ("cifar10", "fedavg"): (74.05, "FedQuad paper"),
    ("cifar10", "moon"): (49.69, "FedQuad paper"), ("cifar10", "fedprox"): (None, "not in the FedQuad summary"),
    ("cifar100", "fedquad"): (26.90, "FedQuad paper"), ("cifar100", "moon"): (13.06, "FedQuad paper"),
    ("cifar100", "fedavg"): (None, "not in the FedQuad summary"), ("cifar100", "fedprox"): (None, "not in the FedQuad summary"),
}
RESULTS, REPORT = HERE / "reproduction.json", HERE / "REPRODUCTION.md"


def make_config(dataset: str, method: str, seed: int, args) -> RunConfig:
    setting = {**SETTINGS[dataset]}
    if args.rounds:
        setting["rounds"] = args.rounds
    if args.local_epochs:
        setting["local_epochs"] = args.local_epochs
    params = dict(PARAMS.get(method, {}))
    if method == "moon" and dataset in MOON_MU:
        params["mu"] = MOON_MU[dataset]
    return RunConfig(dataset=dataset, data_dir=args.data_dir, method=method, method_params=params, seed=seed,
                     train_subset=args.train_subset, device=args.device, snapshot_every=10,
                     name=f"reproduce {dataset} {method} s{seed}", **setting, **SGD)


def is_published_setting(cfg: RunConfig) -> bool:
    full = SETTINGS[cfg.dataset]
    return cfg.train_subset is None and all(getattr(cfg, k) == v for k, v in full.items())


def run_all(args, on_row) -> None:
    """Train every (method, seed); each run's row is handed to ``on_row`` as soon as the run ends."""
    from fedquad_core.train.runner import execute
    from fedquad_core.runs.store import RunStore

    store = RunStore(args.runs_dir)
    for method in args.methods:
        for seed in args.seeds:
            cfg = make_config(args.dataset, method, seed, args)
            t0 = time.perf_counter()
            run_id = execute(cfg, store, progress=not args.quiet, threads=args.threads)
            wall = time.perf_counter() - t0
            row = {"dataset": args.dataset, "method": method, "seed": seed, "run_id": run_id,
                   **measured(store, run_id), "rounds": cfg.rounds, "local_epochs": cfg.local_epochs,
                   "train_subset": cfg.train_subset, "wall_s": round(wall, 1),
                   "kind": "reproduction" if is_published_setting(cfg) else "smoke",
                   "command": args.command, "machine": machine()}
            on_row(row)
            print(f"{method} seed {seed}: {row['state']}, final accuracy {row['final_accuracy']}, {wall:.0f} s",
                  flush=True)


MILESTONES = (1, 10, 20, 30, 40, 50, 100)


def measured(store, run_id: str) -> dict:
    """What a run's store entry says: its state, rounds done, final and best test accuracy, the
    accuracy at a few milestone rounds, and the last geometry snapshot's ratio and effective rank."""
    metrics = store.read_metrics(run_id)
    accs = {m["round"]: m["test_accuracy"] for m in metrics if m.get("test_accuracy") is not None}
    geometry = [m for m in metrics if m.get("ratio") is not None]
    return {"state": store.read_status(run_id)["state"], "rounds_done": max(accs, default=0),
            "final_accuracy": accs[max(accs)] if accs else None, "best_accuracy": max(accs.values(), default=None),
            "accuracy_at": {str(r): accs[r] for r in MILESTONES if r in accs},
            "final_ratio": geometry[-1]["ratio"] if geometry else None,
            "final_effective_rank": geometry[-1].get("effective_rank") if geometry else None,
            "geometry_round": geometry[-1]["round"] if geometry else None}


def rerecord(args, results: dict) -> None:
    """Fill in ``measured`` again for every recorded run whose store entry is under --runs-dir
    (rows written by an older version of this script lack some fields); wall time and command stay."""
    from fedquad_core.runs.store import RunStore

    store = RunStore(args.runs_dir)
    for row in results["runs"]:
        if store.exists(row["run_id"]):
            row.update(measured(store, row["run_id"]))
            print(f"re-read {row['run_id']}: {row['state']}, final accuracy {row['final_accuracy']}")


def estimate(args) -> list[dict]:
    """Time one local epoch of client 0 of the real setting per method; extrapolate sequentially."""
    import torch

    from fedquad_core.train.client import ClientJob, TrainData, frozen_copy, train_client, train_settings
    from fedquad_core.methods import get_method
    from fedquad_core.models import build_model
    from fedquad_core.train.runner import configure_threads, prepare

    configure_threads(args.threads)
    rows = []
    for method in args.methods:
        cfg = make_config(args.dataset, method, 0, argparse.Namespace(**{**vars(args), "rounds": None,
                                                                          "local_epochs": None, "train_subset": None}))
        prep = prepare(cfg)
        cfg, ds = prep.cfg, prep.dataset
        params, cls = cfg.params(), get_method(method)
        model = build_model(cfg.model_name, ds.input_shape, ds.num_classes, generator=torch.Generator().manual_seed(0),
                            proj_dim=getattr(params, "proj_dim", None) if cls.needs_projection else None)
        state = {k: v.clone() for k, v in model.state_dict().items()}
        data = TrainData(ds.x_train, ds.y_train, ds.prepare, ds.y_train.numpy(), ds.num_classes)
        one_epoch = train_settings(RunConfig(**{**cfg.to_dict(), "local_epochs": 1}), False)
        sizes = [len(p) for p in prep.parts]
        frozen = frozen_copy(model, state) if cls.needs_global_model else None

        def one(indices):
            train_client(model, state, ClientJob(0, 1, indices, (0, 1, 0)), data=data, method=cls, params=params,
                         settings=one_epoch, global_model=frozen)

        one(prep.parts[0][:256])  # warm-up (first-call allocations), not timed
        t0 = time.perf_counter()
        one(prep.parts[0])
        secs = time.perf_counter() - t0
        per_sample = secs / sizes[0]
        per_round = per_sample * sum(sizes) * cfg.participation * cfg.local_epochs
        rows.append({"dataset": args.dataset, "method": method, "timed_samples": sizes[0], "timed_s": round(secs, 2),
                     "round_s_estimate": round(per_round), "run_h_estimate": round(per_round * cfg.rounds / 3600, 1),
                     "threads": args.threads or 1, "machine": machine(), "command": args.command})
        print(f"{method}: 1 epoch of client 0 ({sizes[0]} samples) {secs:.1f} s -> about "
              f"{per_round / 60:.1f} min a round, {per_round * cfg.rounds / 3600:.1f} h for {cfg.rounds} rounds", flush=True)
    return rows


def machine() -> str:
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores, {gpu}"


def load_results() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": [], "estimates": []}


def update_results(change) -> None:
    """Read, change and write the results under a lock: several invocations (one per method, one per
    core) may finish at the same time, and none may lose another's rows."""
    import fcntl

    with open(HERE / ".reproduction.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = load_results()
        change(results)
        write_results(results)


def write_results(results: dict) -> None:
    from fedquad_core.runs.store import atomic_write_json, atomic_write_text
    from benchmarks.reproduction_report import render_report

    atomic_write_json(RESULTS, results)
    atomic_write_text(REPORT, render_report(results, PUBLISHED, SETTINGS, SGD))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", choices=list(SETTINGS), default="fashion-mnist")
    p.add_argument("--data-dir", help="folder with the data set (CIFAR's torchvision format)")
    p.add_argument("--methods", default="fedavg,fedprox,moon,fedquad", type=lambda s: s.split(","))
    p.add_argument("--seeds", default="0", type=lambda s: [int(x) for x in s.split(",")])
    p.add_argument("--rounds", type=int, help="fewer rounds than the setting's = a smoke test")
    p.add_argument("--local-epochs", type=int, help="other than the setting's = a smoke test")
    p.add_argument("--train-subset", type=int, help="a stratified subset = a smoke test")
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, help="torch threads (default 1)")
    p.add_argument("--runs-dir", default=str(Path(tempfile.gettempdir()) / "fedquad-reproduce"))
    p.add_argument("--estimate", action="store_true", help="time 1 local epoch of 1 client, extrapolate")
    p.add_argument("--rerecord", action="store_true",
                   help="train nothing: re-read the recorded runs found under --runs-dir and rewrite the report")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.command = "python -m benchmarks.reproduce " + shlex.join(sys.argv[1:] if argv is None else argv)
    if args.rerecord:
        update_results(lambda r: rerecord(args, r))
    elif args.estimate:
        rows = estimate(args)
        update_results(lambda r: r.update(estimates=[e for e in r["estimates"] if (e["dataset"], e["method"]) not in
                                                     {(args.dataset, m) for m in args.methods}] + rows))
    else:
        run_all(args, on_row=lambda row: update_results(lambda r: r["runs"].append(row)))
    print(f"wrote {REPORT.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
