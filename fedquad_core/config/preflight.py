"""The one check of a configuration or a grid before any work starts: every setting
(``validate``, with the upper bounds of ``limits``), the device, the data and each distinct
partition (``check_runs``). What passes comes out as ``Checked`` values: the resolved config with
its partition, drawn once, and the digest of the labels it was drawn on. The launcher hands both to
the run's process (``runs.preflight_file``), which trusts a checked config whose digests match
instead of checking and drawing again (``train.checked``). Nothing here changes a run's numbers,
so this module is not part of the engine fingerprint."""
from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import safe_io
from .alpha import alpha_problem
from .checked import Checked
from .run import CLIENT_EXECS, DATASET_NAMES, DEVICES, MODEL_NAMES, ConfigError, RunConfig
from .field_types import type_problem
from .numbers import finite_number
from .limits import LOCAL_CLIENTS_MAX, LOCAL_EPOCHS_MAX, NAME_MAX, SEED_MAX, WORKERS_MAX, check_bounds
from ..data import check_data, data_summary, get_source, load_dataset
from ..data.tiny_imagenet import CACHE_NAME
from ..data.tiny_imagenet_files import CACHE_KEYS
from .devices import resolve_device
from ..errors import UserError
from ..methods import METHODS, get_method
from ..numerics.partition import partition
from ..runs.preflight_file import labels_digest


