"""The run-setting flags shared by ``fedquad run``, ``sweep`` and ``study run``, and the
RunConfig they make (``--config`` file, then flags, then fixed values)."""
from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ..config import CLIENT_EXECS, DATASET_DEFAULTS, DATASET_NAMES, DEVICES, MODEL_NAMES, RunConfig
from ..config.devices import usable_cores
from ..config.numbers import NumberError, parse_float, parse_int
from .. import safe_io
from ..errors import UserError
from ..methods import METHODS
from ..methods.params import method_param_fields, owners


def method_param_help(name: str) -> str:
    """A method flag's help that fits every method it serves: one text with the methods named when
    they agree, else each method's own meaning and default."""
    per = [(m, f.metadata.get("help", ""), f.default) for m, cls in METHODS.items()
           for f in dataclasses.fields(cls.Params) if f.name == name]
    if len({(h, d) for _, h, d in per}) == 1:
        return f"{per[0][1]} (default {per[0][2]}) [{', '.join(owners(name))}]"
    return "; ".join(f"{m}: {h} (default {d})" for m, h, d in per)


def dataset_default_help(key: str) -> str:
    """``default per data set: digits 0.05; fashion-mnist, cifar10, ... 0.01`` (from DATASET_DEFAULTS)."""
    groups: dict[object, list[str]] = {}
    for name, values in DATASET_DEFAULTS.items():
        groups.setdefault(values[key], []).append(name)
    if len(groups) == 1:
        return f"default {next(iter(groups))} on every data set"
    return "default per data set: " + "; ".join(f"{', '.join(names)} {value}" for value, names in groups.items())


def strict_int(text: str) -> int:
    """argparse type: an integer by the one rule (``config.numbers``): ``1_0``, ``'١٠'`` and a
    400-digit integer are refused, not read."""
    try:
        return parse_int(text)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def strict_float(text: str) -> float:
    """argparse type: a number by the one rule (``config.numbers``: ``0.1``, ``1e-3``; no ``_``)."""
    try:
        return parse_float(text)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def nonempty(flag: str):
    """argparse type: text that is not empty or blank (an empty ``--config=`` is a mistake, not "none")."""
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{flag} is empty: give a value or leave the flag out")
        return text
    parse.__name__ = "non-empty text"
    return parse


def add_run_options(p: argparse.ArgumentParser, *, sweep: bool = False) -> None:
    d = RunConfig()
    g = p.add_argument_group("data and partition")
    g.add_argument("--config", type=nonempty("--config"), help="JSON file with RunConfig keys; flags given on the command line override it")
    g.add_argument("--dataset", choices=DATASET_NAMES, help=f"data set (default {d.dataset}: bundled, no download)")
    g.add_argument("--data-dir", help="folder with downloaded data (CIFAR, Tiny-ImageNet, Fashion-MNIST); must exist unless --download")
    g.add_argument("--download", action="store_true", default=None, help="download missing data (needs internet)")
    g.add_argument("--train-subset", type=strict_int, help="use a class-stratified subset of this many training samples")
    if not sweep:
        g.add_argument("--clients", dest="num_clients", type=strict_int, help=f"number of clients (default {d.num_clients})")
        g.add_argument("--alpha", type=strict_float, help=f"Dirichlet concentration; small = strong label skew (default {d.alpha})")
        g.add_argument("--iid", action="store_true", default=None, help="IID split instead of Dirichlet")
        g.add_argument("--method", choices=list(METHODS), help=f"FL method (default {d.method})")
        g.add_argument("--seed", type=strict_int, help=f"seed of partition, sampling and init (default {d.seed})")
    g.add_argument("--min-size", type=strict_int, help=f"minimum samples per client (default {d.min_size})")
    g = p.add_argument_group("training")
    g.add_argument("--model", choices=MODEL_NAMES, help="model (default auto: mlp for digits, cnn for Fashion-MNIST/CIFAR-10, resnet18 otherwise)")
    g.add_argument("--rounds", type=strict_int, help=f"communication rounds (default {d.rounds})")
    g.add_argument("--participation", type=strict_float, help=f"fraction p of clients per round, in (0, 1]: "
                   f"max(1, floor(p * clients)) a round, FedAvg's rule (default {d.participation})")
    g.add_argument("--local-epochs", type=strict_int, help=f"local epochs per round (default {d.local_epochs})")
    g.add_argument("--batch-size", type=strict_int, help=f"local batch size ({dataset_default_help('batch_size')})")
    g.add_argument("--lr", type=strict_float, help=f"SGD learning rate ({dataset_default_help('lr')})")
    g.add_argument("--momentum", type=strict_float, help=f"SGD momentum ({dataset_default_help('momentum')})")
    g.add_argument("--weight-decay", type=strict_float, help=f"SGD weight decay ({dataset_default_help('weight_decay')})")
    g.add_argument("--augment", action=argparse.BooleanOptionalAction, default=None, help="random crop + flip (default: on for 32x32/64x64 sets)")
    g.add_argument("--normalize-embeddings", action=argparse.BooleanOptionalAction, default=None,
                   help=f"L2-normalise embeddings before tuple losses (default {d.normalize_embeddings})")
    g.add_argument("--device", choices=DEVICES, help="auto = cuda when available (default auto)")
    g.add_argument("--workers", type=_workers, help="parallel client worker processes on CPU, or 'auto' = one per core "
                                                   "(default: auto for `run`, 0 = in-process for sweep and study runs and "
                                                   "dashboard runs, which already run side by side)")
    g.add_argument("--client-exec", choices=CLIENT_EXECS, help="how a round's clients train: auto (default) = vmap on "
                   "CUDA, parallel workers when --workers > 0, else sequential")
    g.add_argument("--snapshot-every", type=strict_int, help=f"embedding snapshot every k rounds (default {d.snapshot_every})")
    g.add_argument("--snapshot-points", type=strict_int, help=f"test points in each snapshot (default {d.snapshot_points})")
    g.add_argument("--local-clients", type=strict_int, help="clients whose local model is measured (after local training, "
                   f"before aggregation) at each snapshot round; 0 = off (default {d.local_clients})")
    g.add_argument("--eval-points", type=strict_int, help="evaluate on a stratified subset of the test set (default: all)")
    g = p.add_argument_group("method parameters (each applies to the methods named)")
    for name, f in method_param_fields().items():
        kind = strict_int if f.metadata.get("integer") else strict_float
        g.add_argument(f"--{name.replace('_', '-')}", dest=f"mp_{name}", type=kind,
                       help=method_param_help(name))


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line (what is wrong, where the help is) instead of the full usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def int_in(lo: int, hi: int):
    """argparse type: an integer in lo..hi."""
    def parse(text: str) -> int:
        value = strict_int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}")
        return value
    parse.__name__ = f"integer in {lo}..{hi}"
    return parse


