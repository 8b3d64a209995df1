"""``fedquad sweep``: a grid over methods x alphas x clients x seeds, printed in the paper's
table layout (methods as rows, settings as columns, mean ± std over seeds).

A sweep is a study (``fedquad_core.study``) named ``sweep-<time>`` unless ``--name`` is given:
its runs are checked up front, finished runs with the same settings are reused, and
``fedquad study show NAME`` prints its response table later. Every run of a grid shares the
partition and initialisation of its (alpha, clients, seed) cell with the other methods, so rows
differ only by the method."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from ..config.alpha import alpha_text, parse_alpha
from ..errors import UserError
from ..methods import METHODS
from ..runs.store import RunStore, atomic_write_text
from ..study import StudySpec, parse_axes, run_study
from .args import add_run_options, config_from_args, int_in, nonempty, strict_int
from .study import none_finished
from .tables import print_table, summarize


def _alphas(text: str) -> list[float | None]:
    try:
        return [parse_alpha(t) for t in text.split(",") if t.strip()]
    except ValueError as exc:  # the one rule of numbers' line (config.numbers), as for every flag
        raise argparse.ArgumentTypeError(str(exc)) from None


def _ints(text: str) -> list[int]:
    return [strict_int(t) for t in text.split(",") if t.strip()]


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_sweep_parser(sub) -> None:
    p = sub.add_parser("sweep", help="grid over methods x alphas x clients x seeds; prints the paper's table",
                       description="Run a grid of federated runs and print methods as rows, settings as columns, "
                                   "mean ± std over seeds.")
    p.add_argument("--methods", type=_names, default=list(METHODS), help=f"comma list (default all: {','.join(METHODS)})")
    p.add_argument("--alphas", type=_alphas, default=[0.5], help="comma list of Dirichlet alphas, 'iid' allowed (default 0.5)")
    p.add_argument("--clients", dest="clients_list", type=_ints, default=[10], help="comma list of client counts (default 10)")
    p.add_argument("--seeds", type=_ints, default=[0], help="comma list of seeds (default 0)")
    p.add_argument("--metric", choices=("final_acc", "best_acc", "final_ratio"), default="final_acc",
                   help="what the table shows (default final_acc, in %%)")
    p.add_argument("--out", help="also write the table as Markdown to this file")
    p.add_argument("--name", type=nonempty("--name"), help="study name of this sweep (default sweep-<time>); rerun a name to resume it")
    p.add_argument("--ray", type=nonempty("--ray"), metavar="ADDRESS", help="send each run as a task to this Ray cluster ('auto' or host:port)")
    p.add_argument("--threads", type=int_in(1, 1024), help="torch threads per run (default 1)")
    p.add_argument("--jobs", type=int_in(1, 1024), help="runs at a time on this machine, each in its own process with one thread "
                   "(default: one per core)")
    add_run_options(p, sweep=True)


def spec(args: argparse.Namespace):
    """The sweep as a study: axes alpha x clients x seed x method, in the old sweep's order."""
    unknown = [m for m in args.methods if m not in METHODS]
    if unknown:
        raise UserError(f"unknown method(s) {', '.join(unknown)} in --methods: choose from {', '.join(METHODS)}")
    axes = parse_axes({"alpha": args.alphas, "num_clients": args.clients_list, "seed": args.seeds,
                       "method": args.methods})
    name = args.name or time.strftime("sweep-%Y%m%d-%H%M%S")
    return StudySpec(name, config_from_args(args), axes, title="fedquad sweep")


def setting_label(cfg: dict[str, Any]) -> str:
    alpha = cfg["alpha"]
    return f"{alpha_text(alpha, 'label')}, {cfg['num_clients']} clients"


def table(store: RunStore, run_ids: list[str], metric: str) -> tuple[list[str], list[list[str]]]:
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


def check_out(out: str | None) -> None:
    """``--out`` can be written, checked before any training: a file name in an existing folder."""
    if out is None:
        return
    path = Path(out)
    if not out.strip() or "\0" in out:
        raise UserError(f"--out {out!r} is not a file name: give the Markdown file to write")
    if path.is_dir():
        raise UserError(f"--out {out} is a folder: give a file name in it (e.g. {path / 'table.md'})")
    parent = path.parent
    if not parent.is_dir():
        raise UserError(f"--out {out}: the folder {parent} does not exist; create it first (checked before training)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"--out {out}: the folder {parent} is not writable by you")


def cmd_sweep(args: argparse.Namespace, store: RunStore) -> int:
    check_out(args.out)
    study = run_study(spec(args), store, jobs=args.jobs, threads=args.threads, ray=args.ray)
    run_ids = list(dict.fromkeys(p["run_id"] for p in study["points"] if p["run_id"] and store.exists(p["run_id"])))
    headers, rows = table(store, run_ids, args.metric)
    print_table(headers, rows)
    if args.out:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        atomic_write_text(args.out, "\n".join(lines) + "\n")
    print(f"study {study['name']}: `fedquad study show {study['name']}` prints its response table", file=sys.stderr)
    return none_finished(store, study)
