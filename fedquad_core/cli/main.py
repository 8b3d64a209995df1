"""The ``fedquad`` command line: run, list, show, compare, sweep, study, cancel, delete, and the
commands other packages register (``plugins``: the dashboard's ``export``).

User errors (bad settings, missing data) exit with code 2 and one line saying what to change,
before any training starts."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # must be set before torch loads OpenMP

import argparse
import signal
import sys
import threading
from typing import Sequence

from ..errors import os_error_line
from ..runs.store import RunStore
from ..study.stopping import StudyStopped
from ..user_errors import USER_ERRORS
from . import commands, plugins
from .args import OneLineParser, add_run_options, int_in, nonempty
from .study import add_study_parser, cmd_study
from .sweep import add_sweep_parser, cmd_sweep


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="fedquad", description="FedQuad Lab: federated runs of FedQuad and its baselines, "
                                     "with the geometry of the embedding space recorded every few rounds.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--runs-dir", default="runs", help="run store root (default ./runs)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_parser = sub.add_parser
    sub.add_parser = lambda *a, **k: _add_parser(*a, parents=[common], **k)
    p = sub.add_parser("run", help="train one federated run and store it", description="Train one federated run and store it.")
    add_run_options(p)
    p.add_argument("--name", type=nonempty("--name"), help="label shown in lists and the dashboard")
    p.add_argument("--run-id", type=nonempty("--run-id"), help="run folder name (default: time-method-random); an existing queued run is started")
    p.add_argument("--threads", type=int_in(1, 1024), help="torch threads for this process (default 1; see docs/performance.md)")
    p.add_argument("--slots", type=int_in(1, 1024), help=argparse.SUPPRESS)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--again", action="store_true", help="train even when a finished run with these exact settings "
                                                       "exists (by default that run is reused)")
    sub.add_parser("list", help="list the runs in the store")
    p = sub.add_parser("show", help="config, status and metrics of one run")
    p.add_argument("run")
    p = sub.add_parser("compare", help="final and best accuracy and final ratio of several runs")
    p.add_argument("runs", nargs="+")
    p = sub.add_parser("cancel", help="stop a run after its current round, or a running study (as Ctrl-C does)")
    p.add_argument("run")
    p = sub.add_parser("delete", help="delete a finished run's folder")
    p.add_argument("run")
    add_sweep_parser(sub)
    add_study_parser(sub, common)
    for name, command in plugins.commands(set(sub.choices)).items():  # e.g. the dashboard's ``export``
        command.add_arguments(sub.add_parser(name, help=command.help, description=command.help))
        sub.choices[name].set_defaults(plugin=command)
    return parser


def dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "plugin", None) is not None:  # a registered command: it checks its own input
        return args.plugin.run(args)
    store = RunStore(args.runs_dir)
    commands.check_runs_dir(args.runs_dir, store,
                            write=args.command in ("run", "sweep", "cancel", "delete")
                            or (args.command == "study" and getattr(args, "study_command", None) in ("run", "cancel")))
    return {"run": commands.cmd_run, "list": commands.cmd_list, "show": commands.cmd_show,
            "compare": commands.cmd_compare, "cancel": commands.cmd_cancel, "delete": commands.cmd_delete,
            "sweep": cmd_sweep, "study": cmd_study}[args.command](args, store)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    finally:
        if argv is None and threading.current_thread() is threading.main_thread():
            # a real command line: a Ctrl-C that comes after the work is done (a second one, late)
            # must not turn the exit code into "killed by SIGINT" on the way out
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _main(argv: Sequence[str] | None) -> int:
    try:  # building the parser imports the methods (torch): a Ctrl-C meanwhile is one line too
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("fedquad: interrupted while starting", file=sys.stderr)
        return 130
    try:
        return dispatch(args)
    except USER_ERRORS as exc:
        print(f"fedquad: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fedquad: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # the disk or the store's folder failed us: one line, nothing half-said
        print(f"fedquad: error: {os_error_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not isinstance(exc, StudyStopped):
            raise
        print(f"fedquad: {exc}", file=sys.stderr)  # what finished and how to resume, one line
        return 130
