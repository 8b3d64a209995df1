"""What each ``fedquad`` subcommand does (argument parsing lives in ``cli``)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from typing import Any

from .stop_signals import sigint_ignored
from .store import RunStore, process_identity


def dispatch(args: argparse.Namespace) -> int:
    store = RunStore(args.runs_dir)
    if args.command in ("run", "sweep"):  # they write into it
        _check_runs_dir(args.runs_dir, store)
    return {"run": cmd_run, "list": cmd_list, "show": cmd_show, "compare": cmd_compare, "cancel": cmd_cancel,
            "delete": cmd_delete, "sweep": _sweep, "study": _study}[args.command](args, store)


def _study(args, store):
    from .study_cli import cmd_study

    return cmd_study(args, store)


def _sweep(args, store):
    from .sweep import cmd_sweep

    return cmd_sweep(args, store)


def cmd_run(args: argparse.Namespace, store: RunStore) -> int:
    from .args import config_from_args
    from .config import RunConfig, validate
    from .errors import UserError
    from .launcher import acquire_slot, held_slot
    from .limits import check_bounds
    from .runner import execute, prepare

    if args.run_id and store.exists(args.run_id):  # a queued run created by the launcher
        status = store.read_status(args.run_id)
        if status.get("state") not in ("queued",):
            raise UserError(f"run {args.run_id} is {status.get('state')}, not queued: choose a new --run-id")
        cfg = RunConfig.from_dict(store.read_config(args.run_id))
        writer = store.writer(args.run_id)
        writer.set_status("queued", **process_identity(os.getpid()))
        slot = held_slot()  # taken by slot_wait, which exec'd this process
        if slot is None:
            try:
                slot = acquire_slot(store.root, args.slots or 1, should_stop=writer.cancel_requested)
            except KeyboardInterrupt:  # Ctrl-C while waiting for a slot
                writer.set_status("cancelled", round=0, stopped_by="SIGINT")
                print(f"run {args.run_id}: cancelled before it started")
                return 130
        if slot is None:
            writer.set_status("cancelled", round=0)
            return 0
        prep = None
        held = _claim(store, cfg, should_stop=writer.cancel_requested)  # never beside a run of the same key
        if held is False:
            writer.set_status("cancelled", round=0)
            return 0
    else:
        cfg = validate(config_from_args(args))  # --name like any flag (a config file's name kept)  # before anything reads a setting
        check_bounds(cfg)
        if args.run_id and store.path(args.run_id).exists():  # the run-id rules, before any work
            raise UserError(f"{store.path(args.run_id)} exists and is not a run: choose another --run-id")
        if args.workers is None and "workers" not in _config_file_keys(args):
            from .runner import auto_workers

            cfg = dataclasses.replace(cfg, workers=auto_workers(cfg))
        prep = prepare(cfg)  # all user errors surface here, before a run folder exists
        check_bounds(prep.cfg, train_size=len(prep.dataset.y_train), test_size=len(prep.dataset.y_test),
                     largest_client=max((len(p) for p in prep.parts), default=0))
        slot = None
        held = _claim(store, cfg)
        reused = None if getattr(args, "again", False) else _finished(store, cfg)
        if reused:
            from .claims import release

            release(held)
            print(f"run {reused}: finished already with these exact settings (same run key and engine): "
                  "not trained again (--again trains a new run anyway)")
            return 0
    # Ctrl-C is execute's to handle from here on; it puts this "ignore" back when it returns, so
    # a late second Ctrl-C cannot cut the summary below (or the exit code) short.
    try:
        with sigint_ignored():
            run_id = execute(cfg, store, run_id=args.run_id, progress=not args.no_progress, threads=args.threads,
                             prep=prep)
            return _report(store, run_id, slot)
    finally:
        from .claims import release

        release(held or None)


def _claim(store: RunStore, cfg, *, should_stop=lambda: False):
    """The claim of ``cfg``'s run key (README, "Reliability"): waits while another process trains
    the same key. False when ``should_stop()`` came first; None for a config too broken to key."""
    from .claims import claim
    from .version import run_key

    try:
        key = run_key(cfg)
    except (ValueError, TypeError):
        return None
    store.root.mkdir(parents=True, exist_ok=True)

    def wait_note(pid):
        print(f"fedquad: another process{f' (pid {pid})' if pid else ''} is training these exact settings: "
              "waiting for it to end", file=sys.stderr, flush=True)

    held = claim(store.root, key, should_stop=should_stop, on_wait=wait_note)
    return False if held is None else held


def _finished(store: RunStore, cfg) -> str | None:
    from .claims import finished_run
    from .version import run_key

    try:
        return finished_run(store, run_key(cfg))
    except (ValueError, TypeError):
        return None


def _report(store: RunStore, run_id: str, slot) -> int:
    status = store.read_status(run_id)
    rows = store.read_metrics(run_id)
    last = rows[-1] if rows else {}
    print(f"run {run_id}: {status['state']}" + (f" after round {last.get('round')}, test accuracy "
                                                  f"{last.get('test_accuracy', float('nan')):.4f}" if rows else ""))
    if status.get("error"):
        print(status["error"].splitlines()[0], file=sys.stderr)
    if slot is not None:
        slot.close()
    if status["state"] == "cancelled" and status.get("stopped_by") == "SIGINT":
        return 130  # the shell's code for a Ctrl-C
    return 0 if status["state"] in ("finished", "cancelled") else 1


def _check_runs_dir(text: str, store: RunStore) -> None:
    from .errors import UserError

    if not str(text).strip() or "\0" in str(text) or store.root.exists() and not store.root.is_dir():
        raise UserError(f"--runs-dir {str(text)!r} is not a folder: pass a folder for the run store")


def _config_file_keys(args: argparse.Namespace) -> set[str]:
    if not getattr(args, "config", None):
        return set()
    with open(args.config) as fh:
        return set(json.load(fh))


def _fmt(value: Any, spec: str = ".4f") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return format(value, spec) if isinstance(value, (int, float)) else str(value)


def summarize(store: RunStore, run_id: str) -> dict[str, Any]:
    cfg, status, rows = store.read_config(run_id), store.read_status(run_id), store.read_metrics(run_id)
    ratios = [r["ratio"] for r in rows if r.get("ratio") is not None]
    return {"run": run_id, "method": cfg.get("method"), "dataset": cfg.get("dataset"), "clients": cfg.get("num_clients"),
            "alpha": cfg.get("alpha"), "state": status.get("state"), "rounds": len(rows),
            "final_acc": rows[-1]["test_accuracy"] if rows else None,
            "best_acc": max((r["test_accuracy"] for r in rows if r["test_accuracy"] is not None), default=None),
            "final_ratio": ratios[-1] if ratios else None, "name": cfg.get("name")}


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def cmd_list(args, store: RunStore) -> int:
    infos = store.list_runs()
    if not infos:
        print(f"no runs in {store.root}")
        return 0
    rows = []
    for info in infos:
        if info.damaged:
            rows.append([info.run_id, "damaged"] + ["-"] * 6)
            continue
        s = summarize(store, info.run_id)
        rows.append([info.run_id, s["state"], str(s["method"]), str(s["dataset"]), str(s["clients"]), _fmt(s["alpha"], "g"),
                     str(s["rounds"]), _fmt(s["final_acc"])])
    print_table(["run", "state", "method", "dataset", "clients", "alpha", "rounds", "final acc"], rows)
    for info in infos:
        if info.damaged:
            print(f"damaged {info.run_id}: {info.damaged}")
    return 0


def cmd_show(args, store: RunStore) -> int:
    cfg, status, rows = store.read_config(args.run), store.read_status(args.run), store.read_metrics(args.run)
    print(json.dumps({"config": cfg, "status": status}, indent=2, sort_keys=True))
    table = [[str(r["round"]), _fmt(r["test_accuracy"]), _fmt(r.get("train_loss")), _fmt(r.get("ratio")),
              _fmt(r.get("ratio_l2")), str(r.get("samples_total", "")), _fmt(r.get("elapsed"), ".1f")] for r in rows]
    print_table(["round", "test acc", "train loss", "ratio", "ratio (L2)", "samples", "seconds"], table)
    return 0


def cmd_compare(args, store: RunStore) -> int:
    rows = []
    for run_id in args.runs:
        s = summarize(store, run_id)
        rows.append([run_id, str(s["method"]), s["state"], str(s["rounds"]), _fmt(s["final_acc"]), _fmt(s["best_acc"]),
                     _fmt(s["final_ratio"])])
    print_table(["run", "method", "state", "rounds", "final acc", "best acc", "final ratio"], rows)
    return 0


def cmd_cancel(args, store: RunStore) -> int:
    from .study import valid_name
    from .study_store import StudyStore

    if not store.exists(args.run) and valid_name(args.run) and StudyStore(store.root).exists(args.run):
        from .study_cli import cancel_study  # a study of that name: stop it as Ctrl-C does

        return cancel_study(args.run, store)
    done = store.request_cancel(args.run)
    print(f"cancel requested for {args.run}: {done}")
    return 0


def cmd_delete(args, store: RunStore) -> int:
    store.delete(args.run)
    print(f"deleted {args.run}")
    return 0
