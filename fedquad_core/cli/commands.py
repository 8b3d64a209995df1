"""What the run-store subcommands do: run, list, show, compare, cancel, delete (the parser is in
``cli.main``, sweep and study in their own modules)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

from .. import safe_io
from ..config import ConfigError, RunConfig
from ..config.alpha import alpha_text
from ..errors import UserError
from ..runs.claims import claim, finished_run, release
from ..runs.launcher import acquire_slot, held_slot
from ..config.limits import check_bounds
from ..config.preflight import check_config
from ..study.store import StudyStore, valid_name
from ..train.checked import checked_prep
from ..train.runner import auto_workers, execute, prepare
from ..runs.stop_signals import sigint_ignored
from ..runs.store import DamagedRun, RunStore, process_identity
from ..version import run_key
from .args import config_from_args, read_json_file
from .study import cancel_study
from .tables import fmt, print_table, summarize
from ..vocab.metrics import METRICS


def cmd_run(args: argparse.Namespace, store: RunStore) -> int:
    """``fedquad run``: a queued run the launcher created (``--run-id`` of a queued run), or a new
    one from the arguments; either is started (``_start_queued`` / ``_start_new``: an exit code
    when it ends before training), then trained and summarised."""
    queued = args.run_id and store.exists(args.run_id)
    started = _start_queued(args, store) if queued else _start_new(args, store)
    if isinstance(started, int):
        return started
    # Ctrl-C is execute's to handle from here on; it puts this "ignore" back when it returns, so
    # a late second Ctrl-C cannot cut the summary below (or the exit code) short.
    try:
        with sigint_ignored():
            run_id = execute(started.cfg, store, run_id=args.run_id, progress=not args.no_progress, threads=args.threads,
                             prep=started.prep)
            return _report(store, run_id, started.slot)
    finally:
        release(started.held or None)


@dataclasses.dataclass
class _Started:
    """A run ready to train: its config, its prepared data (or None: ``execute`` prepares it),
    the claim of its run key and the launcher's slot it holds (or None)."""
    cfg: RunConfig
    prep: object
    held: object
    slot: object


def _start_queued(args: argparse.Namespace, store: RunStore) -> _Started | int:
    """A queued run: its stored config, a launcher slot (waited for, unless the launcher passed
    one) and the claim of its key; an exit code when it is cancelled first."""
    status = store.read_status(args.run_id)
    if status.get("state") not in ("queued",):
        raise UserError(f"run {args.run_id} is {status.get('state')}, not queued: choose a new --run-id")
    stored, cfg = _queued_config(store, args.run_id)
    writer = store.writer(args.run_id)
    writer.set_status("queued", **process_identity(os.getpid()))
    slot = held_slot()  # taken by slot_wait, which exec'd this process
    try:
        if slot is None:
            slot = acquire_slot(store.root, args.slots or 1, should_stop=writer.cancel_requested)
        if slot is None:
            writer.set_status("cancelled", round=0)
            return 0
        held = _claim(store, cfg, should_stop=writer.cancel_requested)  # never beside a run of the same key
    except KeyboardInterrupt:  # Ctrl-C while waiting for a slot
        writer.set_status("cancelled", round=0, stopped_by="SIGINT")
        print(f"run {args.run_id}: cancelled before it started")
        return 130
    except safe_io.DamagedFile as e:  # a link or a pipe planted at a slot or claim file: named, not queued for ever
        writer.set_status("failed", round=0, ended=time.time(), error=str(e))
        raise
    if held is False:
        writer.set_status("cancelled", round=0)
        return 0
    prep = checked_prep(cfg, folder=store.path(args.run_id), stored=stored)  # the launcher's preflight, trusted when it matches
    return _Started(cfg, prep, held, slot)