def _positive_int(name: str, value: Any, flag: str, minimum: int = 1, maximum: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ConfigError(f"{name} must be an integer {bounds} (got {value!r}): change {flag}")


def validate(cfg: RunConfig, *, num_train_samples: int | None = None) -> RunConfig:
    """Check every setting before any work starts; raise ConfigError naming what to change.
    Types first (every field, from its annotation), then choices and ranges, then the data
    folder and whether the model fits the data's shape."""
    problem = type_problem(cfg)
    if problem:
        raise ConfigError(problem)
    if cfg.dataset not in DATASET_NAMES:
        raise ConfigError(f"unknown dataset {cfg.dataset!r}: choose one of {', '.join(DATASET_NAMES)} (--dataset)")
    if cfg.method not in METHODS:
        raise ConfigError(f"unknown method {cfg.method!r}: choose one of {', '.join(METHODS)} (--method)")
    if cfg.model not in MODEL_NAMES:
        raise ConfigError(f"unknown model {cfg.model!r}: choose one of {', '.join(MODEL_NAMES)} (--model)")
    if cfg.device not in DEVICES:
        raise ConfigError(f"unknown device {cfg.device!r}: choose one of {', '.join(DEVICES)} (--device)")
    problem = alpha_problem(cfg.alpha)
    if problem:
        raise ConfigError(problem)
    cfg = cfg.with_dataset_defaults()
    _positive_int("clients", cfg.num_clients, "--clients")
    _positive_int("rounds", cfg.rounds, "--rounds")
    _positive_int("local epochs", cfg.local_epochs, "--local-epochs", maximum=LOCAL_EPOCHS_MAX)
    _positive_int("batch size", cfg.batch_size, "--batch-size")
    if cfg.client_exec not in CLIENT_EXECS:
        raise ConfigError(f"unknown client execution {cfg.client_exec!r}: choose one of {', '.join(CLIENT_EXECS)} (--client-exec)")
    _positive_int("snapshot interval", cfg.snapshot_every, "--snapshot-every")
    _positive_int("snapshot points", cfg.snapshot_points, "--snapshot-points", minimum=10)
    _positive_int("local clients", cfg.local_clients, "--local-clients", minimum=0, maximum=LOCAL_CLIENTS_MAX)
    _positive_int("min size", cfg.min_size, "--min-size", minimum=0)
    _positive_int("workers", cfg.workers, "--workers", minimum=0, maximum=WORKERS_MAX)
    _positive_int("seed", cfg.seed, "--seed", minimum=0, maximum=SEED_MAX)
    if cfg.train_subset is not None:
        _positive_int("train subset", cfg.train_subset, "--train-subset", minimum=10)
    if cfg.eval_points is not None:
        _positive_int("eval points", cfg.eval_points, "--eval-points", minimum=10)
    if not (0 < cfg.participation <= 1):
        raise ConfigError(f"participation must be in (0, 1] (got {cfg.participation!r}): change --participation")
    for name, flag in (("lr", "--lr"), ("momentum", "--momentum"), ("weight_decay", "--weight-decay")):
        value = getattr(cfg, name)
        if value is not None and (value < 0 or (name == "lr" and value == 0)):
            raise ConfigError(f"{name} must be a finite number {'> 0' if name == 'lr' else '>= 0'} (got {value!r}): change {flag}")
    if cfg.name is not None and (len(cfg.name) > NAME_MAX or not cfg.name.isprintable()):
        raise ConfigError(f"name must be at most {NAME_MAX} printable characters, no line breaks (got {cfg.name[:40]!r}...): change --name")
    _check_data_dir(cfg)
    _check_data_cache(cfg)
    _check_fits_data(cfg)
    _validate_method_params(cfg)
    if num_train_samples is not None:
        check_samples(cfg, num_train_samples)
    return cfg


def check_samples(cfg: RunConfig, num_train_samples: int) -> None:
    """What only the loaded data can tell: enough training samples for the clients."""
    if cfg.num_clients > num_train_samples:
        raise ConfigError(f"{cfg.num_clients} clients but only {num_train_samples} training samples in {cfg.dataset}: lower --clients")


def check_config(cfg: RunConfig) -> RunConfig:
    """The settings preflight of one configuration, run once per configuration on every path
    (``fedquad run``, ``study``, ``sweep``, the dashboard): every setting and the method's
    parameters. Returns the config with its data set's defaults filled in."""
    checked = validate(cfg)
    cfg.params()
    check_bounds(checked)  # upper bounds that fit the machine and the data (docs/reliability.md)
    return checked


def _check_data_dir(cfg: RunConfig) -> None:
    """A given data folder (--data-dir, else $FEDQUAD_DATA_DIR) must exist, for every data set,
    except when --download will create it."""
    if cfg.data_dir is None:
        env = os.environ.get("FEDQUAD_DATA_DIR")
        if env and not cfg.download and not Path(env).expanduser().is_dir():
            raise ConfigError(f"$FEDQUAD_DATA_DIR={env} is not a folder: point it at the data, unset it, or pass --data-dir")
        return
    path = Path(cfg.data_dir).expanduser()
    if not cfg.data_dir.strip() or "\0" in cfg.data_dir:
        raise ConfigError(f"data_dir {cfg.data_dir!r} is not a folder name: change --data-dir")
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--data-dir {cfg.data_dir} is a file, not a folder: pass the folder holding the data")
    if not path.exists() and not cfg.download:
        raise ConfigError(f"--data-dir {cfg.data_dir} does not exist: pass the folder holding the data, "
                          "or add --download to fetch it there")


def _check_data_cache(cfg: RunConfig) -> None:
    """Tiny-ImageNet's decoded cache, checked by its array headers (nothing loaded) before any run
    folder exists: a cache that cannot be read with no images beside it to rebuild it from, or
    whose arrays have the wrong shapes, is named in one line; the loader would fail mid-run."""
    if cfg.dataset != "tiny-imagenet":
        return
    found = get_source(cfg.dataset).found(cfg.data_dir)
    folder = Path(found) if found is not None else None
    cache = folder / CACHE_NAME if folder is not None else None
    if cache is None or not cache.exists():
        return  # check_data names the remedy; a missing cache is built from the images
    try:
        shapes = _npz_headers(cache)
    except safe_io.DamagedFile as e:
        raise ConfigError(f"the Tiny-ImageNet cache {cache} is damaged ({e.reason}): delete it "
                          "(it is rebuilt from the images)") from None
    images = (folder / "wnids.txt").is_file() and (folder / "train").is_dir()
    if shapes is None:
        if not images:
            raise ConfigError(f"the Tiny-ImageNet cache {cache} cannot be read and there are no images beside it to "
                              f"rebuild it from: delete it and unzip tiny-imagenet-200.zip into {folder}")
        return  # rebuilt from the images
    problem = _cache_shape_problem(shapes)
    if problem:
        raise ConfigError(f"the Tiny-ImageNet cache {cache} {problem}: delete it (it is rebuilt from the images)")


TINY_CACHE_BYTES = 4 << 30  # what the decoded cache may unpack to: all of Tiny-ImageNet is 1.35 GB


def _npz_headers(path: Path) -> dict[str, tuple] | None:
    """``{name: (shape, dtype)}`` of an ``.npz``'s arrays from their headers, or None when it is not
    a regular, readable ``.npz``. A cache whose headers claim other sizes than its zip holds, or
    more than ``TINY_CACHE_BYTES`` in all, raises ``safe_io.TooLarge`` / ``WrongSize``: the loader
    would allocate what the header claims (``safe_io.npz_members``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a pipe never blocks
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            members = safe_io.npz_members(f, path.name, TINY_CACHE_BYTES)
        except (safe_io.TooLarge, safe_io.WrongSize):
            raise
        except (OSError, ValueError):  # DamagedFile: not a readable .npz
            return None
    return {key: (shape, dtype) for key, (shape, dtype, _, _) in members.items()}


def _cache_shape_problem(shapes: dict[str, tuple]) -> str | None:
    missing = [k for k in CACHE_KEYS if k not in shapes]
    if missing:
        return f"has no {', '.join(missing)}"
    for x, y in (("x_train", "y_train"), ("x_test", "y_test")):
        (xs, xd), (ys, yd) = shapes[x], shapes[y]
        if len(xs) != 4 or tuple(xs[1:]) != (3, 64, 64) or xd.kind != "u" or len(ys) != 1 or ys[0] != xs[0] or yd.kind not in "iu":
            return f"holds {x} {tuple(xs)} {xd} and {y} {tuple(ys)} {yd}, not N x 3 x 64 x 64 images with N labels"
    return None


def _check_fits_data(cfg: RunConfig) -> None:
    """What the data set's shape and size allow: cnn and resnet18 read (C, H, W) images and so does
    augmentation (a flat data set such as digits needs mlp, no augmentation); a training subset
    cannot be larger than the training set."""
    facts = data_summary(cfg.dataset)
    shape = tuple(facts["input_shape"])
    if len(shape) != 3 and cfg.model_name != "mlp":
        raise ConfigError(f"--model {cfg.model} needs images, but {cfg.dataset} samples are flat vectors of "
                          f"{shape[0]} values: use --model mlp (or auto)")
    if len(shape) != 3 and cfg.augment:
        raise ConfigError(f"--augment crops and flips images, but {cfg.dataset} samples are flat vectors: "
                          "drop --augment")
    if cfg.train_subset is not None and cfg.train_subset > facts["train_size"]:
        raise ConfigError(f"train subset must be at most {facts['train_size']} (the size of {cfg.dataset}'s "
                          f"training set; got {cfg.train_subset}): change --train-subset")


def _validate_method_params(cfg: RunConfig) -> None:
    method = get_method(cfg.method)
    fields = {f.name: f for f in dataclasses.fields(method.Params)}
    for key, value in cfg.method_params.items():
        if key not in fields:
            valid = ", ".join(fields) or "none"
            raise ConfigError(f"method {cfg.method} has no parameter {key!r}: its parameters are {valid}")
        meta = fields[key].metadata
        if not finite_number(value):  # an int of any size is compared, never converted
            raise ConfigError(f"{cfg.method} {key} must be a number (got {value!r}): change --{key.replace('_', '-')}")
        if meta.get("integer") and int(value) != value:
            raise ConfigError(f"{cfg.method} {key} must be an integer (got {value!r}): change --{key.replace('_', '-')}")
        high = meta.get("limit")  # the hard bound ("max" is only where the slider ends)
        if high is not None and value > high:
            raise ConfigError(f"{cfg.method} {key} cannot be above {high} (got {value!r}): change --{key.replace('_', '-')}")
        low = meta.get("min")
        if low is not None and value < low:
            what = "negative" if low == 0 else f"below {low}"
            raise ConfigError(f"{cfg.method} {key} cannot be {what} (got {value!r}): change --{key.replace('_', '-')}")


Labels = Callable[[RunConfig], Any]
Draw = Callable[[RunConfig], Any]


def _load_labels(cfg: RunConfig, seed: int):
    ds = load_dataset(cfg.dataset, data_dir=cfg.data_dir, download=cfg.download, train_subset=cfg.train_subset,
                      seed=seed)
    return ds.y_train.numpy()


def check_runs(configs: list[RunConfig], *, labels: Labels | None = None, draw: Draw | None = None) -> list[Checked]:
    """Every user error of a grid (settings, devices, data, each distinct partition) before any
    run starts, each configuration checked once and each distinct partition drawn once; returns
    one ``Checked`` per configuration. ``labels(cfg)`` may supply the training labels a run with
    ``cfg`` would see (the dashboard's cache), or None to skip that data's size and partition
    checks; by default the data set is loaded once per distinct draw. ``draw(cfg)`` may supply
    the partition of ``cfg`` drawn on those labels (the dashboard's cache of the Partitions page's
    draws); by default it is drawn here."""
    if not configs:
        raise UserError("the grid has no points")
    for cfg in configs:
        check_config(cfg)
    for device in dict.fromkeys(c.device for c in configs):
        resolve_device(device)
    drawn: dict[tuple, Any] = {}
    parts: dict[tuple, list] = {}
    out: list[Checked] = []
    for cfg in configs:
        data_key = (cfg.dataset, cfg.data_dir, cfg.download, cfg.train_subset, cfg.seed if cfg.train_subset else 0)
        if data_key not in drawn:
            check_data(cfg.dataset, data_dir=cfg.data_dir, download=cfg.download)
            y = labels(cfg) if labels else _load_labels(cfg, data_key[4])
            drawn[data_key] = None if y is None else (y, labels_digest(y))
        if drawn[data_key] is None:
            out.append(Checked(cfg.resolved()))
            continue
        y, digest = drawn[data_key]
        check_samples(cfg, len(y))
        part_key = (data_key, cfg.alpha, cfg.num_clients, cfg.seed, cfg.min_size)
        if part_key not in parts:
            parts[part_key] = (draw(cfg) if draw else
                               partition(y, cfg.num_clients, cfg.alpha, seed=cfg.seed, min_size=cfg.min_size))
            check_bounds(cfg.with_dataset_defaults(), train_size=len(y),
                         largest_client=max((len(p) for p in parts[part_key]), default=0))
        out.append(Checked(cfg.resolved(), parts[part_key], digest))
    return out


def check_grid(configs: list[RunConfig], *, labels: Labels | None = None) -> list[list | None]:
    """``check_runs``'s partitions alone: each config's checked partition (None where ``labels``
    gave no labels)."""
    return [c.parts for c in check_runs(configs, labels=labels)]
