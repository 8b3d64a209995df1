"""Run configuration: one frozen dataclass, validated in one place, serialised as JSON next to
the results it produced."""
from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATASET_NAMES = ("digits", "fashion-mnist", "cifar10", "cifar100", "tiny-imagenet")
MODEL_NAMES = ("auto", "mlp", "cnn", "resnet18")
DEVICES = ("auto", "cpu", "cuda")
CLIENT_EXECS = ("auto", "sequential", "parallel", "vmap")  # how a round's clients are trained
DEFAULT_MODEL = {"digits": "mlp", "fashion-mnist": "cnn", "cifar10": "cnn", "cifar100": "resnet18",
                 "tiny-imagenet": "resnet18"}
# Local SGD per data set; a RunConfig field left at None takes its data set's value (see README,
# "How the defaults were chosen"). Image sets: NIID-Bench's (Li et al. 2021) lr 0.01, momentum 0.9,
# batch 64, weight decay 1e-5. Digits: measured on 50 clients of 28 samples (2 steps a round), where
# lr 0.01 leaves the model under-trained (FedAvg 15.9 % after 30 rounds).
_NIID_BENCH = {"lr": 0.01, "momentum": 0.9, "batch_size": 64, "weight_decay": 1e-5}
DATASET_DEFAULTS: dict[str, dict[str, float | int]] = {
    "digits": {"lr": 0.05, "momentum": 0.9, "batch_size": 64, "weight_decay": 1e-5},
    **{name: dict(_NIID_BENCH) for name in ("fashion-mnist", "cifar10", "cifar100", "tiny-imagenet")},
}


class ConfigError(ValueError):
    """A setting a user can change; the message says which and how."""


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    # data and partition
    dataset: str = "digits"
    data_dir: str | None = None
    download: bool = False
    train_subset: int | None = None  # class-stratified subset of the training set
    num_clients: int = 10
    alpha: float | None = 0.5  # Dirichlet concentration; None = IID
    min_size: int = 10
    # method
    method: str = "fedquad"
    method_params: dict[str, Any] = field(default_factory=dict)
    normalize_embeddings: bool = True  # L2-normalise embeddings before tuple losses
    model: str = "auto"
    # federated optimisation
    rounds: int = 20
    participation: float = 1.0
    local_epochs: int = 2
    batch_size: int | None = None  # None = the data set's default (DATASET_DEFAULTS)
    lr: float | None = None
    momentum: float | None = None
    weight_decay: float | None = None
    augment: bool | None = None  # None = the dataset's default
    # bookkeeping
    seed: int = 0
    device: str = "auto"
    workers: int = 0  # parallel client workers on CPU (0 = in-process, sequential)
    client_exec: str = "auto"  # auto: vmap on CUDA, parallel when workers > 0, else sequential
    snapshot_every: int = 5
    snapshot_points: int = 2000
    local_clients: int = 10  # clients whose local model is measured at each snapshot (0 = none)
    eval_points: int | None = None  # None = whole test set
    name: str | None = None  # free label shown in the dashboard

    # ---- derived -------------------------------------------------------------------------
    @property
    def model_name(self) -> str:
        return DEFAULT_MODEL[self.dataset] if self.model == "auto" else self.model

    def params(self):
        """The method's parameter dataclass, defaults filled in."""
        from .methods import get_method

        return get_method(self.method).default_params(**self.method_params)

    def with_dataset_defaults(self) -> "RunConfig":
        """The same config with every training setting left at None set to its data set's default."""
        defaults = DATASET_DEFAULTS.get(self.dataset, {})
        filled = {k: v for k, v in defaults.items() if getattr(self, k) is None}
        return dataclasses.replace(self, **filled) if filled else self

    def resolved(self) -> "RunConfig":
        """The same config with every data set and method default written out (what is stored on
        disk, so a stored config holds concrete values)."""
        return dataclasses.replace(self.with_dataset_defaults(), method_params=dataclasses.asdict(self.params()))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ConfigError(f"unknown config key(s) {', '.join(unknown)}: valid keys are {', '.join(sorted(names))}")
        return cls(**data)


def _positive_int(name: str, value: Any, flag: str, minimum: int = 1, maximum: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ConfigError(f"{name} must be an integer {bounds} (got {value!r}): change {flag}")


SEED_MAX = 2**63 - 1  # torch.Generator.manual_seed's range; numpy takes any seed >= 0
WORKERS_MAX = 256
LOCAL_EPOCHS_MAX = 1000  # a client draws its batch order for all its epochs up front
LOCAL_CLIENTS_MAX = 100  # each costs a forward pass and K x points x dim float16 a snapshot
NAME_MAX = 200


def validate(cfg: RunConfig, *, num_train_samples: int | None = None) -> RunConfig:
    """Check every setting before any work starts; raise ConfigError naming what to change.
    Types first (every field, from its annotation), then choices and ranges, then the data
    folder and whether the model fits the data's shape."""
    from .config_types import type_problem
    from .methods import METHODS

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
    if cfg.alpha is not None and cfg.alpha <= 0:
        raise ConfigError(f"alpha must be a number > 0 (got {cfg.alpha!r}): change --alpha (small = strong skew), or use --iid")
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
    _check_fits_data(cfg)
    _validate_method_params(cfg)
    if num_train_samples is not None and cfg.num_clients > num_train_samples:
        raise ConfigError(f"{cfg.num_clients} clients but only {num_train_samples} training samples in {cfg.dataset}: lower --clients")
    return cfg


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


def _check_fits_data(cfg: RunConfig) -> None:
    """What the data set's shape and size allow: cnn and resnet18 read (C, H, W) images and so does
    augmentation (a flat data set such as digits needs mlp, no augmentation); a training subset
    cannot be larger than the training set."""
    from .data import data_summary

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
    from .methods import get_method

    method = get_method(cfg.method)
    fields = {f.name: f for f in dataclasses.fields(method.Params)}
    for key, value in cfg.method_params.items():
        if key not in fields:
            valid = ", ".join(fields) or "none"
            raise ConfigError(f"method {cfg.method} has no parameter {key!r}: its parameters are {valid}")
        meta = fields[key].metadata
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{cfg.method} {key} must be a number (got {value!r}): change --{key.replace('_', '-')}")
        if meta.get("integer") and int(value) != value:
            raise ConfigError(f"{cfg.method} {key} must be an integer (got {value!r}): change --{key.replace('_', '-')}")
        high = meta.get("max") if meta.get("integer") else None  # sizes: beyond max, memory runs out
        if high is not None and value > high:
            raise ConfigError(f"{cfg.method} {key} cannot be above {high} (got {value!r}): change --{key.replace('_', '-')}")
        low = meta.get("min")
        if low is not None and value < low:
            what = "negative" if low == 0 else f"below {low}"
            raise ConfigError(f"{cfg.method} {key} cannot be {what} (got {value!r}): change --{key.replace('_', '-')}")