def _start_new(args: argparse.Namespace, store: RunStore) -> _Started | int:
    """A new run from the arguments: checked, its data and partition prepared (every user error
    before a run folder exists), its key claimed; 0 when a finished run has these exact settings
    (unless ``--again``)."""
    cfg = check_config(config_from_args(args))  # the preflight, before anything reads a setting
    if args.run_id and store.path(args.run_id).exists():  # the run-id rules, before any work
        raise UserError(f"{store.path(args.run_id)} exists and is not a run: choose another --run-id")
    if args.workers is None and "workers" not in _config_file_keys(args):
        cfg = dataclasses.replace(cfg, workers=auto_workers(cfg))
    prep = prepare(cfg, checked=True)
    check_bounds(prep.cfg, train_size=len(prep.dataset.y_train), test_size=len(prep.dataset.y_test),
                 largest_client=max((len(p) for p in prep.parts), default=0))  # the batch against the clients
    held = _claim(store, cfg)
    reused = None if getattr(args, "again", False) else _finished(store, cfg)
    if reused:
        release(held)
        print(f"run {reused}: finished already with these exact settings (same run key and engine): "
              "not trained again (--again trains a new run anyway)")
        return 0
    return _Started(cfg, prep, held, None)


def _queued_config(store: RunStore, run_id: str) -> tuple[dict, RunConfig]:
    """A queued run's stored config, checked as a typed one would be (``config.stored``); one that
    cannot be used marks the run failed with the reason (never left "queued" for ever) and is one
    line on stderr."""
    try:
        stored = store.read_config(run_id)
        return stored, RunConfig.from_dict(stored)
    except (DamagedRun, ConfigError, TypeError) as exc:
        reason = exc.reason if isinstance(exc, DamagedRun) else str(exc)
        store.writer(run_id).set_status("failed", error=f"its stored config cannot be used: {reason}",
                                        ended=time.time())
        raise UserError(f"run {run_id} cannot start: {reason}") from None


def _claim(store: RunStore, cfg, *, should_stop=lambda: False):
    """The claim of ``cfg``'s run key (docs/reliability.md): waits while another process trains
    the same key. False when ``should_stop()`` came first; None for a config too broken to key."""
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
    try:
        return finished_run(store, run_key(cfg))
    except (ValueError, TypeError):
        return None


SIGNAL_EXIT = {"SIGINT": 130, "SIGTERM": 143}  # 128 + the signal's number; `fedquad cancel` (SIGUSR1) ends 0


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
    if status["state"] == "cancelled" and status.get("stopped_by") in SIGNAL_EXIT:
        return SIGNAL_EXIT[status["stopped_by"]]  # the shell's code for that signal, as if it had killed us
    return 0 if status["state"] in ("finished", "cancelled") else 1


PATH_MAX = 4000  # Linux refuses paths over 4,096 bytes; a run folder and its files add to it


def check_runs_dir(text: str, store: RunStore, *, write: bool = False) -> None:
    """``--runs-dir`` usable before any work: a folder (or a name for one), not too long, no loop
    of links; for commands that write, on a disk and in a folder this user can write."""
    raw = str(text)
    if not raw.strip() or "\0" in raw:
        raise UserError(f"--runs-dir {raw!r} is not a folder: pass a folder for the run store")
    if len(os.fsencode(raw)) > PATH_MAX or any(len(os.fsencode(part)) > 255 for part in store.root.parts):
        raise UserError(f"--runs-dir is too long ({len(raw):,} characters; at most {PATH_MAX:,}, 255 a name): "
                        "pass a shorter path")
    try:
        info = os.stat(store.root)
    except FileNotFoundError:
        info = None
    except OSError as exc:  # a loop of links, a component that is a file, no permission
        raise UserError(f"--runs-dir {raw!r} cannot be used: {exc.strerror}") from None
    if info is not None and not os.path.isdir(store.root):
        raise UserError(f"--runs-dir {raw!r} is not a folder: pass a folder for the run store")
    problem = system_folder(store.root)
    if problem:
        raise UserError(f"--runs-dir {raw!r} cannot be used: {problem}; pass a folder of your own")
    if write:
        _check_writable(raw, store.root)


KERNEL_FOLDERS = ("proc", "sys", "dev")


def system_folder(root) -> str | None:
    """Why ``root`` (or where it would be created) cannot hold a run store whatever the
    permissions say: the file system's root, or a kernel folder (/proc, /sys, /dev), followed
    through links. None when it can."""
    here = os.path.realpath(os.path.abspath(root))
    if here == os.sep:
        return "it is the file system's root (runs would be written beside /etc and /usr)"
    top = here.split(os.sep)[1:2]
    if top and top[0] in KERNEL_FOLDERS:
        return f"{here} is a system folder (in /{top[0]}, a kernel folder)"
    return None