def _workers(text: str) -> int:
    if text.strip().lower() == "auto":
        return usable_cores()
    try:
        return parse_int(text)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, nor 'auto'") from None


MAX_JSON_FILE = 1 << 20  # a config or study file is a few hundred bytes; 1 MiB is generous


def read_json_file(path: str, flag: str) -> Any:
    """The JSON in ``path`` (a ``--config``/``--file``), or a one-line UserError. Only a regular file
    of at most 1 MiB is read (``safe_io``): ``/dev/zero``, a fifo or ``/dev/stdin`` would otherwise
    block or eat memory; duplicate keys and deep nesting are refused."""
    try:
        return safe_io.read_json(path, MAX_JSON_FILE)
    except FileNotFoundError:
        raise UserError(f"cannot read {flag} {path}: no such file") from None
    except safe_io.TooLarge:
        raise UserError(f"cannot read {flag} {path}: too big for a settings file (at most {MAX_JSON_FILE:,} bytes)") from None
    except safe_io.DamagedFile as exc:
        raise UserError(f"cannot read {flag} {path}: {exc.reason}") from None


def config_from_args(args: argparse.Namespace, *, defaults: dict[str, Any] | None = None, **fixed: Any) -> RunConfig:
    """``defaults`` (e.g. a study file's base), then ``--config``, then the flags, then ``fixed``."""
    base: dict[str, Any] = dict(defaults or {})
    if getattr(args, "config", None):
        base = read_json_file(args.config, "--config")
        if not isinstance(base, dict):
            raise UserError(f"--config {args.config} must hold a JSON object of RunConfig keys")
        base = {**(defaults or {}), **base}
    names = {f.name for f in dataclasses.fields(RunConfig)}
    for key, value in vars(args).items():
        if key in names and value is not None:
            base[key] = value
    if getattr(args, "iid", None):
        if getattr(args, "alpha", None) is not None:
            raise UserError("--iid and --alpha contradict each other: --iid means no label skew; "
                            "give one of them")
        base["alpha"] = None
    base.update(fixed)
    method_params = base.get("method_params")
    if method_params is None or isinstance(method_params, dict):  # anything else: validate says so
        method_params = dict(method_params or {})
        for key, value in vars(args).items():
            if key.startswith("mp_") and value is not None:
                method_params[key[3:]] = value
    base["method_params"] = method_params
    return RunConfig.from_dict(base)
