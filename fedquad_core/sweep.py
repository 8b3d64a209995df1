"""``fedquad sweep``: a grid over methods x alphas x clients x seeds, printed in the paper's
table layout (methods as rows, settings as columns, mean ± std over seeds).

Every run of a grid shares the partition and initialisation of its (alpha, clients, seed) cell
with the other methods, so rows differ only by the method."""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
import sys
from typing import Any, Callable

from .config import RunConfig
from .methods import METHODS
from .store import RunStore


def _floats(text: str) -> list[float | None]:
    return [None if t.strip().lower() in ("iid", "inf") else float(t) for t in text.split(",") if t.strip()]


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t.strip()]


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_sweep_parser(sub, add_run_options: Callable) -> None:
    p = sub.add_parser("sweep", help="grid over methods x alphas x clients x seeds; prints the paper's table",
                       description="Run a grid of federated runs and print methods as rows, settings as columns, "
                                   "mean ± std over seeds.")
    p.add_argument("--methods", type=_names, default=list(METHODS), help=f"comma list (default all: {','.join(METHODS)})")
    p.add_argument("--alphas", type=_floats, default=[0.5], help="comma list of Dirichlet alphas, 'iid' allowed (default 0.5)")
    p.add_argument("--clients", dest="clients_list", type=_ints, default=[10], help="comma list of client counts (default 10)")
    p.add_argument("--seeds", type=_ints, default=[0], help="comma list of seeds (default 0)")
    p.add_argument("--metric", choices=("final_acc", "best_acc", "final_ratio"), default="final_acc",
                   help="what the table shows (default final_acc, in %%)")
    p.add_argument("--out", help="also write the table as Markdown to this file")
    p.add_argument("--ray", metavar="ADDRESS", help="send each run as a task to this Ray cluster ('auto' or host:port)")
    from .cli import int_in

    p.add_argument("--threads", type=int_in(1, 1024), help="torch threads per run (default 1)")
    p.add_argument("--jobs", type=int_in(1, 1024), help="runs at a time on this machine, each in its own process with one thread "
                   "(default: one per core)")
    add_run_options(p, sweep=True)


def grid(args: argparse.Namespace) -> list[RunConfig]:
    from .cli import UserError, config_from_args

    unknown = [m for m in args.methods if m not in METHODS]
    if unknown:
        raise UserError(f"unknown method(s) {', '.join(unknown)} in --methods: choose from {', '.join(METHODS)}")
    base = config_from_args(args)
    own_params = base.method_params
    configs = []
    for alpha, clients, seed, method in itertools.product(args.alphas, args.clients_list, args.seeds, args.methods):
        names = {f.name for f in dataclasses.fields(METHODS[method].Params)}
        params = {k: v for k, v in own_params.items() if k in names}
        configs.append(dataclasses.replace(base, method=method, alpha=alpha, num_clients=clients, seed=seed,
                                           method_params=params,
                                           name=f"sweep {method} a={alpha if alpha is not None else 'iid'} K={clients} s={seed}"))
    return configs


def setting_label(cfg: dict[str, Any]) -> str:
    alpha = cfg["alpha"]
    return f"α={'iid' if alpha is None else format(alpha, 'g')}, {cfg['num_clients']} clients"


def table(store: RunStore, run_ids: list[str], metric: str) -> tuple[list[str], list[list[str]]]:
    from .commands import summarize

    cells: dict[tuple[str, str], list[float]] = {}
    methods, settings = [], []
    for run_id in run_ids:
        cfg = store.read_config(run_id)
        s = summarize(store, run_id)
        m, col = cfg["method"], setting_label(cfg)
        methods += [m] if m not in methods else []
        settings += [col] if col not in settings else []
        value = s[metric]
        if value is not None:
            cells.setdefault((m, col), []).append(value * 100 if metric != "final_ratio" else value)
    rows = []
    for m in methods:
        row = [METHODS[m].label]
        for col in settings:
            vals = cells.get((m, col), [])
            if not vals:
                row.append("-")
            elif len(vals) == 1:
                row.append(f"{vals[0]:.2f}")
            else:
                row.append(f"{statistics.mean(vals):.2f} ± {statistics.stdev(vals):.2f}")
        rows.append(row)
    return ["method", *settings], rows


def check_grid(configs: list[RunConfig]) -> None:
    """Every user error of the whole grid (settings, data, each partition) before any run starts."""
    from .config import validate
    from .partition import partition
    from .runner import prepare

    first = prepare(configs[0])
    labels = first.dataset.y_train.numpy()
    seen = set()
    for cfg in configs:
        validate(cfg, num_train_samples=len(labels))
        cfg.params()
        key = (cfg.alpha, cfg.num_clients, cfg.seed, cfg.min_size)
        if key not in seen:
            seen.add(key)
            partition(labels, cfg.num_clients, cfg.alpha, seed=cfg.seed, min_size=cfg.min_size)


def _run_one(payload: tuple[dict, str, int | None]) -> str:
    """One sweep run in a pool process."""
    config, root, threads = payload
    from .runner import execute

    return execute(RunConfig.from_dict(config), RunStore(root), progress=False, threads=threads)


def run_local(configs: list[RunConfig], store: RunStore, *, jobs: int, threads: int | None) -> list[str]:
    """Run the grid here, ``jobs`` runs at a time (one process each); a failed run is reported
    and the sweep goes on."""
    from tqdm import tqdm

    if jobs <= 1:
        from .runner import execute

        return [execute(cfg, store, threads=threads, progress=False) for cfg in tqdm(configs, desc="sweep", unit="run")]
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    ids: dict[int, str] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(_run_one, (cfg.to_dict(), str(store.root), threads)): i for i, cfg in enumerate(configs)}
        for fut in tqdm(as_completed(futures), total=len(futures), desc="sweep", unit="run"):
            try:
                ids[futures[fut]] = fut.result()
            except Exception as exc:  # the run's folder says failed, with its error
                print(f"sweep: {configs[futures[fut]].name} failed: {exc}", file=sys.stderr)
    return [ids[i] for i in sorted(ids)]


def cmd_sweep(args: argparse.Namespace, store: RunStore) -> int:
    from .commands import print_table
    from .parallel import default_workers

    if args.ray:
        from .ray_sweep import check_reachable

        check_reachable(args.ray)
    configs = grid(args)
    check_grid(configs)
    jobs = args.jobs or default_workers()
    print(f"sweep: {len(configs)} runs into {store.root}", file=sys.stderr)
    if args.ray:
        from .ray_sweep import run_on_ray

        run_ids = run_on_ray(configs, store, args.ray, threads=args.threads)
    else:
        run_ids = run_local(configs, store, jobs=jobs, threads=args.threads)
    headers, rows = table(store, run_ids, args.metric)
    print_table(headers, rows)
    if args.out:
        from .store import atomic_write_text

        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        atomic_write_text(args.out, "\n".join(lines) + "\n")
    return 0