def _check_writable(raw: str, root) -> None:
    """The folder (or, when it does not exist yet, its nearest existing parent) can take files:
    not a read-only mount, not a kernel file system, writable by this user."""
    here = os.path.abspath(root)
    while not os.path.exists(here):
        here = os.path.dirname(here)
    try:
        read_only = bool(os.statvfs(here).f_flag & os.ST_RDONLY)
    except OSError as exc:
        raise UserError(f"--runs-dir {raw!r} cannot be used: {exc.strerror}") from None
    kernel = os.path.realpath(here).split(os.sep)[1:2] in (["proc"], ["sys"], ["dev"])
    if read_only or kernel or not os.access(here, os.W_OK | os.X_OK):
        why = "on a read-only disk" if read_only else "a system folder" if kernel else "not writable by you"
        raise UserError(f"--runs-dir {raw!r} cannot be used: {here} is {why}; pass a folder you can write")


def _config_file_keys(args: argparse.Namespace) -> set[str]:
    if not getattr(args, "config", None):
        return set()
    data = read_json_file(args.config, "--config")
    return set(data) if isinstance(data, dict) else set()


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
        try:
            s = summarize(store, info.run_id)
        except DamagedRun as e:  # damaged since info() looked (or a file info does not read): named below
            infos[infos.index(info)] = dataclasses.replace(info, damaged=e.reason)
            rows.append([info.run_id, "damaged"] + ["-"] * 6)
            continue
        rows.append([info.run_id, s["state"], str(s["method"]), str(s["dataset"]), str(s["clients"]), alpha_text(s["alpha"], "short"),
                     str(s["rounds"]), fmt(s["final_acc"])])
    print_table(["run", "state", "method", "dataset", "clients", "alpha", "rounds", "final acc"], rows)
    for info in infos:
        if info.damaged:
            print(f"damaged {info.run_id}: {info.damaged}")
    return 0


# `fedquad show`'s local columns: their column heads from the one vocabulary, without the "%" (values are fractions here)
LOCAL_COLUMNS = {m: METRICS[m].short.removesuffix(" %") for m in ("local_acc_all", "local_acc_own", "local_acc_own_any",
                                                                  "local_effective_rank", "local_cka", "update_cosine")}


def cmd_show(args, store: RunStore) -> int:
    cfg, status, rows = store.read_config(args.run), store.read_status(args.run), store.read_metrics(args.run)
    store.read_partition(args.run)  # a damaged partition.json is damage too: named, exit 2, as `list` says
    print(json.dumps({"config": cfg, "status": status}, indent=2, sort_keys=True))
    local = any("local_acc_all" in r for r in rows)  # mean over the measured clients' local models
    table = [[str(r["round"]), fmt(r["test_accuracy"]), fmt(r.get("train_loss")), fmt(r.get("ratio")),
              fmt(r.get("ratio_l2")), str(r.get("samples_total", "")), fmt(r.get("elapsed"), ".1f")]
             + ([fmt(r.get(k), ".3f") for k in LOCAL_COLUMNS] if local else []) for r in rows]
    print_table(["round", "test acc", "train loss", "ratio", "ratio (L2)", "samples", "seconds"]
                + (list(LOCAL_COLUMNS.values()) if local else []), table)
    return 0


def cmd_compare(args, store: RunStore) -> int:
    rows, damaged = [], []
    for run_id in args.runs:
        try:
            s = summarize(store, run_id)
        except DamagedRun as e:  # one damaged run costs only its own row
            rows.append([run_id, "-", "damaged", "-", "-", "-", "-"])
            damaged.append(f"damaged {run_id}: {e.reason}")
            continue
        rows.append([run_id, str(s["method"]), s["state"], str(s["rounds"]), fmt(s["final_acc"]), fmt(s["best_acc"]),
                     fmt(s["final_ratio"])])
    print_table(["run", "method", "state", "rounds", "final acc", "best acc", "final ratio"], rows)
    for line in damaged:
        print(line, file=sys.stderr)
    return 1 if damaged else 0


def cmd_cancel(args, store: RunStore) -> int:
    if not store.exists(args.run) and valid_name(args.run) and StudyStore(store.root).exists(args.run):
        return cancel_study(args.run, store)  # a study of that name: stop it as Ctrl-C does
    done = store.request_cancel(args.run)
    print(f"cancel requested for {args.run}: {done}")
    return 0


def cmd_delete(args, store: RunStore) -> int:
    store.delete(args.run)
    print(f"deleted {args.run}")
    return 0
